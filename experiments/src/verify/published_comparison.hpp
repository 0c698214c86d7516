#pragma once
// `report --compare FILE`: a store's report (or its per-split metrics) against a published one,
// such as the committed results/EXPERIMENT/report.csv or splits.csv.
#include <string>

#include "experiments/src/report/publish.hpp"

namespace bnn::exp {

// The text to print, and the exit status: 1 when any value differs or none could be compared.
struct ComparisonOutcome {
  std::string text, error;
  int status = 0;
};
ComparisonOutcome compare_with_published(const ReportSource& source, const std::string& file, double tolerance);

}  // namespace bnn::exp
