#pragma once
// L-BFGS (LBFGS++) that keeps the best point it evaluated: a failed line search, which LBFGS++
// reports by throwing, ends the minimization with that point instead of failing the fit.
#include <LBFGS.h>

#include <Eigen/Core>
#include <functional>
#include <limits>

namespace bnn {

// Returns f(x) and writes its gradient.
using Objective = std::function<double(const Eigen::VectorXd& x, Eigen::VectorXd& gradient)>;

struct BestPoint {
  Eigen::VectorXd x;  // the start if no evaluated point had a finite gradient
  double value = std::numeric_limits<double>::infinity();
  long evaluations = 0;
};

// Minimizes from `start` with the given LBFGS++ settings; points with a non-finite gradient
// are never kept.
BestPoint minimize_keeping_best(const Objective& objective, const Eigen::VectorXd& start,
                                const LBFGSpp::LBFGSParam<double>& param);

}  // namespace bnn
