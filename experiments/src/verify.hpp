#pragma once
// `bnnbench verify`: rerun finished jobs of a results store and compare every number they
// stored (per-split metrics, per-test-point predictions, grid predictions, the fit's
// iteration count and status) with the rerun's. Timings are not compared.
#include <optional>
#include <string>

#include "grid.hpp"
#include "store.hpp"

namespace bnn::exp {

// |a - b| / max(|a|, |b|): 0 when bit-identical (two NaNs of the same sign are identical),
// infinity when only one is NaN or they are infinities of different sign.
double relative_difference(double a, double b);

struct JobComparison {
  long values = 0;            // numbers compared
  long differing = 0;         // numbers that are not bit-identical
  double max_relative = 0.0;  // largest relative_difference
  std::string worst;          // where it is, e.g. "metric rmse" or "points mean[17]"
  bool rerun_failed = false;  // the rerun did not finish (its error is in `worst`)
};

// Compares a stored job with its rerun. Grids are compared when both are given.
JobComparison compare_jobs(const JobRecord& stored, const JobRecord& rerun,
                           const std::optional<GridPredictions>& stored_grid = std::nullopt,
                           const std::optional<GridPredictions>& rerun_grid = std::nullopt);

// Metrics that measure time, not results (never compared).
bool is_timing_metric(const std::string& name);

}  // namespace bnn::exp
