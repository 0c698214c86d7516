#pragma once
// `bnnbench verify`: rerun finished jobs of a results store and compare every number they
// stored (per-split metrics, per-test-point predictions, grid predictions, artifact tables, the
// fit's iteration count and status) with the rerun's. Timings are not compared.
#include <optional>
#include <string>
#include <vector>

#include "experiments/src/records/job_record.hpp"

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

// Compares a stored job with its rerun, both ways: a value of either missing in the other is a
// difference (a row deleted from the store too), and so are a stored seed other than the one its
// key derives and a stored data hash other than the rerun's. Grids are compared when both are
// given; per-point predictions when stored, and missing ones are a difference when the store
// keeps them (not one merged --without-points).
JobComparison compare_jobs(const JobRecord& stored, const JobRecord& rerun,
                           const std::optional<GridPredictions>& stored_grid = std::nullopt,
                           const std::optional<GridPredictions>& rerun_grid = std::nullopt,
                           bool store_keeps_points = false);

// A tolerance as the summaries print it ("1e-08").
std::string format_tolerance(double tolerance);

// Metrics that measure time, not results (never compared).
bool is_timing_metric(const std::string& name);

// A rerun's report against a published one (`report --compare`): both in the tidy CSV of
// `report --format csv` (dataset,method,metric,value,se,...). Cells are compared where both
// have a value over the same number of splits, timing metrics excepted; a cell differs when
// the value or the standard error
// differ by more than `tolerance` (relative) after both are read back from the CSV's digits.
struct CellDifference {
  std::string dataset, method, metric;
  std::string ours, ours_se, theirs, theirs_se;
  double relative = 0.0;
};
struct TableComparison {
  long compared = 0, identical = 0, within = 0;
  long not_rerun = 0;      // cells with a published value and none of ours
  long partial = 0;        // cells over a different number of splits (not compared)
  long not_published = 0;  // cells of ours (timings excepted) with no published value
  std::vector<CellDifference> differing;
};
// Throws std::invalid_argument naming `theirs_name` and the line for a malformed table.
TableComparison compare_report_tables(const std::string& ours, const std::string& theirs,
                                      const std::string& theirs_name, double tolerance);

}  // namespace bnn::exp
