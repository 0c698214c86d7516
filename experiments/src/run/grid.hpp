#pragma once
// Grid inputs for figure experiments and the predictions made on them.
#include <Eigen/Core>
#include <vector>

#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

struct GridPoints {
  Eigen::MatrixXd X;           // one grid point per row, original input units
  std::vector<double> varied;  // one-at-a-time: the 1-based input varied in each row; else empty
};

// The grid for a data set with `inputs` inputs; std::invalid_argument when the axes do not fit.
GridPoints make_grid(const GridSpec& grid, Eigen::Index inputs);

struct GridPredictions {
  GridPoints points;
  std::vector<double> mean, variance, lower95, upper95;  // original target units
};

}  // namespace bnn::exp
