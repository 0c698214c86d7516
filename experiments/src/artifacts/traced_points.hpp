#pragma once
// Which test points a chain-traces artifact follows: those of the largest and of the median
// split R-hat (ties in a stable order), the worst mixing and a typical one.
#include <Eigen/Core>
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace bnn::exp {

struct TracedPoints {
  Eigen::Index worst = 0, median = 0;
};

inline TracedPoints traced_points(const std::vector<double>& rhat) {
  if (rhat.empty()) throw std::invalid_argument("chain traces need at least one point");
  std::vector<Eigen::Index> order(rhat.size());
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return rhat[static_cast<std::size_t>(a)] < rhat[static_cast<std::size_t>(b)];
  });
  return {order.back(), order[order.size() / 2]};
}

}  // namespace bnn::exp
