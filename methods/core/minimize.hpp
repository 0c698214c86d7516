#pragma once
// L-BFGS and L-BFGS-B (LBFGS++) for every method that minimizes, in ensmallen's style: the
// objective is any callable double(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) that
// returns f(x) and writes its gradient; the optimizer is a reusable object holding its settings.
// It keeps the best point it evaluated: a failed line search, which LBFGS++ reports by
// throwing, ends the minimization with that point instead of failing the fit.
//
//   const Minimum m = Lbfgs(settings).minimize(objective, start);
#include <LBFGS.h>
#include <LBFGSB.h>

#include <Eigen/Core>
#include <cmath>
#include <exception>
#include <limits>
#include <utility>

namespace bnn {

// What the line search sees of an evaluation whose value or gradient is not finite (such a
// point is never kept as the best).
enum class NonFinite {
  pass,        // the evaluation as it is
  infinite,    // the value +inf, the gradient as it is
  huge,        // the value 1e300 with a zero gradient: the line search backs off
  huge_value,  // as huge, but only the value is checked: a finite value with a non-finite
               // gradient is handed on and may be kept (the GP's evidence search)
};

struct Minimum {
  Eigen::VectorXd x;  // the lowest finite value with a finite gradient (huge_value: any gradient); else the start
  double value = std::numeric_limits<double>::infinity();
  double gradient_norm = std::numeric_limits<double>::infinity();  // at x
  long evaluations = 0;
  long iterations = 0;              // as the solver counted them; 0 after a failed line search
  bool line_search_failed = false;  // the solver threw
  Eigen::VectorXd last_x;           // where the solver stopped (a trial point after a failure)
  double last_value = std::numeric_limits<double>::quiet_NaN();  // f(last_x) unless the search failed
};

namespace minimize_detail {

// Records the best point of every evaluation and applies the NonFinite rule.
template <class Objective>
auto recording(Objective& objective, NonFinite non_finite, Minimum& out) {
  return [&objective, non_finite, &out](const Eigen::VectorXd& x, Eigen::VectorXd& gradient) {
    ++out.evaluations;
    const double value = objective(x, gradient);
    if (!std::isfinite(value) || (non_finite != NonFinite::huge_value && !gradient.allFinite())) {
      if (non_finite == NonFinite::infinite) return std::numeric_limits<double>::infinity();
      if (non_finite == NonFinite::huge || non_finite == NonFinite::huge_value) {
        gradient.setZero();
        return 1e300;
      }
      return value;
    }
    if (value < out.value) {
      out.value = value;
      out.x = x;
      out.gradient_norm = gradient.norm();
    }
    return value;
  };
}

template <class Solve>
Minimum run(const Eigen::VectorXd& start, Solve&& solve) {
  Minimum out;
  out.x = start;
  out.last_x = start;
  double value = 0.0;
  try {
    out.iterations = solve(out, out.last_x, value);
    out.last_value = value;
  } catch (const std::exception&) {
    out.line_search_failed = true;
  }
  return out;
}

}  // namespace minimize_detail

class Lbfgs {
 public:
  explicit Lbfgs(const LBFGSpp::LBFGSParam<double>& settings, NonFinite non_finite = NonFinite::pass)
      : settings_(settings), non_finite_(non_finite) {}
  const LBFGSpp::LBFGSParam<double>& settings() const { return settings_; }

  template <class Objective>
  Minimum minimize(Objective&& objective, const Eigen::VectorXd& start) const {
    return minimize_detail::run(start, [&](Minimum& out, Eigen::VectorXd& x, double& value) {
      auto f = minimize_detail::recording(objective, non_finite_, out);
      LBFGSpp::LBFGSSolver<double> solver(settings_);
      return static_cast<long>(solver.minimize(f, x, value));
    });
  }

 private:
  LBFGSpp::LBFGSParam<double> settings_;
  NonFinite non_finite_;
};

// L-BFGS-B: the same within the box [lower, upper].
class LbfgsBounded {
 public:
  explicit LbfgsBounded(const LBFGSpp::LBFGSBParam<double>& settings, NonFinite non_finite = NonFinite::pass)
      : settings_(settings), non_finite_(non_finite) {}
  const LBFGSpp::LBFGSBParam<double>& settings() const { return settings_; }

  template <class Objective>
  Minimum minimize(Objective&& objective, const Eigen::VectorXd& start, const Eigen::VectorXd& lower,
                   const Eigen::VectorXd& upper) const {
    return minimize_detail::run(start, [&](Minimum& out, Eigen::VectorXd& x, double& value) {
      auto f = minimize_detail::recording(objective, non_finite_, out);
      LBFGSpp::LBFGSBSolver<double> solver(settings_);
      return static_cast<long>(solver.minimize(f, x, value, lower, upper));
    });
  }

 private:
  LBFGSpp::LBFGSBParam<double> settings_;
  NonFinite non_finite_;
};

}  // namespace bnn
