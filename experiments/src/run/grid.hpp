#pragma once
// The grid inputs of a figure experiment, made from its spec.
#include <Eigen/Core>

#include "experiments/src/records/grid_predictions.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

// The grid for a data set with `inputs` inputs; std::invalid_argument when the axes do not fit.
GridPoints make_grid(const GridSpec& grid, Eigen::Index inputs);

}  // namespace bnn::exp
