#include "experiments/src/report/report_context.hpp"

#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>

#include "experiments/src/plan/selection.hpp"
#include "experiments/src/report/artifact_report.hpp"
#include "experiments/src/spec/experiment_kind.hpp"

namespace bnn::exp {

ResultsStore& ReportContext::store() {
  if (!opened_) opened_.emplace(source_);
  return **opened_;
}

bool ReportContext::from_committed_files() {
  store();
  return opened_->from_committed_files();
}

const std::vector<JobRecord>& ReportContext::jobs() {
  if (!jobs_) {
    jobs_ = selected_jobs(store().jobs(source_.spec.name, false), source_.selection);
    if (jobs_->empty())
      std::cerr << "note: " << store().description() << " holds no job of " << source_.spec.name
                << (source_.selection.all() ? "" : " in the selection") << "\n";
  }
  return *jobs_;
}

const ReportData& ReportContext::report() {
  if (!report_)
    report_ = build_report(source_.spec, source_.registry, store(), load_reference(source_.spec, source_.registry),
                           source_.selection);
  return *report_;
}

const std::vector<std::pair<JobKey, GridPredictions>>& ReportContext::grids() {
  if (!grids_) {
    const std::set<JobKey> current = selected_job_keys(source_.spec, source_.registry, jobs());
    grids_ = store().grids(source_.spec.name);
    std::erase_if(*grids_, [&](const auto& g) { return !current.count(g.first); });
  }
  return *grids_;
}

const std::vector<JobRecord>& ReportContext::shown() {
  if (!shown_) shown_ = shown_jobs(source_.spec, source_.registry, store(), source_.selection);
  return *shown_;
}

const std::vector<std::pair<std::string, std::string>>& ReportContext::figure_files() {
  if (figures_) return *figures_;
  figures_.emplace();
  const ExperimentSpec& spec = source_.spec;
  if (!spec.artifacts.empty()) {
    std::vector<const JobRecord*> pointers;
    for (const auto& j : shown()) pointers.push_back(&j);
    *figures_ = artifact_files(spec, pointers, paper_values(report(), "kl"));
  }
  experiment_kind(spec).add_files(*this, *figures_);
  return *figures_;
}

std::vector<data::Dataset> spec_datasets(const ReportSource& source) {
  std::vector<data::Dataset> sets;
  for (const auto& d : source.spec.datasets) {
    const data::DatasetSpec& entry = source.registry.find(d.name);
    if (source.selection.shows_dataset(entry.name)) sets.push_back(data::load_dataset(entry, source.data_dir));
  }
  return sets;
}

std::map<std::string, data::LatentFunction> synthetic_truth(const ReportSource& source) {
  std::map<std::string, data::LatentFunction> truth;
  for (const auto& d : source.spec.datasets) {
    const data::DatasetSpec& entry = source.registry.find(d.name);
    if (entry.synthetic) truth[entry.name] = data::synthetic_latent(entry.synthetic->generator);
  }
  return truth;
}

std::map<std::string, std::string> paper_values(const ReportData& report, const std::string& metric) {
  std::map<std::string, std::string> out;
  for (const auto& d : report.datasets)
    for (const auto& m : report.methods) {
      const Cell& c = report.cell(d.name, m, metric);
      if (c.paper && !out.count(m)) {
        std::ostringstream text;
        text << c.paper->value;
        out[m] = text.str();
      }
    }
  return out;
}

}  // namespace bnn::exp
