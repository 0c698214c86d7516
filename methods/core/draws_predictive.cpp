#include "draws_predictive.hpp"

#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "expected_abs_normal.hpp"
#include "normal.hpp"

namespace bnn {

DrawsPredictive::DrawsPredictive(RowMajorMatrix draws, double noise_variance)
    : draws_(std::move(draws)), noise_variance_(noise_variance) {
  if (draws_.cols() == 0) throw std::invalid_argument("DrawsPredictive: no draws");
  if (!(noise_variance_ > 0.0) || !std::isfinite(noise_variance_))
    throw std::invalid_argument("DrawsPredictive: noise variance must be finite and > 0");
}

double DrawsPredictive::mean(Eigen::Index i) const { return row(i).mean(); }

double DrawsPredictive::variance(Eigen::Index i) const {
  const Eigen::RowVectorXd d = row(i);
  const double m = d.mean();
  return noise_variance_ + (d.array() - m).square().mean();
}

double DrawsPredictive::log_density(Eigen::Index i, double y) const {
  const double T = static_cast<double>(draws_.cols());
  const Eigen::VectorXd terms = (-0.5 / noise_variance_) * (y - row(i).array()).square();
  return log_sum_exp(terms) - std::log(T) - 0.5 * std::log(2.0 * std::numbers::pi * noise_variance_);
}

double DrawsPredictive::cdf(Eigen::Index i, double y) const {
  const double s = std::sqrt(noise_variance_);
  double F = 0.0;
  for (Eigen::Index t = 0; t < draws_.cols(); ++t) F += normal_cdf((y - static_cast<double>(draws_(i, t))) / s);
  return F / static_cast<double>(draws_.cols());
}

double DrawsPredictive::quantile(Eigen::Index i, double p) const {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("quantile: p must be in (0, 1)");
  // F lies between the cdfs of the lowest and the highest draw's Gaussian: so does its quantile.
  const double z = -std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * p);
  const double s = std::sqrt(noise_variance_);
  // (widened by a millionth of s against rounding at the ends)
  const double lo = static_cast<double>(draws_.row(i).minCoeff()) + s * z - 1e-6 * s;
  const double hi = static_cast<double>(draws_.row(i).maxCoeff()) + s * z + 1e-6 * s;
  return solve_quantile(i, p, lo, hi);
}

bool DrawsPredictive::between_quantiles(Eigen::Index i, double y, double p_lo, double p_hi) const {
  const double F = cdf(i, y);
  return F >= p_lo && F <= p_hi;
}

double DrawsPredictive::crps(Eigen::Index i, double y) const {
  const Eigen::Index T = draws_.cols();
  const Eigen::RowVectorXd d = row(i);
  double first = 0.0;
  for (Eigen::Index t = 0; t < T; ++t) first += expected_abs_normal_exact(y - d[t], noise_variance_);
  first /= static_cast<double>(T);
  const Eigen::Index offsets = std::min(kCrpsPairOffsets, T - 1);
  double pairs = 0.0;
  for (Eigen::Index k = 1; k <= offsets; ++k)
    for (Eigen::Index t = 0; t < T; ++t) pairs += expected_abs_normal(d[t] - d[(t + k) % T], 2.0 * noise_variance_);
  const double same = expected_abs_normal(0.0, 2.0 * noise_variance_);
  const double distinct = offsets > 0 ? pairs / static_cast<double>(offsets * T) : 0.0;
  const double Tn = static_cast<double>(T);
  const double pair_term = same / Tn + (1.0 - 1.0 / Tn) * distinct;
  return first - 0.5 * pair_term;
}

}  // namespace bnn
