// bnnbench run: argument parsing over run/runner.hpp, then the report.
#include <omp.h>

#include <filesystem>
#include <iostream>

#include "common.hpp"
#include "experiments/src/report/publish.hpp"
#include "experiments/src/report/reference.hpp"
#include "experiments/src/report/run_tables.hpp"
#include "experiments/src/run/runner.hpp"
#include "experiments/src/store/run_lock.hpp"
#include "job_filter.hpp"

namespace bnn::cli {

int cmd_run(const std::vector<std::string>& args, const std::string& command_line) {
  CommonOptions common;
  std::string experiment, results, shard = "1/1", format = "md";
  JobFilterOptions filter;
  int threads = omp_get_max_threads();
  bool no_report = false, quiet = false, dry_run = false, rerun = false;
  po::options_description options("bnnbench run options");
  // clang-format off
  options.add_options()
      ("experiment", po::value(&experiment), "experiment name (see `bnnbench list experiments`) or spec file");
  // clang-format on
  filter.add_to(options);
  // clang-format off
  options.add_options()
      ("threads", po::value(&threads), "jobs run in parallel (default: all cores); a lone job gets them all")
      ("results", po::value(&results), "results directory (default: results/EXPERIMENT)")
      ("shard", po::value(&shard), "run share K of N of the jobs, e.g. 2/8 (combine with `bnnbench merge`)")
      ("format", po::value(&format), "format of the report printed at the end: md, csv, latex or splits")
      ("no-report", po::bool_switch(&no_report), "do not print the report at the end")
      ("quiet,q", po::bool_switch(&quiet), "no progress output")
      ("dry-run,n", po::bool_switch(&dry_run),
       "run nothing: list per data set and method what is finished and what a run would do")
      ("rerun", po::bool_switch(&rerun),
       "run the selected jobs even if finished (after a code change, say): each new result "
       "replaces the finished one, and a rerun that fails keeps it");
  // clang-format on
  if (common.parse_or_help(
          args, options, "experiment",
          "usage: bnnbench run EXPERIMENT [options]\n\nRuns every job (data set x method x split) that is not finished yet in the results\n"
          "store, in parallel, then prints the report. Rerunning resumes; finished jobs are skipped\n"
          "(--dry-run shows which) unless --rerun is given."))
    return 0;
  if (experiment.empty()) throw po::error("missing EXPERIMENT");
  exp::check_threads(threads);
  exp::check_format(format, {"md", "csv", "latex", "splits"});
  exp::RunOptions run;
  run.threads = threads;
  const auto slash = shard.find('/');
  if (slash == std::string::npos || !option_detail::parse_integer(shard.substr(0, slash), run.shard_index) ||
      !option_detail::parse_integer(shard.substr(slash + 1), run.shard_count))
    throw std::invalid_argument("--shard '" + shard + "' must look like K/N, e.g. 1/4");
  exp::shard_jobs({}, run.shard_index, run.shard_count);  // validates K and N

  exp::ExperimentSpec spec = exp::load_spec(experiment, filter.settings);
  const data::DatasetRegistry registry = common.load_registry();
  const exp::PlanOptions plan_options = filter.plan_options(common.resolved_data_dir());
  const exp::Plan plan = exp::make_plan(spec, registry, plan_options);
  exp::load_reference(spec, registry);  // a missing or malformed [reference] file, before any job runs
  for (const auto& note : plan.notes) std::cerr << "note: " << note << "\n";
  if (plan.jobs.empty())
    throw std::invalid_argument("nothing to run: no job of " + spec.name +
                                " matches the selection (--methods, --datasets, --splits) among the data sets present");

  if (results.empty()) results = exp::default_results_dir(spec.name);
  if (dry_run) {
    const std::vector<exp::JobRecord> stored =
        std::filesystem::exists(std::filesystem::path(results) / "bnnbench.sqlite")
            ? exp::ResultsStore(results, exp::ResultsStore::Access::read_only).jobs(spec.name, false)
            : std::vector<exp::JobRecord>{};
    std::cout << exp::dry_run_table(
        exp::plan_status(exp::shard_jobs(plan.jobs, run.shard_index, run.shard_count), stored), results, rerun);
    return 0;
  }
  run.progress_bar = stderr_is_terminal();
  run.quiet = quiet;
  run.rerun = rerun;
  run.command_line = command_line;
  const exp::RunLock lock(results, command_line);  // one writer per store
  exp::ResultsStore store(results);
  if (!quiet)
    std::cerr << spec.name << ": " << plan.jobs.size() << " job(s) over " << plan.datasets.size() << " data set(s), "
              << threads << " thread(s); results in " << store.path() << "\n";
  const exp::RunSummary summary = exp::run_plan(spec, plan, store, run);
  if (!quiet) std::cerr << exp::run_summary_line(spec.name, summary) << "\n";
  for (const auto& e : summary.store_errors) std::cerr << "error: could not store " << e << "\n";
  if (!no_report) {  // of the selected methods and data sets, all their splits
    const exp::ReportSource source{
        spec, registry, results,
        exp::report_selection(spec, registry, plan_options.only_methods, plan_options.only_datasets), ""};
    std::cout << exp::report_text(format, source);
  }
  if (!summary.store_errors.empty()) return 1;
  if (summary.failed > 0) {
    std::cerr << spec.name << ": " << summary.failed
              << " job(s) failed; their messages are in the report and the store. "
              << "Rerunning retries them; finished jobs are kept.\n";
    return 1;
  }
  return 0;
}

}  // namespace bnn::cli
