#pragma once
// What a report shows of an active-learning experiment besides the table of the last
// evaluation: the paired differences of the final test RMSE between a method's "variance" (A)
// and "random" (R) jobs of the same repeats, and the learning curves (test RMSE against the
// number of evaluations, mean and standard error over repeats), as CSV and a figure.
#include <string>
#include <vector>

#include "datasets/src/registry.hpp"
#include "experiments/src/plot/svg_plot.hpp"
#include "experiments/src/records/job_record.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

// The pairs of method labels (variance, random) of configurations that differ only in their
// selection, in spec order.
std::vector<std::pair<std::string, std::string>> selection_pairs(const ExperimentSpec& spec);

// "## Paired differences": per data set and pair, the mean over repeats of A's final test RMSE
// minus R's, its standard error and z = mean / se, over the repeats where both finished.
std::string paired_markdown(const ExperimentSpec& spec, const std::vector<std::string>& datasets,
                            const std::vector<JobRecord>& jobs);

// dataset,method,evaluation,n_train,repeats,rmse,rmse_se,test_ll,test_ll_se: mean and standard
// error over the finished repeats at every evaluation (1 = the initial training set).
std::string learning_curves_csv(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                const std::vector<JobRecord>& jobs);

// A panel per data set of the spec's `curves` (all where empty): a line per method, -+ 1 se.
plot::Figure learning_curve_figure(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                   const std::vector<JobRecord>& jobs);

}  // namespace bnn::exp
