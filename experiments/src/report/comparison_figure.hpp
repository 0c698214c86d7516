#pragma once
// The figure of a table experiment: per data set and metric a panel with every method's
// value and the paper's side by side, each with an interval of two standard errors, so that
// agreement with the paper shows at a glance ('*' after a method: ours differs from the
// paper's by more than two combined standard errors, as in the report's tables).
#include "experiments/src/plot/svg_plot.hpp"
#include "experiments/src/report/report.hpp"

namespace bnn::exp {

// Metrics that the report compares with the paper (not timings); std::invalid_argument when
// the report has none with a value.
plot::Figure comparison_figure(const ReportData& report);

}  // namespace bnn::exp
