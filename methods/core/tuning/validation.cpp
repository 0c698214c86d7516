#include "validation.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace bnn::tuning {

ValidationSplit split_validation(const RegressionData& data, double fraction, Rng& rng, const char* method) {
  const auto perm = random_permutation(rng, static_cast<std::size_t>(data.X.rows()));
  const auto n_valid = static_cast<Eigen::Index>(std::lround(fraction * static_cast<double>(perm.size())));
  const auto n_fit = static_cast<Eigen::Index>(perm.size()) - n_valid;
  if (n_valid < 1 || n_fit < 2)
    throw std::invalid_argument(std::string(method) + ": the training set (" + std::to_string(perm.size()) +
                                " rows) is too small to hold out a validation part");
  ValidationSplit s{{Eigen::MatrixXd(n_fit, data.X.cols()), Eigen::VectorXd(n_fit)},
                    {Eigen::MatrixXd(n_valid, data.X.cols()), Eigen::VectorXd(n_valid)}};
  for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(perm.size()); ++k) {
    const auto src = static_cast<Eigen::Index>(perm[static_cast<std::size_t>(k)]);
    RegressionData& part = k < n_valid ? s.validation : s.fit;
    const Eigen::Index row = k < n_valid ? k : k - n_valid;
    part.X.row(row) = data.X.row(src);
    part.y[row] = data.y[src];
  }
  return s;
}

}  // namespace bnn::tuning
