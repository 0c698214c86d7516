#include "normalize.hpp"

#include <cmath>

#include "data_error.hpp"

namespace bnn::data {
namespace {
// Mean and population sd of a column; an exactly constant column gets its value and scale 1.
std::pair<double, double> location_scale(const Eigen::Ref<const Eigen::VectorXd>& v) {
  if (v.maxCoeff() == v.minCoeff()) return {v[0], 1.0};
  const double mean = v.mean();
  const double sd = std::sqrt((v.array() - mean).square().mean());
  return {mean, sd > 0.0 ? sd : 1.0};
}
}  // namespace

Standardizer Standardizer::fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::string& what) {
  Standardizer s;
  s.x_mean.resize(X.cols());
  s.x_scale.resize(X.cols());
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    const auto [m, sd] = location_scale(X.col(j));
    s.x_mean[j] = m;
    s.x_scale[j] = sd;
  }
  if (y.size() < 2 || y.maxCoeff() == y.minCoeff())
    throw DataError(what, 0, 0, "the training target is constant; it cannot be standardized");
  const auto [m, sd] = location_scale(y);
  s.y_mean = m;
  s.y_scale = sd;
  return s;
}

Eigen::MatrixXd Standardizer::transform_inputs(const Eigen::MatrixXd& X) const {
  return (X.rowwise() - x_mean).array().rowwise() / x_scale.array();
}

Eigen::VectorXd Standardizer::transform_targets(const Eigen::VectorXd& y) const {
  return (y.array() - y_mean) / y_scale;
}

}  // namespace bnn::data
