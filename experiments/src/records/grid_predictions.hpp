#pragma once
// Predictions on a grid of inputs (a figure experiment's [grid]): the points and what a job
// predicted there.
#include <Eigen/Core>
#include <vector>

namespace bnn::exp {

struct GridPoints {
  Eigen::MatrixXd X;           // one grid point per row, original input units
  std::vector<double> varied;  // one-at-a-time: the 1-based input varied in each row; else empty
};

struct GridPredictions {
  GridPoints points;
  std::vector<double> mean, variance, lower95, upper95;  // original target units
};

}  // namespace bnn::exp
