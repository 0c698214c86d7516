#pragma once
// `bnnbench verify`: rerun finished jobs of a results store (or, on a clean checkout, the jobs
// of the committed per-split file) into a scratch store and compare every number.
#include <string>

#include "datasets/src/registry.hpp"
#include "experiments/src/plan/plan.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

struct VerifyOptions {
  std::string results;  // directory holding the store, or a committed splits.csv
  PlanOptions plan;     // the selection of jobs
  int threads = 1;
  double tolerance = 0.0;  // largest relative difference accepted
  bool quiet = false;
  bool progress_bar = false;
};

struct VerifyOutcome {
  std::string text;  // the tally table and the differences (Markdown)
  int status = 0;    // 1 when a number differs, a rerun fails or nothing could be verified
};

// Where the results directory holds no store, the committed splits.csv's selected finished
// jobs are rerun and compared with it, and with the committed artifact files (TABLE.csv) beside
// it. Throws std::invalid_argument when there is neither a store nor a splits.csv.
VerifyOutcome verify_experiment(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                const VerifyOptions& options);

}  // namespace bnn::exp
