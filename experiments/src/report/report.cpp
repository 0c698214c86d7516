#include "experiments/src/report/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "experiments/src/plan/plan.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/report/artifact_report.hpp"
#include "experiments/src/report/warning_groups.hpp"
#include "experiments/src/spec/experiment_kind.hpp"
#include "methods/registry.hpp"

namespace bnn::exp {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const Evaluation* last_evaluation(const JobRecord& job) {
  const Evaluation* best = nullptr;
  for (const auto& e : job.evaluations)
    if (!best || e.step > best->step) best = &e;
  return best;
}

// How many splits the protocol makes of a data set (0 when that needs its data).
int planned_splits(const data::Protocol& protocol, const data::DatasetSpec& ds) {
  switch (protocol.kind) {
    case data::Protocol::Kind::published:
      return ds.splits ? ds.splits->count : 0;
    case data::Protocol::Kind::kfold:
      return protocol.folds;
    case data::Protocol::Kind::random:
      return protocol.repeats;
    case data::Protocol::Kind::all:
      return 1;
  }
  return 0;
}

// Which training rows score a method's tuning, for a method that offers the choice (its option
// `validation`): "random" or "last" per data set shown, with its validation_fraction.
std::string validation_rule_note(const MethodConfig& m, const std::vector<DatasetRow>& rows,
                                 const data::DatasetRegistry& registry) {
  const auto& known = find_method(m.method).options;
  const auto option = [&](const ParamMap& set, const std::string& name) {
    if (auto it = set.find(name); it != set.end()) return it->second;
    const auto info = std::find_if(known.begin(), known.end(), [&](const OptionInfo& o) { return o.name == name; });
    return info == known.end() ? std::string() : info->default_value;
  };
  if (option({}, "validation").empty()) return "";
  std::map<std::string, std::vector<std::string>> by_rule;  // rule text -> data sets
  for (const auto& row : rows) {
    const data::DatasetSpec& ds = registry.find(row.name);
    if (!m.runs_on(ds.name, ds.aliases)) continue;
    const ParamMap set = m.options_for(ds.name, ds.aliases);
    char percent[32];
    std::snprintf(percent, sizeof percent, "%g%%", 100.0 * std::stod(option(set, "validation_fraction")));
    by_rule[option(set, "validation") == "last"
                ? "the last " + std::string(percent) +
                      " of each training part in the split's order (validation = \"last\", the " + "authors' rule)"
                : "a seeded random " + std::string(percent) + " of each training part, whatever the order of its rows"]
        .push_back(ds.name);
  }
  std::string note;
  for (const auto& [rule, datasets] : by_rule) {
    std::string names;
    if (by_rule.size() > 1)
      for (const auto& name : datasets) names += (names.empty() ? " (" : ", ") + name;
    note += (note.empty() ? m.label + " tunes on " : "; on ") + rule + (names.empty() ? "" : names + ")");
  }
  return note;
}

}  // namespace

const Cell& ReportData::cell(const std::string& dataset, const std::string& label, const std::string& metric) const {
  static const Cell empty;
  auto it = cells.find({dataset, label, metric});
  return it == cells.end() ? empty : it->second;
}

