#include "normalize.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "data_error.hpp"

namespace bnn::data {

ConstantInputs parse_constant_inputs(const std::string& text) {
  if (text == "zero") return ConstantInputs::zero;
  if (text == "numpy") return ConstantInputs::numpy;
  throw std::invalid_argument("constant_inputs '" + text + "' is not one of: zero, numpy");
}

std::string to_string(ConstantInputs mode) { return mode == ConstantInputs::zero ? "zero" : "numpy"; }

namespace {
// Mean and population sd of a column; an exactly constant column gets its value and scale 1.
std::pair<double, double> location_scale(const Eigen::Ref<const Eigen::VectorXd>& v) {
  if (v.maxCoeff() == v.minCoeff()) return {v[0], 1.0};
  const double mean = v.mean();
  const double sd = std::sqrt((v.array() - mean).square().mean());
  return {mean, sd > 0.0 ? sd : 1.0};
}

// numpy's X.mean(0) and X.std(0) of a column, summed row by row in order as numpy reduces
// axis 0 of a C-ordered array; an sd of exactly 0 becomes 1.
std::pair<double, double> numpy_location_scale(const Eigen::Ref<const Eigen::VectorXd>& v) {
  const auto n = static_cast<double>(v.size());
  double sum = 0.0;
  for (Eigen::Index i = 0; i < v.size(); ++i) sum += v[i];
  const double mean = sum / n;
  double sum_squares = 0.0;
  for (Eigen::Index i = 0; i < v.size(); ++i) sum_squares += (v[i] - mean) * (v[i] - mean);
  const double sd = std::sqrt(sum_squares / n);
  return {mean, sd == 0.0 ? 1.0 : sd};
}
}  // namespace

Standardizer Standardizer::fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::string& what,
                               ConstantInputs constant_inputs) {
  Standardizer s;
  s.x_mean.resize(X.cols());
  s.x_scale.resize(X.cols());
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    const bool constant = X.rows() > 0 && X.col(j).maxCoeff() == X.col(j).minCoeff();
    const auto [m, sd] = constant && constant_inputs == ConstantInputs::numpy ? numpy_location_scale(X.col(j))
                                                                              : location_scale(X.col(j));
    if (!std::isfinite(m) || !std::isfinite(sd))
      throw DataError(what, 0, static_cast<long>(j + 1),
                      "input values too large to standardize (the mean or standard deviation overflows)");
    s.x_mean[j] = m;
    s.x_scale[j] = sd;
  }
  if (y.size() < 2 || y.maxCoeff() == y.minCoeff())
    throw DataError(what, 0, 0, "the training target is constant; it cannot be standardized");
  const auto [m, sd] = location_scale(y);
  if (!std::isfinite(m) || !std::isfinite(sd))
    throw DataError(what, 0, 0,
                    "the training target is too large to standardize (its mean or standard deviation overflows)");
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
