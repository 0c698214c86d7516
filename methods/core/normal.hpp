#pragma once
// The normal distribution's helpers shared by methods, and the Gamma moment match of assumed
// density filtering. Inline on purpose: each caller compiles the same arithmetic (and the same
// fused multiply-adds) it compiled when these were local functions, so results keep their bits.
#include <cmath>
#include <numbers>

namespace bnn {

// log(2 pi) as the nearest double (NN-EP's constant).
inline constexpr double kLog2Pi = 1.83787706640934548356;
// The log of the double nearest 2 pi, what std::log(2.0 * std::numbers::pi) gives: one ulp below
// kLog2Pi. The Gaussian normalizers of linear regression, the GP, Laplace and ensemble learning
// were committed with it (test_core_numerics checks both constants).
inline constexpr double kLog2PiOfDouble = 1.8378770664093453;

// The standard normal density phi(z) and distribution function Phi(z).
inline double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi); }
inline double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

// log N(y | mean, variance) = -(log(2 pi variance) + (y - mean)^2 / variance) / 2.
inline double normal_log_pdf(double y, double mean, double variance) {
  const double r = y - mean;
  return -0.5 * (std::log(2.0 * std::numbers::pi * variance) + r * r / variance);
}

// The same density with log(2 pi) and log(variance) added separately: another rounding of the
// same value, the one NN-EP's committed results were computed with.
inline double normal_log_pdf_split(double y, double mean, double variance) {
  const double r = y - mean;
  return -0.5 * (kLog2Pi + std::log(variance) + r * r / variance);
}

// log Phi(x), accurate in the far left tail.
inline double log_normal_cdf(double x) {
  if (x > -20.0) return std::log(0.5 * std::erfc(-x / std::numbers::sqrt2));
  // Phi(x) ~ phi(x) / |x| (1 - 1/x^2 + 3/x^4 - 15/x^6 + 105/x^8) as x -> -infinity
  const double u = 1.0 / (x * x);
  const double series = 1.0 - u * (1.0 - 3.0 * u * (1.0 - 5.0 * u * (1.0 - 7.0 * u)));
  return -0.5 * x * x - 0.5 * kLog2Pi - std::log(-x) + std::log(series);
}

// The inverse Mills ratio phi(z) / Phi(z), from log Phi(z) when the caller has it.
inline double inverse_mills(double z, double log_cdf) { return std::exp(-0.5 * z * z - 0.5 * kLog2Pi - log_cdf); }
inline double inverse_mills(double z) { return inverse_mills(z, log_normal_cdf(z)); }

// Assumed density filtering's update of a Gamma(shape, rate) factor (Minka 2001; PBP eqs. (9)-(10)):
// the Gamma whose first two moments match those of the tilted distribution, from log Z_k, the
// log normalizers with the shape raised by k = 0, 1, 2 (constants common to the three cancel).
struct GammaMatch {
  double shape, rate;
};
inline GammaMatch gamma_moment_match(double shape, double rate, double log_z0, double log_z1, double log_z2) {
  return {1.0 / (std::exp(log_z2 - 2.0 * log_z1 + log_z0) * (shape + 1.0) / shape - 1.0),
          1.0 / (std::exp(log_z2 - log_z1) * (shape + 1.0) / rate - std::exp(log_z1 - log_z0) * shape / rate)};
}

}  // namespace bnn
