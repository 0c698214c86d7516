#include "run_request.hpp"

#include <omp.h>

#include <iostream>

#include "experiments/src/report/publish.hpp"
#include "experiments/src/report/reference.hpp"
#include "experiments/src/run/runner.hpp"

namespace bnn::cli {

void add_run_options(po::options_description& options, RunRequest& r) {
  // clang-format off
  options.add_options()
      ("experiment", po::value(&r.experiment), "experiment name (see `bnnbench list experiments`) or spec file");
  // clang-format on
  r.filter.add_to(options);
  // clang-format off
  options.add_options()
      ("threads", po::value(&r.threads), "jobs run in parallel (default: all cores); a lone job gets them all. "
       "Under mpirun or srun: threads of each process")
      ("results", po::value(&r.results), "results directory (default: results/EXPERIMENT)")
      ("shard", po::value(&r.shard), "run share K of N of the jobs, e.g. 2/8 (combine with `bnnbench merge`)")
      ("format", po::value(&r.format), "format of the report printed at the end: md, csv, latex, html or splits")
      ("no-report", po::bool_switch(&r.no_report), "do not print the report at the end")
      ("quiet,q", po::bool_switch(&r.quiet), "no progress output")
      ("dry-run,n", po::bool_switch(&r.dry_run),
       "run nothing: list per data set and method what is finished and what a run would do")
      ("rerun", po::bool_switch(&r.rerun),
       "run the selected jobs even if finished (after a code change, say): each new result "
       "replaces the finished one, and a rerun that fails keeps it");
  // clang-format on
}

bool prepare_run(const std::vector<std::string>& args, const std::string& command_line, RunRequest& r,
                 bool print_notes) {
  r.threads = omp_get_max_threads();
  po::options_description options("bnnbench run options");
  add_run_options(options, r);
  if (r.common.parse_or_help(
          args, options, "experiment",
          "usage: bnnbench run EXPERIMENT [options]\n"
          "       mpirun -n N bnnbench run EXPERIMENT [options]   (or srun in a Slurm job: see bnnbench slurm)\n\n"
          "Runs every job (data set x method x split) that is not finished yet in the results\n"
          "store, in parallel, then prints the report. Rerunning resumes; finished jobs are skipped\n"
          "(--dry-run shows which) unless --rerun is given. Started by mpirun or srun, rank 0 owns\n"
          "the store and hands jobs out, largest first, to every process's --threads threads."))
    return false;
  if (r.experiment.empty()) throw po::error("missing EXPERIMENT");
  exp::check_threads(r.threads);
  exp::check_run_format(r.format);
  r.run.threads = r.threads;
  const auto slash = r.shard.find('/');
  if (slash == std::string::npos || !option_detail::parse_integer(r.shard.substr(0, slash), r.run.shard_index) ||
      !option_detail::parse_integer(r.shard.substr(slash + 1), r.run.shard_count))
    throw std::invalid_argument("--shard '" + r.shard + "' must look like K/N, e.g. 1/4");
  exp::shard_jobs({}, r.run.shard_index, r.run.shard_count);  // validates K and N

  r.spec = exp::load_spec(r.experiment, r.filter.settings);
  r.registry = r.common.load_registry();
  r.plan_options = r.filter.plan_options(r.common.resolved_data_dir());
  r.plan = exp::make_plan(*r.spec, *r.registry, r.plan_options);
  exp::load_reference(*r.spec, *r.registry);  // a missing or malformed [reference] file, before any job runs
  if (print_notes)
    for (const auto& note : r.plan->notes) std::cerr << "note: " << note << "\n";
  if (r.plan->jobs.empty())
    throw std::invalid_argument("nothing to run: no job of " + r.spec->name +
                                " matches the selection (--methods, --datasets, --splits) among the data sets present");
  if (r.results.empty()) r.results = exp::default_results_dir(r.spec->name);
  r.run.progress_bar = stderr_is_terminal();
  r.run.quiet = r.quiet;
  r.run.rerun = r.rerun;
  r.run.command_line = command_line;
  return true;
}

}  // namespace bnn::cli