std::map<std::string, Summary> aggregate_metrics(const std::vector<const JobRecord*>& jobs) {
  std::map<std::string, std::vector<double>> per_split;
  std::vector<double> lpd, se;
  bool every_job_has_points = true;  // not so after `merge --without-points`: then nothing is pooled
  for (const JobRecord* job : jobs) {
    const Evaluation* e = last_evaluation(*job);
    if (!e) continue;
    for (const auto& [name, value] : e->metrics) per_split[name].push_back(value);
    // CPU seconds of fit + predict (prediction runs on one thread), where the store has them.
    if (job->fit_cpu_seconds > 0.0) per_split["cpu_seconds"].push_back(job->fit_cpu_seconds + job->predict_seconds);
    if (e->points.log_density.empty()) every_job_has_points = false;
    if (!every_job_has_points) continue;
    lpd.insert(lpd.end(), e->points.log_density.begin(), e->points.log_density.end());
    se.insert(se.end(), e->points.squared_error.begin(), e->points.squared_error.end());
  }
  std::map<std::string, Summary> out;
  for (const auto& [name, values] : per_split) out[name] = mean_and_se(values);
  if (!lpd.empty() && every_job_has_points) {
    // Pooled over all test points of all splits (EP-NN Table 1); the mean's standard error
    // is that of the per-split means.
    const Summary lpd_split = out.count("lpd_mean") ? out["lpd_mean"] : Summary{kNaN, kNaN};
    const Summary se_split = out.count("se_mean") ? out["se_mean"] : Summary{kNaN, kNaN};
    double lpd_sum = 0.0, se_sum = 0.0;
    for (double v : lpd) lpd_sum += v;
    for (double v : se) se_sum += v;
    const int splits = static_cast<int>(jobs.size());
    out["lpd_mean"] = {lpd_sum / static_cast<double>(lpd.size()), lpd_split.se, splits};
    out["se_mean"] = {se_sum / static_cast<double>(se.size()), se_split.se, splits};
    out["lpd_std"] = {sample_std(lpd), kNaN, splits};
    out["lpd_p01"] = {percentile(lpd, 1.0), kNaN, splits};
    out["se_std"] = {sample_std(se), kNaN, splits};
    out["se_p99"] = {percentile(se, 99.0), kNaN, splits};
  }
  return out;
}

std::vector<JobRecord> selected_jobs(std::vector<JobRecord> jobs, const ReportSelection& selection) {
  std::erase_if(jobs, [&](const JobRecord& j) { return !selection.shows(j.key); });
  return jobs;
}

ReportSelection report_selection(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                 const std::vector<std::string>& methods, const std::vector<std::string>& datasets) {
  ReportSelection selection;
  selection.methods = methods;
  selection.datasets = checked_selection(spec, registry, methods, datasets);
  return selection;
}

std::vector<JobRecord> shown_jobs(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                  ResultsStore& store, const ReportSelection& selection) {
  std::vector<JobRecord> jobs = selected_jobs(store.jobs(spec.name, true), selection);
  const std::set<JobKey> current = selected_job_keys(spec, registry, jobs);
  std::erase_if(jobs, [&](const JobRecord& j) { return j.status != "ok" || !current.count(j.key); });
  return jobs;
}

bool ReportSelection::shows_method(const std::string& label) const {
  return methods.empty() || std::find(methods.begin(), methods.end(), label) != methods.end();
}

bool ReportSelection::shows_dataset(const std::string& name) const {
  return datasets.empty() || std::find(datasets.begin(), datasets.end(), name) != datasets.end();
}

