// bnnbench verify: argument parsing over verify/verify_run.hpp.
#include <omp.h>

#include <iostream>

#include "common.hpp"
#include "experiments/src/run/runner.hpp"
#include "experiments/src/verify/verify.hpp"
#include "experiments/src/verify/verify_run.hpp"
#include "job_filter.hpp"

namespace bnn::cli {

int cmd_verify(const std::vector<std::string>& args) {
  CommonOptions common;
  JobFilterOptions filter;
  std::string experiment;
  exp::VerifyOptions verify;
  verify.threads = omp_get_max_threads();
  po::options_description options("bnnbench verify options");
  // clang-format off
  options.add_options()("experiment", po::value(&experiment), "experiment name or spec file");
  // clang-format on
  filter.add_to(options);
  // clang-format off
  options.add_options()
      ("results", po::value(&verify.results), "results directory to verify (default: results/EXPERIMENT)")
      ("tolerance", po::value(&verify.tolerance),
       "largest relative difference accepted (default 0: every number bit-identical)")
      ("threads", po::value(&verify.threads), "jobs rerun in parallel (default: all cores)")
      ("quiet,q", po::bool_switch(&verify.quiet), "no progress output");
  // clang-format on
  if (common.parse_or_help(
          args, options, "experiment",
          "usage: bnnbench verify EXPERIMENT [--results DIR] [--methods ...] [--datasets ...] [--splits ...]\n\n"
          "Reruns the selected jobs that the results store holds as finished (with the --set of the\n"
          "run that made them), without writing to that store, and compares every stored number\n"
          "with the rerun's: per-split metrics, per-test-point predictions, grid predictions,\n"
          "artifacts and the fit's iteration count and status (timings excepted). Exit status 0 when\n"
          "all agree (bit for bit, or within --tolerance), 1 when any differ or a rerun fails.\n"
          "Where DIR holds no store but a committed splits.csv (a clean checkout's results/EXPERIMENT),\n"
          "the selected jobs it holds are rerun and compared with it and with the artifact files beside it.\n"
          "Example: bnnbench verify epnn-table1 --methods nn-ep-la --datasets boston --splits 0-2\n"
          "Example: bnnbench verify pbp-table1 --results results/pbp-table1/parts/pbp-protein-50 \\\n"
          "           --set pbp.hidden_layers=50 --splits 0"))
    return 0;
  if (experiment.empty()) throw po::error("missing EXPERIMENT");
  exp::check_threads(verify.threads);
  if (!(verify.tolerance >= 0.0))
    throw std::invalid_argument("--tolerance is " + exp::format_tolerance(verify.tolerance) + ", but must be >= 0");
  const exp::ExperimentSpec spec = exp::load_spec(experiment, filter.settings);
  if (verify.results.empty()) verify.results = exp::default_results_dir(spec.name);
  verify.plan = filter.plan_options(common.resolved_data_dir());
  verify.progress_bar = stderr_is_terminal();
  const exp::VerifyOutcome outcome = exp::verify_experiment(spec, common.load_registry(), verify);
  std::cout << outcome.text;
  return outcome.status;
}

}  // namespace bnn::cli
