#include "likelihood_tilted.hpp"

#include <algorithm>
#include <array>
#include <boost/math/quadrature/gauss.hpp>
#include <cmath>
#include <limits>
#include <numbers>

#include "methods/core/vector_math.hpp"
#include "prior_sites.hpp"

#include "methods/core/normal.hpp"

namespace bnn::nnep {
namespace {

constexpr int kThetaNodes = 24;
constexpr int kMaxGridPoints = 2001;

// Tilted mean and variance of h ~ q_-(h) N(y | m_f(h), V_f(h) + noise) (eq. (49)), with q_-(h)
// = N(m, V). Composite 8-point Gauss-Legendre over m +- 7 sd, in panels no wider than 2.5 sd,
// 2 (erf bends over about 1) or three times the width over which the likelihood changes with h. An erf
// unit is saturated beyond |h| = 8.5 (erf(8.5 / sqrt 2) = 1 - 2e-17), where the likelihood no
// longer depends on h: those tails are truncated-Gaussian integrals done in closed form.
bool hidden_unit_moments(const HiddenUnit& activation, int k, double cavity_mean, double cavity_variance,
                         const TiltedMoments& t, const OutputCavity& v_cavity, const Eigen::VectorXd& sigma_mg,
                         double mg_sigma_mg, double vg_term, double noise, double y, LikelihoodWorkspace& workspace,
                         double& mean, double& variance) {
  using Legendre = boost::math::quadrature::gauss<double, 8>;
  const double sd = std::sqrt(cavity_variance);
  const double v_k = v_cavity.mean[k], sigma_kk = v_cavity.covariance(k, k);
  const double slope = activation.linear ? 1.0 : 0.7978845608 / std::sqrt(static_cast<double>(activation.units));
  const double likelihood_width = std::sqrt(noise) / (std::abs(v_k) * slope + 1e-12);
  const double mg_k = t.expected_activation[k];
  const double vg_without_k = vg_term - t.activation_variance[k] * (sigma_kk + v_k * v_k);
  // The mean and variance of f given g = g(h), eq. (46) with [m_g]_k = g(h), [V_g]_k = 0.
  const double latent_mean = t.latent_mean, sigma_mg_k = sigma_mg[k];
  const auto latent_given_g = [=](double g, double& f_mean, double& f_var) {
    const double dg = g - mg_k;
    f_mean = latent_mean + v_k * dg;
    f_var = std::max(mg_sigma_mg + 2.0 * dg * sigma_mg_k + dg * dg * sigma_kk + vg_without_k, 0.0);
  };
  constexpr double kSaturation = 8.5;
  double lo = cavity_mean - 7.0 * sd, hi = cavity_mean + 7.0 * sd;
  const bool lower_tail = !activation.linear && lo < -kSaturation;
  const bool upper_tail = !activation.linear && hi > kSaturation;
  if (lower_tail) lo = std::min(-kSaturation, hi);
  if (upper_tail) hi = std::max(kSaturation, lo);
  // Node p's log mass is exponent[p] + log(scale[p]), its likelihood N(y | m_f, V) written as
  // exp(-(log 2 pi + r^2 / V) / 2) times V^(-1/2): no logarithm per node. In passes: erf and
  // exp of all nodes at once (core/vector_math.hpp), the arithmetic between them vectorized.
  std::vector<double>& offset = workspace.offsets;                // h - cavity mean
  std::vector<double>& activation_value = workspace.activations;  // g(h)
  std::vector<double>& exponent = workspace.exponents;
  std::vector<double>& scale = workspace.scales;
  std::size_t nodes = 0;
  if (hi > lo) {
    const double panel_limit = std::min({2.5 * sd, 2.0, 3.0 * likelihood_width});
    const int panels = std::clamp(static_cast<int>(std::ceil((hi - lo) / panel_limit)), 1, kMaxGridPoints / 8);
    const double width = (hi - lo) / panels;
    const auto& abscissa = Legendre::abscissa();
    const auto& weights = Legendre::weights();
    std::array<double, 4> log_weight{};  // the 8-point rule stores 4 abscissas (+-)
    for (std::size_t q = 0; q < abscissa.size(); ++q) log_weight[q] = std::log(0.5 * width * weights[q]);
    nodes = static_cast<std::size_t>(panels) * 8;
    for (auto* buffer : {&offset, &activation_value, &exponent, &scale}) buffer->resize(nodes);
    std::size_t n = 0;
    for (int p = 0; p < panels; ++p) {
      const double centre = lo + (p + 0.5) * width;
      for (std::size_t q = 0; q < abscissa.size(); ++q)
        for (double sign : {-1.0, 1.0}) {
          const double h = centre + sign * 0.5 * width * abscissa[q];
          offset[n] = h - cavity_mean;
          exponent[n] = log_weight[q];
          activation_value[n] = h;
          ++n;
        }
    }
    activation.values(activation_value.data(), nodes);
    const double* offset_data = offset.data();
    const double* activation_data = activation_value.data();
    double* exponent_data = exponent.data();
    double* scale_data = scale.data();
#pragma omp simd
    for (std::size_t i = 0; i < nodes; ++i) {
      double f_mean = 0.0, f_var = 0.0;
      latent_given_g(activation_data[i], f_mean, f_var);
      const double z = offset_data[i] / sd;
      const double r = y - f_mean, variance_y = f_var + noise;
      exponent_data[i] -= 0.5 * (kLog2Pi + r * r / variance_y + z * z);
      scale_data[i] = 1.0 / std::sqrt(variance_y);
    }
  }
  // tails: log of L(+-8.5) sd sqrt(2 pi) P(tail), and E[Z], E[Z^2] of the truncated standard normal
  double tail_log_mass[2] = {-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  double tail_first[2] = {0.0, 0.0}, tail_second[2] = {0.0, 0.0};
  for (int side = 0; side < 2; ++side) {
    if (!(side == 0 ? lower_tail : upper_tail)) continue;
    const double edge = side == 0 ? -kSaturation : kSaturation;
    const double z = (edge - cavity_mean) / sd;
    const double log_p = side == 0 ? log_normal_cdf(z) : log_normal_cdf(-z);
    const double mills = inverse_mills(side == 0 ? z : -z, log_p);
    double f_mean = 0.0, f_var = 0.0;
    latent_given_g(activation.value(edge), f_mean, f_var);
    tail_log_mass[side] = normal_log_pdf_split(y, f_mean, f_var + noise) + std::log(sd) + 0.5 * kLog2Pi + log_p;
    tail_first[side] = side == 0 ? -mills : mills;
    tail_second[side] = side == 0 ? 1.0 - z * mills : 1.0 + z * mills;
  }
  // Shifted by the largest exponent; the scales, V^(-1/2) with V >= the noise, cannot overflow.
  double largest = std::max(tail_log_mass[0], tail_log_mass[1]);
  for (std::size_t p = 0; p < nodes; ++p) largest = std::max(largest, exponent[p]);
  if (!std::isfinite(largest)) return false;
  for (std::size_t p = 0; p < nodes; ++p) exponent[p] -= largest;
  vector_math::exp(exponent.data(), exponent.data(), nodes);  // now exp(exponent - largest)
  double mass = 0.0, first = 0.0, second = 0.0;
  for (std::size_t p = 0; p < nodes; ++p) {
    const double weight = exponent[p] * scale[p];
    mass += weight;
    first += weight * offset[p];
    second += weight * offset[p] * offset[p];
  }
  for (int side = 0; side < 2; ++side) {
    const double weight = std::exp(tail_log_mass[side] - largest);
    mass += weight;
    first += weight * sd * tail_first[side];
    second += weight * cavity_variance * tail_second[side];
  }
  const double shift = first / mass;
  mean = cavity_mean + shift;
  variance = second / mass - shift * shift;
  return variance > 0.0 && std::isfinite(mean);
}

}  // namespace

LikelihoodWorkspace::LikelihoodWorkspace(int units) : theta_rule(hermite_rule(kThetaNodes)) {
  result.expected_activation.resize(units + 1);
  result.activation_variance.resize(units + 1);
  result.h_mean.resize(units);
  result.h_variance.resize(units);
  for (auto* buffer : {&offsets, &activations, &exponents, &scales}) buffer->reserve(kMaxGridPoints);
}

double log_fractional_normal(double y, double mean, double variance, double theta, double eta) {
  // Z(theta) = (2 pi exp(theta))^((1 - eta) / 2) eta^(-1/2), after (49)
  const double log_z = 0.5 * (1.0 - eta) * (kLog2Pi + theta) - 0.5 * std::log(eta);
  return log_z + normal_log_pdf_split(y, mean, variance + std::exp(theta) / eta);
}

const TiltedMoments& site_tilted_moments(const std::vector<HiddenUnit>& activations,
                                         const Eigen::VectorXd& cavity_h_mean, const Eigen::VectorXd& cavity_h_variance,
                                         const OutputCavity& v_cavity, double theta_mean, double theta_variance,
                                         bool learn_theta, double y, double eta, LikelihoodWorkspace& workspace) {
  TiltedMoments& t = workspace.result;
  t.ok = true;
  const int K = static_cast<int>(cavity_h_mean.size());
  for (int k = 0; k < K; ++k) {
    t.expected_activation[k] = activations[k].mean(cavity_h_mean[k], cavity_h_variance[k]);
    t.activation_variance[k] = activations[k].variance(cavity_h_mean[k], cavity_h_variance[k]);
  }
  t.expected_activation[K] = 1.0;
  t.activation_variance[K] = 0.0;
  // eq. (46)
  const Eigen::VectorXd sigma_mg = v_cavity.covariance * t.expected_activation;
  const double mg_sigma_mg = t.expected_activation.dot(sigma_mg);
  const double vg_term = t.activation_variance.dot(v_cavity.covariance.diagonal() + v_cavity.mean.cwiseAbs2());
  t.latent_mean = v_cavity.mean.dot(t.expected_activation);
  t.latent_variance = mg_sigma_mg + vg_term;
  const double residual = y - t.latent_mean;

  double theta_for_h = theta_mean;
  if (!learn_theta) {
    // known noise, eq. (45) and (50) at fixed theta
    const double precision = 1.0 / (t.latent_variance + std::exp(theta_mean) / eta);
    t.a_hat = t.b_hat = precision;
    t.theta_mean = theta_mean;
    t.theta_variance = 0.0;
    t.log_normalizer = log_fractional_normal(y, t.latent_mean, t.latent_variance, theta_mean, eta);
  } else {
    // eq. (50)-(52): Gauss-Hermite over the theta cavity
    const HermiteRule& rule = workspace.theta_rule;
    const double sd = std::sqrt(theta_variance);
    const int nodes = static_cast<int>(rule.nodes.size());
    double largest = -std::numeric_limits<double>::infinity();
    Eigen::VectorXd log_weight(nodes), theta(nodes), precision(nodes);
    for (int j = 0; j < nodes; ++j) {
      theta[j] = theta_mean + sd * rule.nodes[j];
      precision[j] = 1.0 / (t.latent_variance + std::exp(theta[j]) / eta);
      log_weight[j] =
          std::log(rule.weights[j]) + log_fractional_normal(y, t.latent_mean, t.latent_variance, theta[j], eta);
      largest = std::max(largest, log_weight[j]);
    }
    if (!std::isfinite(largest)) {
      t.ok = false;
      return t;
    }
    const Eigen::VectorXd weight = (log_weight.array() - largest).exp();
    const double mass = weight.sum();
    const Eigen::VectorXd p = weight / mass;
    t.log_normalizer = largest + std::log(mass);
    t.theta_mean = p.dot(theta);
    t.theta_variance = p.dot((theta.array() - t.theta_mean).square().matrix());
    const double precision_mean = p.dot(precision);
    const double precision_variance = p.dot((precision.array() - precision_mean).square().matrix());
    t.b_hat = precision_mean;                                             // eq. (51)
    t.a_hat = precision_mean - residual * residual * precision_variance;  // eq. (52)
    theta_for_h = t.theta_mean;                                           // eq. (54)
    if (!(t.theta_variance > 0.0)) {
      t.ok = false;
      return t;
    }
  }
  const double noise = std::exp(theta_for_h) / eta;
  for (int k = 0; k < K; ++k) {
    if (!hidden_unit_moments(activations[k], k, cavity_h_mean[k], cavity_h_variance[k], t, v_cavity, sigma_mg,
                             mg_sigma_mg, vg_term, noise, y, workspace, t.h_mean[k], t.h_variance[k])) {
      t.ok = false;
      return t;
    }
  }
  return t;
}

}  // namespace bnn::nnep
