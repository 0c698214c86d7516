#include "minimize.hpp"

#include <exception>

namespace bnn {

BestPoint minimize_keeping_best(const Objective& objective, const Eigen::VectorXd& start,
                                const LBFGSpp::LBFGSParam<double>& param) {
  BestPoint best;
  best.x = start;
  const auto recording = [&](const Eigen::VectorXd& x, Eigen::VectorXd& gradient) {
    ++best.evaluations;
    const double value = objective(x, gradient);
    if (value < best.value && gradient.allFinite()) {
      best.value = value;
      best.x = x;
    }
    return value;
  };
  LBFGSpp::LBFGSSolver<double> solver(param);
  Eigen::VectorXd x = start;
  double value = 0.0;
  try {
    solver.minimize(recording, x, value);
  } catch (const std::exception&) {
    // a failed line search leaves the best point seen
  }
  return best;
}

}  // namespace bnn