ReportData build_report(const ExperimentSpec& spec, const data::DatasetRegistry& registry, ResultsStore& store,
                        const ReferenceValues& references, const ReportSelection& selection) {
  ReportData r;
  r.spec = &spec;
  r.metrics = spec.report.metrics;
  r.store_path = store.description();
  r.runs = store.runs(spec.name);
  for (const auto& m : spec.methods)
    if (selection.shows_method(m.label)) r.methods.push_back(m.label);
  if (!selection.all()) {
    const auto list = [](const std::vector<std::string>& names) {
      std::string text;
      for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
      return text.empty() ? std::string("all") : text;
    };
    r.notes.push_back("part of the experiment: methods " + list(selection.methods) + "; data sets " +
                      list(selection.datasets));
  }
  const bool pooled = std::any_of(r.metrics.begin(), r.metrics.end(), [](const std::string& m) {
    const MetricInfo* info = find_metric(m);
    return info && info->pooled;
  });
  const bool need_points = pooled || !spec.artifacts.empty();
  std::vector<const JobRecord*> finished;  // finished jobs of the table, for its artifacts
  long in_progress = 0;                    // active-learning jobs stopped part way
  const std::vector<JobRecord> jobs = store.jobs(spec.name, need_points);
  for (const JobRecord& job : selected_jobs(jobs, selection)) {
    ++r.stored.jobs;
    if (!job.code_version.empty()) r.stored.code_versions.insert(job.code_version);
    if (!job.host.empty()) r.stored.hosts.insert(job.host);
    if (job.finished_at.empty()) continue;
    if (r.stored.first_finished.empty() || job.finished_at < r.stored.first_finished)
      r.stored.first_finished = job.finished_at;
    r.stored.last_finished = std::max(r.stored.last_finished, job.finished_at);
  }
  std::set<std::string> stale;
  std::set<std::string> unpooled;  // some job without per-point predictions (merge --without-points)
  std::map<std::pair<std::string, std::string>, std::vector<int>> warned;  // (dataset/label, text) -> splits
  // (label, options it lacked) -> "dataset k of n" for jobs stored before those options existed
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> older;

  for (const auto& dc : spec.datasets) {
    const data::DatasetSpec& ds = registry.find(dc.name);
    if (!selection.shows_dataset(ds.name)) continue;
    DatasetRow row{&dc, ds.name, 0, 0, 0, ds.paper_n, ds.paper_d};
    if (ds.table && !ds.table->categorical.empty()) {
      std::string columns;
      for (long c : ds.table->categorical) columns += (columns.empty() ? "" : ", ") + std::to_string(c);
      row.loading = "column" + std::string(ds.table->categorical.size() > 1 ? "s " : " ") + columns +
                    " one-hot encoded on loading (an input per label)";
    }
    if (ds.table && ds.table->missing == data::MissingValues::drop_rows)
      row.loading += std::string(row.loading.empty() ? "" : "; ") +
                     "rows with '?' or an empty cell in a used column dropped on loading (`bnnbench datasets list` "
                     "shows the rows kept)";
    const int planned = planned_splits(spec.protocol_for(dc), ds);
    std::map<std::string, std::map<std::string, Summary>> by_method;
    for (const auto& m : spec.methods) {
      const bool shown = selection.shows_method(m.label);
      if (!shown && m.label != spec.report.relative_time_to) continue;
      if (!m.runs_on(ds.name, ds.aliases)) continue;
      const JobSelection chosen = select_jobs(jobs, ds.name, m.label, config_identity(spec, dc, ds, m));
      if (!shown) {  // only the base of the relative times
        std::vector<const JobRecord*> ok;
        for (const JobRecord* j : chosen.jobs)
          if (j->status == "ok") ok.push_back(j);
        by_method[m.label] = aggregate_metrics(ok);
        continue;
      }
      if (chosen.other_configurations) stale.insert(ds.name + "/" + m.label);
      if (chosen.older > 0) {
        std::string names;
        for (const auto& o : chosen.missing_options) names += (names.empty() ? "" : ", ") + o;
        older[{m.label, names}].push_back(ds.name + " " + std::to_string(chosen.older) + " of " +
                                          std::to_string(chosen.jobs.size()));
      }
      std::vector<const JobRecord*> ok;
      int failed = 0;
      for (const JobRecord* jp : chosen.jobs) {
        const JobRecord& j = *jp;
        if (j.status == "ok") {
          ok.push_back(&j);
          finished.push_back(&j);
          std::string_view rest = j.warnings;
          while (!rest.empty()) {
            const auto cut = rest.find("; ");
            auto& splits = warned[{ds.name + "/" + m.label, std::string(rest.substr(0, cut))}];
            if (splits.empty() || splits.back() != j.key.split)
              splits.push_back(j.key.split);  // a warning twice in one job counts once
            rest = cut == std::string_view::npos ? std::string_view{} : rest.substr(cut + 2);
          }
          if (row.n_train == 0) {
            row.n_train = j.n_train;
            row.n_test = j.n_test;
            row.d = j.n_features;
          }
        } else if (j.status == "partial") {
          ++in_progress;
        } else {
          ++failed;
          ++row.failed_jobs;
          r.failures.push_back(j.key.describe() + ": " + j.error);
        }
      }
      by_method[m.label] = aggregate_metrics(ok);
      if (pooled && !ok.empty() && !by_method[m.label].contains("lpd_std")) unpooled.insert(ds.name + "/" + m.label);
      for (const auto& metric : r.metrics) {
        Cell c;
        c.n_failed = failed;
        c.n_planned = planned;
        if (!ok.empty() && metric != "rel_time") {
          auto it = by_method[m.label].find(metric);
          if (it != by_method[m.label].end()) {
            c.ours = it->second;
            c.n_splits = it->second.n;  // what the mean is over: a split lacking the metric is not counted
          }
        }
        if (auto p = references.find({ds.name, m.label, metric}); p != references.end()) c.paper = p->second;
        r.cells[{ds.name, m.label, metric}] = c;
      }
    }
    // CPU time relative to the reference method on the same data set (as the EP-NN paper's
    // table; wall time, which other load inflates, only where a store lacks CPU times).
    if (!spec.report.relative_time_to.empty()) {
      const auto& base = by_method[spec.report.relative_time_to];
      for (const auto& m : spec.methods) {
        if (!selection.shows_method(m.label)) continue;
        Cell& c = r.cells[{ds.name, m.label, "rel_time"}];
        const auto& mine = by_method[m.label];
        for (const char* basis : {"cpu_seconds", "fit_seconds"}) {
          auto a = mine.find(basis);
          auto b = base.find(basis);
          if (a == mine.end() || b == base.end() || !(b->second.value > 0)) continue;
          c.ours = Summary{a->second.value / b->second.value, kNaN, a->second.n};
          c.n_splits = a->second.n;
          break;
        }
      }
    }
    for (auto& [key, c] : r.cells) {
      if (std::get<0>(key) != ds.name || !c.ours || !c.paper) continue;
      const MetricInfo* info = find_metric(std::get<2>(key));
      if (!info || !info->comparable) continue;
      const double se_ours = std::isnan(c.ours->se) ? 0.0 : c.ours->se;
      const double se_paper = std::isnan(c.paper->se) ? 0.0 : c.paper->se;
      const double combined = std::sqrt(se_ours * se_ours + se_paper * se_paper);
      // A mean over fewer splits than the protocol's is not the paper's quantity: not marked.
      c.differs = !c.partial() && combined > 0 && distance_beyond_rounding(c.ours->value, *c.paper) > 2.0 * combined;
    }
    r.datasets.push_back(row);
  }
  for (const auto& [key, shares] : older) {
    std::string list;
    for (const auto& share : shares) list += (list.empty() ? "" : ", ") + share;
    r.notes.push_back(key.first + ": " +
                      (key.second.empty() ? "jobs stored with the same options in another order: "
                                          : "jobs run before the option(s) " + key.second +
                                                " existed, shown since those options are at their defaults: ") +
                      list);
  }
  for (auto& line : grouped_warnings(warned)) r.warnings.push_back(std::move(line));
  if (!unpooled.empty()) {
    std::string pairs;
    for (const auto& s : unpooled) pairs += (pairs.empty() ? "" : ", ") + s;
    r.notes.push_back(
        (unpooled.size() > 3 ? std::to_string(unpooled.size()) + " data set/method pairs" : pairs) +
        ": some jobs have no per-point predictions (a store merged with --without-points, or the committed per-split "
        "file), so LPD and SE means are means of per-split means and their std and percentiles are not shown");
  }
  for (const auto& s : stale)
    r.notes.push_back(
        s +
        ": the store also holds results made with other options or seed (not shown; pass the run's --set to report them)");
  r.artifacts = artifact_markdown(spec, finished);
  std::vector<std::string> names;
  for (const auto& d : r.datasets) names.push_back(d.name);
  r.artifacts += experiment_kind(spec).sections(spec, names, finished);
  if (in_progress > 0)
    r.notes.push_back(std::to_string(in_progress) +
                      " job(s) stopped part way (not shown); `bnnbench run` resumes them "
                      "after their last stored step");
  for (const auto& m : spec.methods)
    if (selection.shows_method(m.label) && !method_available(m.method))
      r.notes.push_back("method " + m.label + " (" + m.method + ") is not implemented yet: no results of ours" +
                        (spec.references.empty() ? "" : " (the paper's numbers are shown)"));
  for (const auto& m : spec.methods)
    if (selection.shows_method(m.label) && method_available(m.method))
      if (std::string rule = validation_rule_note(m, r.datasets, registry); !rule.empty()) r.notes.push_back(rule);
  return r;
}

}  // namespace bnn::exp
