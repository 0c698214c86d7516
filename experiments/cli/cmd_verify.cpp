// `bnnbench verify`: rerun finished jobs of a results store and compare their numbers.
#include <omp.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "common.hpp"
#include "experiments/src/plan.hpp"
#include "experiments/src/progress.hpp"
#include "experiments/src/runner.hpp"
#include "experiments/src/selection.hpp"
#include "experiments/src/split_comparison.hpp"
#include "experiments/src/verify.hpp"
#include "shared.hpp"

namespace bnn::cli {
namespace {

namespace fs = std::filesystem;

// A scratch results store for the reruns, removed with everything in it.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "bnnbench-verify-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("could not create a scratch directory under " + fs::temp_directory_path().string());
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::map<exp::JobKey, exp::GridPredictions> grids_by_job(exp::ResultsStore& store, const std::string& experiment) {
  std::map<exp::JobKey, exp::GridPredictions> out;
  for (auto& [key, grid] : store.grids(experiment)) out.emplace(key, std::move(grid));
  return out;
}

std::optional<exp::GridPredictions> grid_of(const std::map<exp::JobKey, exp::GridPredictions>& grids,
                                            const exp::JobKey& key) {
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
exp::RunSummary rerun(const exp::ExperimentSpec& spec, const exp::Plan& plan, exp::ResultsStore& scratch_store,
                      int threads, bool quiet) {
  exp::RunOptions run;
  run.threads = threads;
  run.quiet = quiet;
  run.progress_bar = stderr_is_terminal();
  run.command_line = "bnnbench verify " + spec.name;
  const exp::RunSummary summary = exp::run_plan(spec, plan, scratch_store, run);
  for (const auto& e : summary.store_errors) std::cerr << "error: could not store " << e << "\n";
  return summary;
}

// Without a store: rerun the selected jobs that the committed per-split file holds as finished
// and compare them with it (per-split metrics and status; the file keeps no predictions).
int verify_against_split_file(const exp::ExperimentSpec& spec, const data::DatasetRegistry& registry,
                              exp::PlanOptions plan_options, const std::string& split_file, int threads,
                              double tolerance, bool quiet) {
  const std::string published = read_text_file(split_file, "--results");
  const auto finished = exp::finished_split_jobs(published, split_file);
  if (plan_options.only_datasets.empty()) {  // the spec's data sets that the file has jobs of
    std::set<std::string> in_file;
    for (const auto& [dataset, method, split] : finished) in_file.insert(dataset);
    for (const auto& dataset : spec.datasets)
      if (in_file.count(registry.find(dataset.name).name)) plan_options.only_datasets.push_back(dataset.name);
  }
  exp::Plan plan = exp::make_plan(spec, registry, plan_options);
  for (const auto& note : plan.notes) std::cerr << "note: " << note << "\n";
  const std::size_t selected = plan.jobs.size();
  std::erase_if(plan.jobs, [&](const exp::Job& job) {
    return !finished.count({job.key.dataset, job.key.method_label, job.key.split});
  });
  if (plan.jobs.empty()) {
    std::cerr << "bnnbench verify: nothing to verify: none of the " << selected << " selected job(s) is finished in "
              << split_file << "\n";
    return 1;
  }
  ScratchDirectory scratch;
  exp::ResultsStore rerun_store(scratch.path());
  if (!quiet)
    std::cerr << spec.name << ": no results store; rerunning " << plan.jobs.size() << " job(s) of " << split_file
              << " on " << threads << " thread(s)\n";
  const exp::RunSummary summary = rerun(spec, plan, rerun_store, threads, quiet);
  const int status = compare_with_split_file(spec.name, rerun_store.jobs(spec.name, false),
                                             "a rerun with " + exp::code_version(), split_file, published, tolerance);
  return status != 0 || !summary.store_errors.empty() ? 1 : 0;
}

}  // namespace

int cmd_verify(const std::vector<std::string>& args) {
  CommonOptions common;
  JobFilterOptions filter;
  std::string experiment, results;
  int threads = omp_get_max_threads();
  double tolerance = 0.0;
  bool quiet = false;
  po::options_description options("bnnbench verify options");
  options.add_options()
      ("experiment", po::value(&experiment), "experiment name or spec file");
  filter.add_to(options);
  options.add_options()
      ("results", po::value(&results), "results directory to verify (default: results/EXPERIMENT)")
      ("tolerance", po::value(&tolerance),
       "largest relative difference accepted (default 0: every number bit-identical)")
      ("threads", po::value(&threads), "jobs rerun in parallel (default: all cores)")
      ("quiet,q", po::bool_switch(&quiet), "no progress output");
  if (common.parse_or_help(args, options, "experiment",
                           "usage: bnnbench verify EXPERIMENT [--results DIR] [--methods ...] [--datasets ...] [--splits ...]\n\n"
                           "Reruns the selected jobs that the results store holds as finished (with the --set of the\n"
                           "run that made them), without writing to that store, and compares every stored number\n"
                           "with the rerun's: per-split metrics, per-test-point predictions, grid predictions and\n"
                           "the fit's iteration count and status (timings excepted). Exit status 0 when all agree\n"
                           "(bit for bit, or within --tolerance), 1 when any differ or a rerun fails.\n"
                           "Where DIR holds no store but a committed splits.csv (a clean checkout's results/EXPERIMENT),\n"
                           "the selected jobs it holds are rerun and their per-split metrics compared with it.\n"
                           "Example: bnnbench verify epnn-table1 --methods nn-ep-la --datasets boston --splits 0-2\n"
                           "Example: bnnbench verify pbp-table1 --results results/pbp-table1/parts/pbp-protein-50 \\\n"
                           "           --set pbp.hidden_layers=50 --splits 0"))
    return 0;
  if (experiment.empty()) throw po::error("missing EXPERIMENT");
  check_threads(threads);
  if (!(tolerance >= 0.0))
    throw std::invalid_argument("--tolerance is " + std::to_string(tolerance) + ", but must be >= 0");

  const exp::ExperimentSpec spec = load_spec(experiment, filter.settings);
  const data::DatasetRegistry registry = common.load_registry();
  if (results.empty()) results = default_results_dir(spec.name);
  if (!fs::exists(fs::path(results) / "bnnbench.sqlite")) {
    const fs::path split_file = fs::path(results) / "splits.csv";
    if (!fs::exists(split_file))
      throw std::invalid_argument("--results: no results store at " + (fs::path(results) / "bnnbench.sqlite").string() +
                                  " and no committed per-split file " + split_file.string());
    return verify_against_split_file(spec, registry, filter.plan_options(common.resolved_data_dir()),
                                     split_file.string(), threads, tolerance, quiet);
  }
  exp::ResultsStore store(results, exp::ResultsStore::Access::read_only);
  const std::vector<exp::JobRecord> stored = store.jobs(spec.name, /*with_points=*/true);
  exp::PlanOptions plan_options = filter.plan_options(common.resolved_data_dir());
  if (plan_options.only_datasets.empty()) {  // the spec's data sets that the store has jobs of
    std::set<std::string> in_store;
    for (const auto& job : stored) in_store.insert(job.key.dataset);
    for (const auto& dataset : spec.datasets)
      if (in_store.count(registry.find(dataset.name).name)) plan_options.only_datasets.push_back(dataset.name);
  }
  exp::Plan plan = exp::make_plan(spec, registry, plan_options);
  for (const auto& note : plan.notes) std::cerr << "note: " << note << "\n";
  const std::vector<const exp::JobRecord*> records = exp::stored_records(plan.jobs, stored);

  // Only the jobs the store holds as finished are rerun.
  exp::Plan reruns;
  reruns.datasets = std::move(plan.datasets);
  std::vector<const exp::JobRecord*> originals;
  for (std::size_t j = 0; j < plan.jobs.size(); ++j)
    if (records[j] != nullptr && records[j]->status == "ok") {
      reruns.jobs.push_back(plan.jobs[j]);
      originals.push_back(records[j]);
    }
  if (reruns.jobs.empty()) {
    std::cerr << "bnnbench verify: nothing to verify: none of the " << plan.jobs.size()
              << " selected job(s) is finished in " << store.path() << " with the current configuration ("
              << stored.size() << " job(s) of " << spec.name
              << " stored; pass the --set of the run that made them)\n";
    return 1;
  }

  ScratchDirectory scratch;
  exp::ResultsStore rerun_store(scratch.path());
  if (!quiet)
    std::cerr << spec.name << ": rerunning " << reruns.jobs.size() << " finished job(s) of " << store.path() << " on "
              << threads << " thread(s)\n";
  const exp::RunSummary summary = rerun(spec, reruns, rerun_store, threads, quiet);
  const std::vector<exp::JobRecord> fresh = rerun_store.jobs(spec.name, /*with_points=*/true);
  const std::vector<const exp::JobRecord*> fresh_records = exp::stored_records(reruns.jobs, fresh);
  const auto stored_grids = grids_by_job(store, spec.name);
  const auto fresh_grids = grids_by_job(rerun_store, spec.name);

  // Per data set and method label, in plan order.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, GroupTally> groups;
  std::ostringstream details;
  long identical = 0, within = 0, differ = 0;
  for (std::size_t j = 0; j < reruns.jobs.size(); ++j) {
    const exp::Job& job = reruns.jobs[j];
    const exp::JobRecord& original = *originals[j];
    const auto group_key = std::make_pair(job.key.dataset, job.key.method_label);
    if (!groups.count(group_key)) order.push_back(group_key);
    GroupTally& tally = groups[group_key];
    ++tally.jobs;
    tally.stored_code.insert(original.code_version);
    exp::JobComparison c;
    if (fresh_records[j] == nullptr) {
      c.rerun_failed = true;
      c.differing = 1;
      c.max_relative = std::numeric_limits<double>::infinity();
      c.worst = "rerun not stored";
    } else {
      c = exp::compare_jobs(original, *fresh_records[j], grid_of(stored_grids, original.key),
                            grid_of(fresh_grids, fresh_records[j]->key));
    }
    const bool ok = !c.rerun_failed && c.max_relative <= tolerance;
    if (c.differing == 0) ++tally.identical, ++identical;
    else if (ok) ++tally.within, ++within;
    else ++tally.differ, ++differ;
    if (c.differing > 0 && c.max_relative >= tally.max_relative) {
      tally.max_relative = c.max_relative;
      tally.worst = c.worst;
    }
    if (!ok)
      details << "- " << original.key.describe() << ": " << c.differing << " of " << c.values
              << " numbers differ; largest relative difference " << format_relative(c.max_relative) << " at "
              << c.worst << " (stored by " << original.code_version << ")\n";
  }

  std::cout << "# verify " << spec.name << ": " << store.path() << " against a rerun with " << exp::code_version()
            << "\n\n| data set | method | jobs | identical | within tolerance | differ | largest relative "
               "difference | where | stored by |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& g : order) {
    const GroupTally& t = groups[g];
    std::string versions;
    for (const auto& v : t.stored_code) versions += (versions.empty() ? "" : ", ") + v;
    std::cout << "| " << g.first << " | " << g.second << " | " << t.jobs << " | " << t.identical << " | " << t.within
              << " | " << t.differ << " | " << format_relative(t.max_relative) << " | "
              << (t.worst.empty() ? "—" : t.worst) << " | " << versions << " |\n";
  }
  std::cout << "\n" << identical << " job(s) identical, " << within << " within tolerance " << tolerance << ", "
            << differ << " differ";
  if (differ > 0) std::cout << ":\n\n" << details.str();
  else std::cout << "\n";
  return differ > 0 || !summary.store_errors.empty() ? 1 : 0;
}

}  // namespace bnn::cli
