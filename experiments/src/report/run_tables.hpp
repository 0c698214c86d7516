#pragma once
// What `bnnbench run` prints besides the report: the plan of a --dry-run and the closing line.
#include <string>
#include <vector>

#include "experiments/src/plan/selection.hpp"
#include "experiments/src/run/runner.hpp"

namespace bnn::exp {

// `run --dry-run`: one Markdown row per data set and method label, and how many jobs would run.
std::string dry_run_table(const std::vector<PlanStatus>& rows, const std::string& results, bool rerun);

// "EXPERIMENT: ran N job(s) in T (F failed), D already done[, K failed rerun(s) kept ...]".
std::string run_summary_line(const std::string& experiment, const RunSummary& summary);

}  // namespace bnn::exp
