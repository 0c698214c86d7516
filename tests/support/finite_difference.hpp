#pragma once
// Central differences, the numeric side of every gradient check in the tests: the derivative
// of a function of one number, the gradient of f: R^n -> R and the Jacobian of f: R^n -> R^m.
// Each entry is (f(x + h) - f(x - h)) / (2 h), one coordinate moved at a time, with h a fixed
// step or a fraction of |x_i| (for coordinates such as variances whose scale varies). The points
// may be any plain Eigen vector or matrix; a matrix's entries are moved in storage order.
#include <Eigen/Core>
#include <cmath>
#include <type_traits>

namespace bnn::test {

// The step h of a central difference: `size` itself, or size * |x| at the coordinate x.
struct Step {
  Step(double absolute) : size(absolute) {}  // implicit: a plain number is an absolute step
  double size;
  bool relative = false;
  double at(double x) const { return relative ? size * std::abs(x) : size; }
};

// A step of `fraction` |x| (x must not be 0).
inline Step relative_step(double fraction) {
  Step step(fraction);
  step.relative = true;
  return step;
}

// d f / d x at x, for f returning a number or an Eigen vector (then one derivative per entry).
template <class F>
auto numeric_derivative(F&& f, double x, Step step) {
  using Value = std::decay_t<std::invoke_result_t<F&, double>>;
  const double h = step.at(x);
  const Value derivative = (f(x + h) - f(x - h)) / (2.0 * h);
  return derivative;
}

// The gradient of a scalar function f at the point x, shaped like x.
template <class F, class Point>
Point numeric_gradient(F&& f, const Point& x, Step step) {
  Point gradient(x.rows(), x.cols());
  for (Eigen::Index k = 0; k < x.size(); ++k)
    gradient.data()[k] = numeric_derivative(
        [&](double moved) {
          Point at = x;
          at.data()[k] = moved;
          return static_cast<double>(f(at));
        },
        x.data()[k], step);
  return gradient;
}

// The Jacobian of a vector function f at x: one row per output, column k the derivative in x_k.
template <class F>
Eigen::MatrixXd numeric_jacobian(F&& f, const Eigen::VectorXd& x, Step step) {
  Eigen::MatrixXd jacobian;
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    const Eigen::VectorXd column = numeric_derivative(
        [&](double moved) {
          Eigen::VectorXd at = x;
          at[k] = moved;
          return Eigen::VectorXd(f(at));
        },
        x[k], step);
    if (k == 0) jacobian.resize(column.size(), x.size());
    jacobian.col(k) = column;
  }
  return jacobian;
}

}  // namespace bnn::test
