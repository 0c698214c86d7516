#pragma once
// A hidden unit of NN-EP (eq. (2)): g(h) = erf(h / sqrt 2) / sqrt K, the probit unit of
// core/activation.hpp scaled, or the identity for units declared linear (the paper's case 1 gives
// unit 1 a linear activation), and what EP needs of it: its mean and variance under h ~ N(m, V)
// (Appendix B).
#include <cmath>
#include <cstddef>
#include <numbers>

namespace bnn::nnep {

struct HiddenUnit {
  int units = 1;        // K, the scale 1/sqrt(K) of the erf units
  bool linear = false;  // g(h) = h
  double value(double h) const {
    return linear ? h : std::erf(h / std::numbers::sqrt2) / std::sqrt(static_cast<double>(units));
  }
  // h[i] = g(h[i]) for i < n, the erf through the vector routines (core/activation.hpp): the
  // quadrature of (49) evaluates g at all its nodes at once.
  void values(double* h, std::size_t n) const;
  double mean(double m, double v) const;      // E g(h), analytic
  double variance(double m, double v) const;  // Var g(h), the 1-D integral after (46)
};

}  // namespace bnn::nnep
