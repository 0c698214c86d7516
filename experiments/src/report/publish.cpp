#include "experiments/src/report/publish.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "datasets/src/load.hpp"
#include "datasets/src/synthetic.hpp"
#include "experiments/src/io/files.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/plot/comparison_figure.hpp"
#include "experiments/src/plot/grid_figure.hpp"
#include "experiments/src/report/active_learning_report.hpp"
#include "experiments/src/report/artifact_report.hpp"
#include "experiments/src/store/published_jobs.hpp"
#include "experiments/src/verify/split_comparison.hpp"
#include "experiments/src/verify/split_file.hpp"
#include "experiments/src/verify/verify.hpp"

namespace bnn::exp {
namespace {

// The selected data sets of the spec (original units), to plot beside the grid.
std::vector<data::Dataset> spec_datasets(const ReportSource& source) {
  std::vector<data::Dataset> sets;
  for (const auto& d : source.spec.datasets) {
    const data::DatasetSpec& entry = source.registry.find(d.name);
    if (source.selection.shows_dataset(entry.name)) sets.push_back(data::load_dataset(entry, source.data_dir));
  }
  return sets;
}

// The true functions of the spec's synthetic data sets, by name.
std::map<std::string, data::LatentFunction> synthetic_truth(const ReportSource& source) {
  std::map<std::string, data::LatentFunction> truth;
  for (const auto& d : source.spec.datasets) {
    const data::DatasetSpec& entry = source.registry.find(d.name);
    if (entry.synthetic) truth[entry.name] = data::synthetic_latent(entry.synthetic->generator);
  }
  return truth;
}

// The points of every data set of the spec (original units), for plotting beside the grid.
std::string observations_csv(const std::vector<data::Dataset>& sets) {
  Eigen::Index inputs = 0;
  for (const auto& data : sets) inputs = std::max(inputs, data.X.cols());
  std::ostringstream out;
  out.precision(10);
  out << "dataset,row";
  for (Eigen::Index j = 0; j < inputs; ++j) out << ",x" << j + 1;
  out << ",y\n";
  for (const auto& data : sets)
    for (Eigen::Index i = 0; i < data.X.rows(); ++i) {
      out << data.name << "," << i;
      for (Eigen::Index j = 0; j < inputs; ++j) {
        out << ",";
        if (j < data.X.cols()) out << data.X(i, j);
      }
      out << "," << data.y[i] << "\n";
    }
  return out.str();
}

// The paper's values of one metric per method label (first data set that has them), as printed.
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

// The store a report reads: the results folder's own, or, where it has none but holds committed
// per-job files (a fresh clone's results/EXPERIMENT), one made in a scratch folder from them.
class ReportStore {
 public:
  explicit ReportStore(const ReportSource& source) {
    namespace fs = std::filesystem;
    const std::string splits = fs::exists(fs::path(source.results) / "bnnbench.sqlite")
                                   ? std::string()
                                   : find_text_file(source.results, "splits.csv");
    if (splits.empty()) {
      store_ = std::make_unique<ResultsStore>(source.results, ResultsStore::Access::read_only);
      return;
    }
    const std::string jobs = find_text_file(source.results, "jobs.csv");
    scratch_.emplace();
    store_ = std::make_unique<ResultsStore>(scratch_->path());
    for (const JobRecord& job : published_jobs(source.spec.name, read_text_file(splits, "--results"), splits,
                                               jobs.empty() ? std::string() : read_text_file(jobs, "--results"), jobs))
      store_->record(job);
    store_->describe_as(splits + " (no results store here: the committed per-split metrics" +
                        (jobs.empty() ? std::string() : " and " + jobs) + ", without run records)");
    static bool told = false;  // once per process (--publish renders several files)
    if (!told)
      std::cerr << "note: no results store in " << source.results << ": rendering from the committed " << splits
                << " (per-split metrics; no per-point pooling, grids or artifacts)\n";
    told = true;
  }
  ResultsStore& operator*() { return *store_; }

 private:
  std::optional<ScratchDirectory> scratch_;
  std::unique_ptr<ResultsStore> store_;
};

bool is_artifact_file(const std::string& format) { return format.ends_with(".csv") || format.ends_with(".svg"); }

// The files drawn from the shown jobs: the artifacts' tables and figures, an active-learning
// experiment's learning curves. Name -> contents.
std::vector<std::pair<std::string, std::string>> figure_files(const ReportSource& source, ResultsStore& store) {
  std::vector<std::pair<std::string, std::string>> files;
  if (source.spec.artifacts.empty() && !source.spec.active_learning) return files;
  const std::vector<JobRecord> jobs = shown_jobs(source.spec, source.registry, store, source.selection);
  if (!source.spec.artifacts.empty()) {
    std::vector<const JobRecord*> pointers;
    for (const auto& j : jobs) pointers.push_back(&j);
    const ReportData report = build_report(source.spec, source.registry, store,
                                           load_reference(source.spec, source.registry), source.selection);
    files = artifact_files(source.spec, pointers, paper_values(report, "kl"));
  }
  if (source.spec.active_learning && !jobs.empty()) {
    files.emplace_back("learning_curves.csv", learning_curves_csv(source.spec, source.registry, jobs));
    files.emplace_back("learning_curves.svg",
                       plot::render_svg(learning_curve_figure(source.spec, source.registry, jobs)));
  }
  return files;
}

}  // namespace

void check_format(const std::string& format, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), format) != allowed.end()) return;
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  throw std::invalid_argument("--format '" + format + "' must be " + list);
}

