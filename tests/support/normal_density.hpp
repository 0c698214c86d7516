#pragma once
// The normal density that the tests' brute-force integrals and direct sums weigh with. Its
// logarithm is bnn::normal_log_pdf and the standard normal density bnn::normal_pdf, both in
// methods/core/normal.hpp.
#include <cmath>
#include <numbers>

namespace bnn::test {

// N(x | mean, variance).
inline double normal_density(double x, double mean, double variance) {
  return std::exp(-0.5 * (x - mean) * (x - mean) / variance) / std::sqrt(2.0 * std::numbers::pi * variance);
}

}  // namespace bnn::test
