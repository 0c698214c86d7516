#include "activation.hpp"

#include <boost/math/quadrature/gauss.hpp>
#include <cmath>
#include <numbers>

namespace bnn::nnep {

double Activation::mean(double m, double v) const {
  if (linear) return m;
  // E erf(h / sqrt 2) = 2 Phi(m / sqrt(1 + V)) - 1
  return std::erf(m / std::sqrt(2.0 * (1.0 + v))) / std::sqrt(static_cast<double>(units));
}

double Activation::variance(double m, double v) const {
  if (linear) return v;
  // Var g = 2 / (K pi) int_0^asin(rho) exp(-m^2 / ((1 + V)(1 + sin x))) dx, rho = V / (1 + V);
  // the integrand is smooth on [0, pi/2], so 20 Gauss-Legendre nodes reach round-off.
  const double rho = v / (1.0 + v);
  const double scale = m * m / (1.0 + v);
  const auto integrand = [scale](double x) { return std::exp(-scale / (1.0 + std::sin(x))); };
  const double integral = boost::math::quadrature::gauss<double, 20>::integrate(integrand, 0.0, std::asin(rho));
  return 2.0 / (static_cast<double>(units) * std::numbers::pi) * integral;
}

}  // namespace bnn::nnep
