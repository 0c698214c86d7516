#include "experiments/src/verify/verify_run.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "experiments/src/io/csv.hpp"
#include "experiments/src/io/files.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/report/artifact_report.hpp"
#include "experiments/src/run/runner.hpp"
#include "experiments/src/verify/split_comparison.hpp"
#include "experiments/src/verify/split_file.hpp"
#include "experiments/src/verify/verify.hpp"

namespace bnn::exp {
namespace {

namespace fs = std::filesystem;

std::map<JobKey, GridPredictions> grids_by_job(ResultsStore& store, const std::string& experiment) {
  std::map<JobKey, GridPredictions> out;
  for (auto& [key, grid] : store.grids(experiment)) out.emplace(key, std::move(grid));
  return out;
}

std::optional<GridPredictions> grid_of(const std::map<JobKey, GridPredictions>& grids, const JobKey& key) {
  const auto it = grids.find(key);
  if (it == grids.end()) return std::nullopt;
  return it->second;
}

std::string format_relative(double relative) {
  if (relative == 0.0) return "0";
  if (std::isinf(relative)) return "inf";
  std::ostringstream out;
  out.precision(2);
  out << std::scientific << relative;
  return out.str();
}

struct GroupTally {
  long jobs = 0, identical = 0, within = 0, differ = 0;
  double max_relative = 0.0;
  std::string worst;
  std::set<std::string> stored_code;
};

// Runs the plan into the scratch store of a verification; reports jobs it could not store.
RunSummary rerun(const ExperimentSpec& spec, const Plan& plan, ResultsStore& scratch_store, const VerifyOptions& o) {
  RunOptions run;
  run.threads = o.threads;
  run.quiet = o.quiet;
  run.progress_bar = o.progress_bar;
  run.command_line = "bnnbench verify " + spec.name;
  const RunSummary summary = run_plan(spec, plan, scratch_store, run);
  for (const auto& e : summary.store_errors) std::cerr << "error: could not store " << e << "\n";
  return summary;
}

// The selected data sets that hold jobs (`in_results`): only those are loaded.
void restrict_datasets(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                       const std::set<std::string>& in_results, PlanOptions& plan) {
  if (!plan.only_datasets.empty()) return;
  for (const auto& dataset : spec.datasets)
    if (in_results.count(registry.find(dataset.name).name)) plan.only_datasets.push_back(dataset.name);
}

// The rerun's artifact tables against the committed TABLE.csv files beside splits.csv, line by
// line for the rerun jobs (17 significant digits: equal text is equal bits).
std::string compare_artifact_files(const std::string& results, const std::vector<JobRecord>& reruns, long& differing) {
  std::set<std::string> names;
  std::vector<const JobRecord*> jobs;
  for (const auto& job : reruns) {
    jobs.push_back(&job);
    for (const auto& t : job.artifacts) names.insert(t.name);
  }
  std::ostringstream out;
  for (const auto& name : names) {
    const fs::path file = fs::path(results) / (name + ".csv");
    if (!fs::exists(file)) {
      out << "- " << name << ": no committed " << file.string() << " to compare with\n";
      continue;
    }
    const std::vector<CsvRow> ours = csv_rows(artifact_csv(artifact_tables(jobs, name)), "the rerun's " + name);
    std::set<std::tuple<std::string, std::string, std::string>> rerun_jobs;
    for (std::size_t r = 1; r < ours.size(); ++r)
      rerun_jobs.insert({ours[r].fields[0], ours[r].fields[1], ours[r].fields[2]});
    std::vector<CsvRow> theirs;
    for (CsvRow& row : csv_rows(read_text_file(file.string(), "--results"), file.string()))
      if (row.line == 1 || (row.fields.size() >= 3 && rerun_jobs.count({row.fields[0], row.fields[1], row.fields[2]})))
        theirs.push_back(std::move(row));
    long lines_differing = 0;
    std::string first;
    for (std::size_t r = 0; r < std::max(ours.size(), theirs.size()); ++r)
      if (r >= ours.size() || r >= theirs.size() || ours[r].text != theirs[r].text) {
        if (++lines_differing == 1)
          first =
              r < theirs.size() ? theirs[r].where : "the rerun's line " + std::to_string(r + 1) + " (not committed)";
      }
    differing += lines_differing;
    out << "- " << name << ": " << ours.size() - 1 << " rerun row(s) against " << file.string() << ": "
        << (lines_differing == 0 ? "identical" : std::to_string(lines_differing) + " differ, the first at " + first)
        << "\n";
  }
  return out.str();
}

// Without a store: rerun the selected jobs that the committed per-split file holds as finished
// and compare them with it (per-split metrics and status) and with the committed artifact files.
VerifyOutcome verify_against_split_file(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                        const std::string& split_file, const VerifyOptions& o) {
  const std::string published = read_text_file(split_file, "--results");
  const auto finished = finished_split_jobs(published, split_file);
  PlanOptions plan_options = o.plan;
  std::set<std::string> in_file;
  for (const auto& [dataset, method, split] : finished) in_file.insert(dataset);
  restrict_datasets(spec, registry, in_file, plan_options);
  Plan plan = make_plan(spec, registry, plan_options);
  for (const auto& note : plan.notes) std::cerr << "note: " << note << "\n";
  const std::size_t selected = plan.jobs.size();
  std::erase_if(plan.jobs, [&](const Job& job) {
    return !finished.count({job.key.dataset, job.key.method_label, job.key.split});
  });
  if (plan.jobs.empty())
    return {"nothing to verify: none of the " + std::to_string(selected) + " selected job(s) is finished in " +
                split_file + "\n",
            1};
  ScratchDirectory scratch;
  ResultsStore rerun_store(scratch.path());
  if (!o.quiet)
    std::cerr << spec.name << ": no results store; rerunning " << plan.jobs.size() << " job(s) of " << split_file
              << " on " << o.threads << " thread(s)\n";
  const RunSummary summary = rerun(spec, plan, rerun_store, o);
  const std::vector<JobRecord> reruns = rerun_store.jobs(spec.name, true);
  const SplitFileOutcome c =
      compare_with_split_file(spec.name, reruns, "a rerun with " + code_version(), split_file, published, o.tolerance);
  VerifyOutcome out{c.text + (c.error.empty() ? "" : "\n" + c.error + "\n"), c.status};
  long artifact_lines_differing = 0;
  const std::string artifacts =
      compare_artifact_files(fs::path(split_file).parent_path().string(), reruns, artifact_lines_differing);
  if (!artifacts.empty()) out.text += "\nArtifacts:\n" + artifacts;
  if (artifact_lines_differing > 0 || !summary.store_errors.empty()) out.status = 1;
  return out;
}

}  // namespace

VerifyOutcome verify_experiment(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                const VerifyOptions& o) {
  if (!fs::exists(fs::path(o.results) / "bnnbench.sqlite")) {
    const std::string split_file = find_text_file(o.results, "splits.csv");
    if (split_file.empty())
      throw std::invalid_argument(
          "--results: no results store at " + (fs::path(o.results) / "bnnbench.sqlite").string() +
          " and no committed per-split file " + (fs::path(o.results) / "splits.csv").string() + "[.gz]");
    return verify_against_split_file(spec, registry, split_file, o);
  }
  ResultsStore store(o.results, ResultsStore::Access::read_only);
  const std::vector<JobRecord> stored = store.jobs(spec.name, /*with_points=*/true);
  // A store merged --without-points holds none; one that holds some must hold all.
  const bool store_keeps_points = std::any_of(stored.begin(), stored.end(), [](const JobRecord& job) {
    return std::any_of(job.evaluations.begin(), job.evaluations.end(),
                       [](const Evaluation& e) { return !e.points.log_density.empty(); });
  });
  PlanOptions plan_options = o.plan;
  std::set<std::string> in_store;
  for (const auto& job : stored) in_store.insert(job.key.dataset);
  restrict_datasets(spec, registry, in_store, plan_options);
  Plan plan = make_plan(spec, registry, plan_options);
  for (const auto& note : plan.notes) std::cerr << "note: " << note << "\n";
  const std::vector<const JobRecord*> records = stored_records(plan.jobs, stored);

  // Only the jobs the store holds as finished are rerun, with the artifacts they hold.
  Plan reruns;
  reruns.datasets = std::move(plan.datasets);
  std::vector<const JobRecord*> originals;
  for (std::size_t j = 0; j < plan.jobs.size(); ++j)
    if (records[j] != nullptr && records[j]->status == "ok") {
      Job job = plan.jobs[j];
      std::erase_if(job.artifacts,
                    [&](const ArtifactSpec* a) { return !records[j]->artifact_requests.count(a->kind); });
      reruns.jobs.push_back(std::move(job));
      originals.push_back(records[j]);
    }
  if (reruns.jobs.empty())
    return {"nothing to verify: none of the " + std::to_string(plan.jobs.size()) + " selected job(s) is finished in " +
                store.path() + " with the current configuration (" + std::to_string(stored.size()) + " job(s) of " +
                spec.name + " stored; pass the --set of the run that made them)\n",
            1};

  ScratchDirectory scratch;
  ResultsStore rerun_store(scratch.path());
  if (!o.quiet)
    std::cerr << spec.name << ": rerunning " << reruns.jobs.size() << " finished job(s) of " << store.path() << " on "
              << o.threads << " thread(s)\n";
  const RunSummary summary = rerun(spec, reruns, rerun_store, o);
  const std::vector<JobRecord> fresh = rerun_store.jobs(spec.name, /*with_points=*/true);
  const std::vector<const JobRecord*> fresh_records = stored_records(reruns.jobs, fresh);
  const auto stored_grids = grids_by_job(store, spec.name);
  const auto fresh_grids = grids_by_job(rerun_store, spec.name);

  // Per data set and method label, in plan order.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, GroupTally> groups;
  std::ostringstream details;
  long identical = 0, within = 0, differ = 0;
  for (std::size_t j = 0; j < reruns.jobs.size(); ++j) {
    const Job& job = reruns.jobs[j];
    const JobRecord& original = *originals[j];
    const auto group_key = std::make_pair(job.key.dataset, job.key.method_label);
    if (!groups.count(group_key)) order.push_back(group_key);
    GroupTally& tally = groups[group_key];
    ++tally.jobs;
    tally.stored_code.insert(original.code_version);
    JobComparison c;
    if (fresh_records[j] == nullptr) {
      c.rerun_failed = true;
      c.differing = 1;
      c.max_relative = std::numeric_limits<double>::infinity();
      c.worst = "rerun not stored";
    } else {
      c = compare_jobs(original, *fresh_records[j], grid_of(stored_grids, original.key),
                       grid_of(fresh_grids, fresh_records[j]->key), store_keeps_points);
    }
    const bool ok = !c.rerun_failed && c.max_relative <= o.tolerance;
    if (c.differing == 0)
      ++tally.identical, ++identical;
    else if (ok)
      ++tally.within, ++within;
    else
      ++tally.differ, ++differ;
    if (c.differing > 0 && c.max_relative >= tally.max_relative) {
      tally.max_relative = c.max_relative;
      tally.worst = c.worst;
    }
    if (!ok)
      details << "- " << original.key.describe() << ": " << c.differing << " of " << c.values
              << " numbers differ; largest relative difference " << format_relative(c.max_relative) << " at " << c.worst
              << " (stored by " << original.code_version << ")\n";
  }

  std::ostringstream out;
  out << "# verify " << spec.name << ": " << store.path() << " against a rerun with " << code_version()
      << "\n\n| data set | method | jobs | identical | within tolerance | differ | largest relative "
         "difference | where | stored by |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& g : order) {
    const GroupTally& t = groups[g];
    std::string versions;
    for (const auto& v : t.stored_code) versions += (versions.empty() ? "" : ", ") + v;
    out << "| " << g.first << " | " << g.second << " | " << t.jobs << " | " << t.identical << " | " << t.within << " | "
        << t.differ << " | " << format_relative(t.max_relative) << " | " << (t.worst.empty() ? "—" : t.worst) << " | "
        << versions << " |\n";
  }
  out << "\n" << identical << " job(s) identical, ";
  if (o.tolerance > 0) out << within << " within the relative tolerance " << format_tolerance(o.tolerance) << ", ";
  out << differ << " differ";
  if (differ > 0)
    out << ":\n\n" << details.str();
  else
    out << "\n";
  return {out.str(), differ > 0 || !summary.store_errors.empty() ? 1 : 0};
}

}  // namespace bnn::exp
