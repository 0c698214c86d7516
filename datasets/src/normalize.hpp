#pragma once
// Zero-mean, unit-variance scaling computed on the training part only. A constant column
// gets scale 1 (it becomes all zeros); predictions are mapped back with y_mean, y_scale.
#include <Eigen/Core>
#include <string>

namespace bnn::data {

struct Standardizer {
  Eigen::RowVectorXd x_mean, x_scale;
  double y_mean = 0.0;
  double y_scale = 1.0;

  // Population standard deviation (divisor n). Throws DataError if the training target is
  // constant; `what` names the data and split in that message.
  static Standardizer fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::string& what);
  Eigen::MatrixXd transform_inputs(const Eigen::MatrixXd& X) const;
  Eigen::VectorXd transform_targets(const Eigen::VectorXd& y) const;
};

}  // namespace bnn::data
