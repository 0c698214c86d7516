#pragma once
// `bnnbench run`'s options, parsed, and its plan: shared by run and slurm (which checks a run
// before it writes the job script).
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "experiments/src/plan/plan.hpp"
#include "experiments/src/run/runner.hpp"
#include "experiments/src/spec/spec.hpp"
#include "job_filter.hpp"

namespace bnn::cli {

struct RunRequest {
  CommonOptions common;
  std::string experiment, results, shard = "1/1", format = "md";
  JobFilterOptions filter;
  int threads = 1;  // prepare_run: all cores unless --threads
  bool no_report = false, quiet = false, dry_run = false, rerun = false;
  exp::RunOptions run;
  std::optional<exp::ExperimentSpec> spec;
  std::optional<data::DatasetRegistry> registry;
  exp::PlanOptions plan_options;
  std::optional<exp::Plan> plan;
};

// `bnnbench run`'s own options (not the common ones), bound to `request`'s fields.
void add_run_options(po::options_description& options, RunRequest& request);

// Parses `args` as `bnnbench run` does and plans; false when --help was printed. Throws on any
// bad option, spec or data. `print_notes`: the plan's notes to stderr.
bool prepare_run(const std::vector<std::string>& args, const std::string& command_line, RunRequest& request,
                 bool print_notes);

}  // namespace bnn::cli
