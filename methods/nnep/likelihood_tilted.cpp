#include "likelihood_tilted.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace bnn::nnep {
namespace {

constexpr double kLog2Pi = 1.83787706640934548356;
constexpr int kThetaNodes = 24;
constexpr int kMaxGridPoints = 2001;

double log_normal(double y, double mean, double variance) {
  const double r = y - mean;
  return -0.5 * (kLog2Pi + std::log(variance) + r * r / variance);
}

// Tilted mean and variance of h ~ q_-(h) N(y | m_f(h), V_f(h) + noise) (eq. (49)) by the
// trapezoid rule on a grid over +-7 cavity sd, fine enough to resolve both the cavity and the
// likelihood's dependence on h. Returns false if the density vanishes on the grid.
bool hidden_unit_moments(const Activation& activation, int k, double cavity_mean, double cavity_variance,
                         const TiltedMoments& t, const OutputCavity& v_cavity, const Eigen::VectorXd& sigma_mg,
                         double mg_sigma_mg, double vg_term, double noise, double y, std::vector<double>& log_density,
                         double& mean, double& variance) {
  const double sd = std::sqrt(cavity_variance);
  const double v_k = v_cavity.mean[k], sigma_kk = v_cavity.covariance(k, k);
  const double slope = activation.linear ? 1.0 : 0.7978845608 / std::sqrt(static_cast<double>(activation.units));
  const double likelihood_width = std::sqrt(noise) / (std::abs(v_k) * slope + 1e-12);
  double step = std::min({sd / 6.0, likelihood_width / 4.0, 0.2});
  int half = static_cast<int>(std::ceil(7.0 * sd / step));
  half = std::min(half, (kMaxGridPoints - 1) / 2);
  step = 7.0 * sd / half;
  const int points = 2 * half + 1;
  log_density.resize(points);
  const double mg_k = t.expected_activation[k];
  const double vg_without_k = vg_term - t.activation_variance[k] * (sigma_kk + v_k * v_k);
  double largest = -std::numeric_limits<double>::infinity();
  for (int p = 0; p < points; ++p) {
    const double h = cavity_mean + (p - half) * step;
    const double dg = activation.value(h) - mg_k;
    // eq. (46) with [m_g]_k = g(h), [V_g]_k = 0
    const double f_mean = t.latent_mean + v_k * dg;
    const double f_var = std::max(mg_sigma_mg + 2.0 * dg * sigma_mg[k] + dg * dg * sigma_kk + vg_without_k, 0.0);
    const double z = (h - cavity_mean) / sd;
    log_density[p] = log_normal(y, f_mean, f_var + noise) - 0.5 * z * z;
    largest = std::max(largest, log_density[p]);
  }
  if (!std::isfinite(largest)) return false;
  double mass = 0.0, first = 0.0, second = 0.0;
  for (int p = 0; p < points; ++p) {
    const double offset = (p - half) * step;
    const double weight = std::exp(log_density[p] - largest);
    mass += weight;
    first += weight * offset;
    second += weight * offset * offset;
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
  log_density.reserve(kMaxGridPoints);
}

double log_fractional_normal(double y, double mean, double variance, double theta, double eta) {
  // Z(theta) = (2 pi exp(theta))^((1 - eta) / 2) eta^(-1/2), after (49)
  const double log_z = 0.5 * (1.0 - eta) * (kLog2Pi + theta) - 0.5 * std::log(eta);
  return log_z + log_normal(y, mean, variance + std::exp(theta) / eta);
}

const TiltedMoments& site_tilted_moments(const std::vector<Activation>& activations,
                                         const Eigen::VectorXd& cavity_h_mean,
                                         const Eigen::VectorXd& cavity_h_variance, const OutputCavity& v_cavity,
                                         double theta_mean, double theta_variance, bool learn_theta, double y,
                                         double eta, LikelihoodWorkspace& workspace) {
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
  const double vg_term =
      t.activation_variance.dot(v_cavity.covariance.diagonal() + v_cavity.mean.cwiseAbs2());
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
      log_weight[j] = std::log(rule.weights[j]) + log_fractional_normal(y, t.latent_mean, t.latent_variance, theta[j], eta);
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
    t.b_hat = precision_mean;                                                   // eq. (51)
    t.a_hat = precision_mean - residual * residual * precision_variance;        // eq. (52)
    theta_for_h = t.theta_mean;                                                 // eq. (54)
    if (!(t.theta_variance > 0.0)) {
      t.ok = false;
      return t;
    }
  }
  const double noise = std::exp(theta_for_h) / eta;
  for (int k = 0; k < K; ++k) {
    if (!hidden_unit_moments(activations[k], k, cavity_h_mean[k], cavity_h_variance[k], t, v_cavity, sigma_mg,
                             mg_sigma_mg, vg_term, noise, y, workspace.log_density, t.h_mean[k], t.h_variance[k])) {
      t.ok = false;
      return t;
    }
  }
  return t;
}

}  // namespace bnn::nnep
