#include "weight_intervals.hpp"

#include <cmath>

#include "methods/core/rng.hpp"

namespace bnn::exp {

std::vector<WeightInterval> nnep_weight_intervals(const data::Dataset& data, const nnep::Options& options,
                                                  std::uint64_t seed, FitReport* report) {
  RegressionData train{data.X, data.y};
  for (Eigen::Index j = 0; j < train.X.cols(); ++j) {
    const double mean = train.X.col(j).mean();
    const double sd = std::sqrt((train.X.col(j).array() - mean).square().mean());
    train.X.col(j) = (train.X.col(j).array() - mean) / (sd > 0.0 ? sd : 1.0);
  }
  const double y_mean = train.y.mean();
  const double y_sd = std::sqrt((train.y.array() - y_mean).square().mean());
  train.y = (train.y.array() - y_mean) / (y_sd > 0.0 ? y_sd : 1.0);
  Rng rng(seed);
  const nnep::Model model = nnep::fit(train, options, rng);
  if (report) *report = model.report();
  const nnep::Posterior& q = model.posterior();
  std::vector<WeightInterval> rows;
  const int K = static_cast<int>(q.input_mean.size());
  const Eigen::Index d = q.input_mean.front().size();
  for (int k = 0; k < K; ++k)
    for (Eigen::Index j = 0; j < d; ++j)
      rows.push_back({"w", k + 1, static_cast<int>(j + 1), q.input_mean[k][j], std::sqrt(q.input_covariance[k](j, j))});
  const bool per_input = options.scale_groups == "input";
  for (Eigen::Index l = 0; l < q.scale_mean.size(); ++l)
    rows.push_back({"phi", 0, per_input ? static_cast<int>(l + 1) : 0, q.scale_mean[l], std::sqrt(q.scale_variance[l])});
  for (int k = 0; k <= K; ++k)
    rows.push_back({"v", k < K ? k + 1 : 0, 0, q.output_mean[k], std::sqrt(q.output_covariance(k, k))});
  return rows;
}

}  // namespace bnn::exp
