#pragma once
// Zero-mean, unit-variance scaling computed on the training part only; predictions are
// mapped back with y_mean, y_scale. What becomes of an exactly constant input column is a
// choice (ConstantInputs).
#include <Eigen/Core>
#include <string>

namespace bnn::data {

// zero: a constant column gets its value as mean and scale 1, so it becomes all zeros and
// carries nothing. numpy: as `(X - X.mean(0)) / X.std(0)` with the guard `std == 0 -> 1`
// computes it in double precision (the PBP authors' code): numpy sums each column row by row,
// so a constant whose repeated sum rounds (naval's 0.998) gets a mean a few ulps off, a tiny
// nonzero sd, and becomes a constant input of +1 or -1, a second bias; one that sums exactly
// (naval's 288) still becomes zeros. Non-constant columns are the same in both.
enum class ConstantInputs { zero, numpy };

// "zero" or "numpy"; throws std::invalid_argument naming the accepted values.
ConstantInputs parse_constant_inputs(const std::string& text);
std::string to_string(ConstantInputs mode);

struct Standardizer {
  Eigen::RowVectorXd x_mean, x_scale;
  double y_mean = 0.0;
  double y_scale = 1.0;

  // Population standard deviation (divisor n). Throws DataError if the training target is
  // constant; `what` names the data and split in that message.
  static Standardizer fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::string& what,
                          ConstantInputs constant_inputs = ConstantInputs::zero);
  Eigen::MatrixXd transform_inputs(const Eigen::MatrixXd& X) const;
  Eigen::VectorXd transform_targets(const Eigen::VectorXd& y) const;
};

}  // namespace bnn::data
