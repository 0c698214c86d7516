#include "predictive.hpp"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "expected_abs_normal.hpp"
#include "normal.hpp"

namespace bnn {
namespace {
// Double precision throughout: Boost's default promotion to long double is several times
// slower and buys nothing at the accuracy metrics need.
using FastPolicy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
using StudentT = boost::math::students_t_distribution<double, FastPolicy>;
using Normal = boost::math::normal_distribution<double, FastPolicy>;
}  // namespace

double log_sum_exp(const Eigen::Ref<const Eigen::VectorXd>& values) {
  const double m = values.maxCoeff();
  if (!std::isfinite(m)) return m;
  return m + std::log((values.array() - m).exp().sum());
}

// ---------------------------------------------------------------- generic defaults
double Predictive::quantile(Eigen::Index i, double p) const {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("quantile: p must be in (0, 1)");
  const double m = mean(i);
  double s = std::sqrt(variance(i));
  if (!std::isfinite(s) || s <= 0.0) s = 1.0;
  double lo = m - s, hi = m + s;
  for (int k = 0; k < 200 && cdf(i, lo) > p; ++k) lo -= (hi - lo);
  for (int k = 0; k < 200 && cdf(i, hi) < p; ++k) hi += (hi - lo);
  return solve_quantile(i, p, lo, hi);
}

double Predictive::solve_quantile(Eigen::Index i, double p, double lo, double hi) const {
  auto f = [&](double x) { return cdf(i, x) - p; };
  boost::uintmax_t iterations = 200;
  auto tol = boost::math::tools::eps_tolerance<double>(50);
  const auto [a, b] = boost::math::tools::toms748_solve(f, lo, hi, tol, iterations);
  return 0.5 * (a + b);
}

bool Predictive::between_quantiles(Eigen::Index i, double y, double p_lo, double p_hi) const {
  return y >= quantile(i, p_lo) && y <= quantile(i, p_hi);
}

double Predictive::crps(Eigen::Index i, double y) const {
  // CRPS = int_{-inf}^{y} F(z)^2 dz + int_{y}^{inf} (1 - F(z))^2 dz.
  boost::math::quadrature::exp_sinh<double> integrator;
  const auto lower = [&](double t) {
    const double F = cdf(i, y - t);
    return F * F;
  };
  const auto upper = [&](double t) {
    const double G = 1.0 - cdf(i, y + t);
    return G * G;
  };
  return integrator.integrate(lower, 0.0, std::numeric_limits<double>::infinity()) +
         integrator.integrate(upper, 0.0, std::numeric_limits<double>::infinity());
}

// ---------------------------------------------------------------- Gaussian
GaussianPredictive::GaussianPredictive(Eigen::VectorXd mean, Eigen::VectorXd variance)
    : mean_(std::move(mean)), variance_(std::move(variance)) {
  if (mean_.size() != variance_.size())
    throw std::invalid_argument("GaussianPredictive: mean and variance sizes differ");
}

double GaussianPredictive::log_density(Eigen::Index i, double y) const {
  return normal_log_pdf(y, mean_[i], variance_[i]);
}

double GaussianPredictive::cdf(Eigen::Index i, double y) const {
  return normal_cdf((y - mean_[i]) / std::sqrt(variance_[i]));
}

double GaussianPredictive::quantile(Eigen::Index i, double p) const {
  return boost::math::quantile(Normal(mean_[i], std::sqrt(variance_[i])), p);
}

double GaussianPredictive::crps(Eigen::Index i, double y) const {
  // Closed form (Gneiting & Raftery 2007): s [z (2 Phi(z) - 1) + 2 phi(z) - 1/sqrt(pi)].
  const double s = std::sqrt(variance_[i]);
  const double z = (y - mean_[i]) / s;
  return s * (z * (2.0 * normal_cdf(z) - 1.0) + 2.0 * normal_pdf(z) - 1.0 / std::sqrt(std::numbers::pi));
}

// ---------------------------------------------------------------- Student-t
StudentTPredictive::StudentTPredictive(Eigen::VectorXd location, Eigen::VectorXd scale, double dof)
    : location_(std::move(location)), scale_(std::move(scale)), dof_(dof) {
  if (location_.size() != scale_.size())
    throw std::invalid_argument("StudentTPredictive: location and scale sizes differ");
  if (!(dof_ > 0.0)) throw std::invalid_argument("StudentTPredictive: dof must be > 0");
}

double StudentTPredictive::mean(Eigen::Index i) const {
  return dof_ > 1.0 ? location_[i] : std::numeric_limits<double>::quiet_NaN();
}

double StudentTPredictive::variance(Eigen::Index i) const {
  if (dof_ <= 2.0) return std::numeric_limits<double>::infinity();
  return scale_[i] * scale_[i] * dof_ / (dof_ - 2.0);
}

double StudentTPredictive::log_density(Eigen::Index i, double y) const {
  const double z = (y - location_[i]) / scale_[i];
  return std::lgamma(0.5 * (dof_ + 1.0)) - std::lgamma(0.5 * dof_) - 0.5 * std::log(dof_ * std::numbers::pi) -
         std::log(scale_[i]) - 0.5 * (dof_ + 1.0) * std::log1p(z * z / dof_);
}

double StudentTPredictive::cdf(Eigen::Index i, double y) const {
  return boost::math::cdf(StudentT(dof_), (y - location_[i]) / scale_[i]);
}

double StudentTPredictive::quantile(Eigen::Index i, double p) const {
  return location_[i] + scale_[i] * boost::math::quantile(StudentT(dof_), p);
}

double StudentTPredictive::crps(Eigen::Index i, double y) const {
  if (dof_ <= 1.0) return Predictive::crps(i, y);  // closed form needs a finite mean
  // Closed form for the location-scale t (Jordan, Krueger & Lerch 2019, scoringRules):
  // s [z (2F(z) - 1) + 2 f(z) (nu + z^2)/(nu - 1)
  //    - 2 sqrt(nu) B(1/2, nu - 1/2) / ((nu - 1) B(1/2, nu/2)^2)].
  const double nu = dof_;
  const double s = scale_[i];
  const double z = (y - location_[i]) / s;
  const StudentT t(nu);
  const double F = boost::math::cdf(t, z);
  const double f = boost::math::pdf(t, z);
  const double b_half = boost::math::beta(0.5, 0.5 * nu, FastPolicy());
  const double constant =
      2.0 * std::sqrt(nu) * boost::math::beta(0.5, nu - 0.5, FastPolicy()) / ((nu - 1.0) * b_half * b_half);
  return s * (z * (2.0 * F - 1.0) + 2.0 * f * (nu + z * z) / (nu - 1.0) - constant);
}

// ---------------------------------------------------------------- Gaussian mixture
GaussianMixturePredictive::GaussianMixturePredictive(Eigen::MatrixXd means, Eigen::MatrixXd variances,
                                                     Eigen::VectorXd weights)
    : means_(std::move(means)), variances_(std::move(variances)), weights_(std::move(weights)) {
  if (means_.rows() != variances_.rows() || means_.cols() != variances_.cols())
    throw std::invalid_argument("GaussianMixturePredictive: means and variances differ in shape");
  if (weights_.size() != means_.cols() || means_.cols() == 0)
    throw std::invalid_argument("GaussianMixturePredictive: one weight per component needed");
  if ((weights_.array() < 0.0).any() || !(std::abs(weights_.sum() - 1.0) <= 1e-9))
    throw std::invalid_argument("GaussianMixturePredictive: weights must be >= 0 and sum to 1");
  log_weights_ = weights_.array().log();
}

GaussianMixturePredictive::GaussianMixturePredictive(Eigen::MatrixXd means, Eigen::MatrixXd variances)
    : GaussianMixturePredictive(means, variances,
                                Eigen::VectorXd::Constant(means.cols(), 1.0 / static_cast<double>(means.cols()))) {}

double GaussianMixturePredictive::mean(Eigen::Index i) const { return means_.row(i).dot(weights_); }

double GaussianMixturePredictive::variance(Eigen::Index i) const {
  const double m = mean(i);
  // Law of total variance: E[var] + Var[mean].
  return variances_.row(i).dot(weights_) + (means_.row(i).array() - m).square().matrix().dot(weights_);
}

double GaussianMixturePredictive::log_density(Eigen::Index i, double y) const {
  Eigen::VectorXd terms(means_.cols());
  for (Eigen::Index c = 0; c < means_.cols(); ++c)
    terms[c] = log_weights_[c] + normal_log_pdf(y, means_(i, c), variances_(i, c));
  return log_sum_exp(terms);
}

double GaussianMixturePredictive::cdf(Eigen::Index i, double y) const {
  double F = 0.0;
  for (Eigen::Index c = 0; c < means_.cols(); ++c)
    F += weights_[c] * normal_cdf((y - means_(i, c)) / std::sqrt(variances_(i, c)));
  return F;
}

double GaussianMixturePredictive::crps(Eigen::Index i, double y) const {
  // Closed form (Grimit et al. 2006): sum_c w_c A(y - mu_c, s_c^2)
  //   - 1/2 sum_{c,d} w_c w_d A(mu_c - mu_d, s_c^2 + s_d^2), A(m, v) = E|m + sqrt(v) Z|;
  // the pairs (thousands of squared components for HMC draws) use the tabulated A.
  const Eigen::Index C = means_.cols();
  const auto mean = means_.row(i), variance = variances_.row(i);
  double first = 0.0, second = 0.0;
  for (Eigen::Index c = 0; c < C; ++c) {
    first += weights_[c] * expected_abs_normal_exact(y - mean[c], variance[c]);
    const double pairs = 0.5 * weights_[c] * expected_abs_normal(0.0, 2.0 * variance[c]) +
                         weighted_expected_abs_normal_sum(mean[c], variance[c], mean.data() + c + 1,
                                                          variance.data() + c + 1, weights_.data() + c + 1, C - c - 1);
    second += 2.0 * weights_[c] * pairs;
  }
  return first - 0.5 * second;
}

// ---------------------------------------------------------------- affine map
AffinePredictive::AffinePredictive(std::unique_ptr<Predictive> base, double shift, double scale)
    : base_(std::move(base)), shift_(shift), scale_(scale) {
  if (!base_) throw std::invalid_argument("AffinePredictive: no base distribution");
  if (!(scale_ > 0.0) || !std::isfinite(scale_) || !std::isfinite(shift_))
    throw std::invalid_argument("AffinePredictive: scale must be finite and > 0");
}

double AffinePredictive::mean(Eigen::Index i) const { return shift_ + scale_ * base_->mean(i); }
double AffinePredictive::variance(Eigen::Index i) const { return scale_ * scale_ * base_->variance(i); }
double AffinePredictive::log_density(Eigen::Index i, double y) const {
  return base_->log_density(i, (y - shift_) / scale_) - std::log(scale_);
}
double AffinePredictive::cdf(Eigen::Index i, double y) const { return base_->cdf(i, (y - shift_) / scale_); }
double AffinePredictive::quantile(Eigen::Index i, double p) const { return shift_ + scale_ * base_->quantile(i, p); }
double AffinePredictive::crps(Eigen::Index i, double y) const { return scale_ * base_->crps(i, (y - shift_) / scale_); }
bool AffinePredictive::between_quantiles(Eigen::Index i, double y, double p_lo, double p_hi) const {
  return base_->between_quantiles(i, (y - shift_) / scale_, p_lo, p_hi);
}

}  // namespace bnn