std::string render(const ReportData& report, const std::string& format) {
  if (format == "csv") return render_csv(report);
  if (format == "latex") return render_latex(report);
  return render_markdown(report);
}

std::string report_text(const std::string& format, const ReportSource& source) {
  if (!is_artifact_file(format))
    check_format(format, {"md", "csv", "latex", "splits", "jobs", "grid", "observations", "svg",
                          "an artifact file such as parameter_marginals.csv"});
  if (format == "observations") return observations_csv(spec_datasets(source));
  const ExperimentSpec& spec = source.spec;
  ReportStore opened(source);
  ResultsStore& store = *opened;
  if (is_artifact_file(format)) {
    std::string known;
    for (auto& [name, text] : figure_files(source, store)) {
      if (name == format) return text;
      known += (known.empty() ? "" : ", ") + name;
    }
    throw std::invalid_argument("no file '" + format + "' in this store's results of " + spec.name +
                                (known.empty() ? " (it has none)" : " (it has: " + known + ")"));
  }
  const std::vector<JobRecord> jobs = selected_jobs(store.jobs(spec.name, false), source.selection);
  if (jobs.empty())
    std::cerr << "note: " << store.description() << " holds no job of " << spec.name
              << (source.selection.all() ? "" : " in the selection") << "\n";
  if (format == "splits") return render_split_csv(jobs);
  if (format == "jobs") return render_job_csv(jobs);
  if (format == "svg" && !spec.grid)
    return plot::render_svg(comparison_figure(
        build_report(spec, source.registry, store, load_reference(spec, source.registry), source.selection)));
  if (format == "grid" || format == "svg") {
    // Only the grids of the jobs the table would show (the spec's current configuration, the selection).
    const std::set<JobKey> current = selected_job_keys(spec, source.registry, jobs);
    auto grids = store.grids(spec.name);
    std::erase_if(grids, [&](const auto& g) { return !current.count(g.first); });
    if (format == "grid") return render_grid_csv(grids);
    return plot::render_svg(grid_figure(spec, grids, spec_datasets(source), synthetic_truth(source)));
  }
  return render(build_report(spec, source.registry, store, load_reference(spec, source.registry), source.selection),
                format);
}

std::vector<std::pair<std::string, std::string>> published_files(const ReportSource& source) {
  std::vector<std::pair<std::string, std::string>> formats;
  if (source.spec.grid)
    formats = {{"report.md", "md"},   {"grid.csv", "grid"},     {"observations.csv", "observations"},
               {"figure.svg", "svg"}, {"splits.csv", "splits"}, {"jobs.csv", "jobs"}};
  else
    formats = {{"report.md", "md"},   {"report.csv", "csv"},    {"report.tex", "latex"},
               {"report.svg", "svg"}, {"splits.csv", "splits"}, {"jobs.csv", "jobs"}};
  // An active-learning job has a row per step and metric: its per-job files are compressed.
  if (source.spec.active_learning)
    for (auto& [name, format] : formats)
      if (format == "splits" || format == "jobs") name += ".gz";
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [name, format] : formats) files.emplace_back(name, report_text(format, source));
  ReportStore opened(source);
  for (auto& file : figure_files(source, *opened)) files.push_back(std::move(file));
  return files;
}

ComparisonOutcome compare_with_published(const ReportSource& source, const std::string& file, double tolerance) {
  const std::string published = read_text_file(file, "--compare");
  ReportStore opened(source);
  ResultsStore& store = *opened;
  ComparisonOutcome out;
  if (is_split_table(published)) {
    const SplitFileOutcome c =
        compare_with_split_file(source.spec.name, selected_jobs(store.jobs(source.spec.name, false), source.selection),
                                store.path(), file, published, tolerance);
    return {c.text, c.error, c.status};
  }
  const std::string ours = render_csv(build_report(source.spec, source.registry, store,
                                                   load_reference(source.spec, source.registry), source.selection));
  const TableComparison c = compare_report_tables(ours, published, file, tolerance);
  std::ostringstream text;
  text << "# " << source.spec.name << ": " << store.path() << " against " << file << "\n\n"
       << c.compared << " value(s) compared (timings excepted): " << c.identical << " identical, "
       << (tolerance > 0
               ? std::to_string(c.within) + " within the relative tolerance " + format_tolerance(tolerance) + ", "
               : std::string())
       << c.differing.size() << " differ; " << c.not_rerun << " published value(s) not rerun here, " << c.partial
       << " over a different number of splits, " << c.not_published << " of ours not in the published table\n";
  if (c.compared == 0) {
    out.error = "no value of " + file + " could be compared with this store's report";
    out.status = 1;
  }
  if (!c.differing.empty()) {
    text << "\n| data set | method | metric | ours | se | published | se | relative difference |\n"
            "|---|---|---|---|---|---|---|---|\n";
    for (const auto& d : c.differing)
      text << "| " << d.dataset << " | " << d.method << " | " << d.metric << " | " << d.ours << " | " << d.ours_se
           << " | " << d.theirs << " | " << d.theirs_se << " | " << d.relative << " |\n";
    out.status = 1;
  }
  out.text = text.str();
  return out;
}

}  // namespace bnn::exp
