#pragma once
// `report --paired-against LABEL`: every method against a baseline, as a paper compares them.
// Per data set and method, over the splits where both have a finished value (paired by split
// index), the mean difference (method - baseline), its standard error, z and wins/ties/losses;
// and per metric the methods' average rank over the data sets where all of them have values.
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "datasets/src/registry.hpp"
#include "experiments/src/records/job_record.hpp"
#include "experiments/src/report/report.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

// The metrics compared (rmse, test_ll) and which way is better.
const std::vector<std::string>& paired_metrics();
bool higher_is_better(const std::string& metric);

// One metric's finished per-split values: (data set, method label) -> split -> value.
using SplitValues = std::map<std::pair<std::string, std::string>, std::map<int, double>>;

// What the comparison is computed from.
struct PairedInput {
  std::string experiment;
  std::vector<std::string> datasets;          // canonical names, in the spec's order
  std::vector<std::string> methods;           // labels, in the spec's order, the baseline among them
  std::map<std::string, SplitValues> values;  // metric -> its values
  std::string source;                         // where the values come from (a store's description)
  std::vector<std::string> notes;             // shown in the header
};

struct PairedDifference {
  std::string dataset, method;
  int n = 0;  // shared splits
  double mean = std::numeric_limits<double>::quiet_NaN();
  double se = std::numeric_limits<double>::quiet_NaN();  // NaN when n < 2
  double z = std::numeric_limits<double>::quiet_NaN();   // NaN when se is 0 or n < 2
  int wins = 0, ties = 0, losses = 0;                    // splits where the method is better, equal, worse
};

struct MethodRank {
  std::string method;
  double average_rank = std::numeric_limits<double>::quiet_NaN();
  int datasets = 0;  // data sets it was ranked on
};

struct MetricComparison {
  std::string metric;
  bool higher_is_better = false;
  std::vector<PairedDifference> differences;  // n > 0 only; data set order, then method order
  std::vector<std::string> without_values;    // methods with no finished split of the metric anywhere
  std::vector<std::string> unpaired;          // "dataset (m1, m2)": no split shared with the baseline
  std::vector<MethodRank> ranks;              // the methods with values, baseline included
  std::vector<std::string> left_out;          // "dataset (why)": not ranked
};

struct PairedComparison {
  std::string experiment, baseline, source;
  std::vector<std::string> notes;
  std::vector<MetricComparison> metrics;  // those with any value
};

// std::invalid_argument naming --paired-against and `labels` where `baseline` is not among them.
void check_baseline_label(const std::string& baseline, const std::vector<std::string>& labels,
                          const std::string& experiment);

// The paired differences of `method` against `baseline` over the splits both have.
PairedDifference paired_difference(const std::map<int, double>& method, const std::map<int, double>& baseline,
                                   bool higher_is_better);

// Ranks of `means` (1 = best); equal means share the average of the ranks they span.
std::vector<double> average_ranks(const std::vector<double>& means, bool higher_is_better);

// Everything the view shows. std::invalid_argument for an unknown baseline.
PairedComparison paired_comparison(const PairedInput& input, const std::string& baseline);

// The input from stored jobs: the finished jobs of the spec's current configuration in the
// selection, each one's last evaluation.
PairedInput paired_input(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                         const std::vector<JobRecord>& jobs, const ReportSelection& selection,
                         const std::string& source);

std::string render_paired_markdown(const PairedComparison& comparison);
// kind,metric,dataset,method,baseline,n,value,se,z,wins,ties,losses: kind "paired" (n shared
// splits, value the mean difference) or "rank" (n data sets ranked on, value the average rank).
std::string render_paired_csv(const PairedComparison& comparison);
std::string render_paired_latex(const PairedComparison& comparison);
std::string render_paired_html(const PairedComparison& comparison);

}  // namespace bnn::exp
