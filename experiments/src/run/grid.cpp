#include "experiments/src/run/grid.hpp"

#include <stdexcept>

namespace bnn::exp {
namespace {
double axis_value(const GridSpec::Axis& a, long k) {
  return a.from + (a.to - a.from) * static_cast<double>(k) / static_cast<double>(a.points - 1);
}
}  // namespace

GridPoints make_grid(const GridSpec& grid, Eigen::Index inputs) {
  GridPoints g;
  const auto axes = static_cast<Eigen::Index>(grid.axes.size());
  if (grid.mode == GridSpec::Mode::product) {
    if (axes != inputs)
      throw std::invalid_argument("grid: " + std::to_string(axes) + " axes given, but the data set has " +
                                  std::to_string(inputs) + " inputs (a product grid needs one axis per input)");
    Eigen::Index total = 1;
    for (const auto& a : grid.axes) {
      total *= a.points;
      if (total > 10'000'000) throw std::invalid_argument("grid: more than 10^7 points");
    }
    g.X.resize(total, inputs);
    for (Eigen::Index row = 0; row < total; ++row) {
      Eigen::Index rest = row;
      for (Eigen::Index j = inputs - 1; j >= 0; --j) {  // the last input varies fastest
        const auto& a = grid.axes[static_cast<std::size_t>(j)];
        g.X(row, j) = axis_value(a, static_cast<long>(rest % a.points));
        rest /= a.points;
      }
    }
    return g;
  }
  if (axes != 1 && axes != inputs)
    throw std::invalid_argument("grid: one-at-a-time needs one axis, or one per input (" + std::to_string(inputs) +
                                "), not " + std::to_string(axes));
  Eigen::Index total = 0;
  for (Eigen::Index j = 0; j < inputs; ++j) total += grid.axes[static_cast<std::size_t>(axes == 1 ? 0 : j)].points;
  g.X = Eigen::MatrixXd::Constant(total, inputs, grid.fixed);
  Eigen::Index row = 0;
  for (Eigen::Index j = 0; j < inputs; ++j) {
    const auto& a = grid.axes[static_cast<std::size_t>(axes == 1 ? 0 : j)];
    for (long k = 0; k < a.points; ++k, ++row) {
      g.X(row, j) = axis_value(a, k);
      g.varied.push_back(static_cast<double>(j + 1));
    }
  }
  return g;
}

}  // namespace bnn::exp
