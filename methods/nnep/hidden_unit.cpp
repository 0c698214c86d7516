#include "hidden_unit.hpp"

#include <array>
#include <boost/math/quadrature/gauss.hpp>
#include <cmath>
#include <numbers>

#include "methods/core/activation.hpp"
#include "methods/core/vector_math.hpp"

namespace bnn::nnep {

void HiddenUnit::values(double* h, std::size_t n) const {
  if (linear) return;
  activation_values_fast(Activation::erf, h, n);
  const double root_units = std::sqrt(static_cast<double>(units));
  for (std::size_t i = 0; i < n; ++i) h[i] /= root_units;
}

double HiddenUnit::mean(double m, double v) const {
  if (linear) return m;
  // E erf(h / sqrt 2) = 2 Phi(m / sqrt(1 + V)) - 1
  return std::erf(m / std::sqrt(2.0 * (1.0 + v))) / std::sqrt(static_cast<double>(units));
}

double HiddenUnit::variance(double m, double v) const {
  if (linear) return v;
  // Var g = 2 / (K pi) int_0^asin(rho) exp(-m^2 / ((1 + V)(1 + sin x))) dx, rho = V / (1 + V);
  // the integrand is smooth on [0, pi/2], so 20 Gauss-Legendre nodes reach round-off.
  const double rho = v / (1.0 + v);
  const double scale = m * m / (1.0 + v);
  // 20-point Gauss-Legendre on [0, asin(rho)]: sin and exp of the 20 nodes as vectors.
  using Legendre = boost::math::quadrature::gauss<double, 20>;
  const auto& abscissa = Legendre::abscissa();
  const auto& weights = Legendre::weights();
  const double half = 0.5 * std::asin(rho);
  std::array<double, 20> node{};
  for (std::size_t q = 0; q < abscissa.size(); ++q) {
    node[2 * q] = half * (1.0 - abscissa[q]);
    node[2 * q + 1] = half * (1.0 + abscissa[q]);
  }
  vector_math::sin(node.data(), node.data(), node.size());
  for (double& x : node) x = -scale / (1.0 + x);
  vector_math::exp(node.data(), node.data(), node.size());
  double integral = 0.0;
  for (std::size_t q = 0; q < abscissa.size(); ++q) integral += weights[q] * (node[2 * q] + node[2 * q + 1]);
  integral *= half;
  return 2.0 / (static_cast<double>(units) * std::numbers::pi) * integral;
}

}  // namespace bnn::nnep
