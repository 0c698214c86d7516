#include "marginal_likelihood.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <limits>

#include "output_site.hpp"
#include "prior_sites.hpp"

#include "methods/core/normal.hpp"

namespace bnn::nnep {
namespace {

// Psi(mu, Sigma) = log int exp(-w' Sigma^-1 w / 2 + nu' w) dw for a scalar Gaussian (Appendix I).
double psi(double mean, double variance) {
  return 0.5 * mean * mean / variance + 0.5 * std::log(variance) + 0.5 * kLog2Pi;
}
double psi(const Eigen::VectorXd& mean, const Eigen::MatrixXd& covariance) {
  const Eigen::LLT<Eigen::MatrixXd> llt(covariance);
  const double log_det = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
  return 0.5 * mean.dot(llt.solve(mean)) + 0.5 * log_det + 0.5 * static_cast<double>(mean.size()) * kLog2Pi;
}

}  // namespace

double log_marginal_likelihood(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& o,
                               const std::vector<HiddenUnit>& activations, const std::vector<int>& group,
                               bool theta_learned, bool input_prior_ran, bool output_prior_ran, const Sites& sites,
                               const Approximation& q, LikelihoodWorkspace& workspace) {
  const Eigen::Index n = X.rows(), d = X.cols();
  const int K = o.hidden_units;
  const double eta = o.eta;
  const double fixed_theta = 2.0 * std::log(o.initial_noise_sd);
  double total = psi(q.v_mean, q.v_cov);
  for (int k = 0; k < K; ++k) total += psi(q.w_mean[k], q.w_cov[k]);
  const double theta_var = 1.0 / q.theta_tau, theta_mean = q.theta_nu / q.theta_tau;
  if (theta_learned) total += psi(theta_mean, theta_var) - psi(o.theta_prior_mean, o.theta_prior_variance);
  const Eigen::VectorXd v_natural = q.v_cov.llt().solve(q.v_mean);
  Eigen::VectorXd cavity_mean(K), cavity_var(K);
  double likelihood_terms = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto x = X.row(i).transpose();
    double line = 0.0;
    for (int k = 0; k < K; ++k) {
      const double h_var = x.dot(q.w_cov[k] * x), h_mean = x.dot(q.w_mean[k]);
      double m, v;
      if (!scalar_cavity(h_mean, h_var, sites.tau(i, k), sites.nu(i, k), eta, m, v))
        return std::numeric_limits<double>::quiet_NaN();
      cavity_mean[k] = m;
      cavity_var[k] = v;
      line += psi(m, v) - psi(h_mean, h_var);
    }
    const Eigen::VectorXd alpha = sites.alpha.row(i).transpose(), beta = sites.beta.row(i).transpose();
    const OutputCavity v_cavity = output_cavity(q.v_mean, q.v_cov, alpha, beta, eta);
    double theta_cavity_mean = fixed_theta, theta_cavity_var = 0.0;
    if (theta_learned) {
      if (!scalar_cavity(theta_mean, theta_var, sites.theta_tau[i], sites.theta_nu[i], eta, theta_cavity_mean,
                         theta_cavity_var))
        return std::numeric_limits<double>::quiet_NaN();
      line += psi(theta_cavity_mean, theta_cavity_var) - psi(theta_mean, theta_var);
    }
    if (!v_cavity.ok) return std::numeric_limits<double>::quiet_NaN();
    const TiltedMoments& tilted = site_tilted_moments(activations, cavity_mean, cavity_var, v_cavity, theta_cavity_mean,
                                                      theta_cavity_var, theta_learned, y[i], eta, workspace);
    if (!tilted.ok) return std::numeric_limits<double>::quiet_NaN();
    line += tilted.log_normalizer;
    // line 3 of (69): Psi(mu_-i, Sigma_-i) - Psi(mu_v, Sigma_v) with log|Sigma_-i| - log|Sigma_v| = -log(s eta)
    const Eigen::VectorXd cavity_natural = v_natural - eta * beta;
    line += 0.5 * (v_cavity.mean.dot(cavity_natural) - q.v_mean.dot(v_natural) - std::log(v_cavity.s * eta));
    likelihood_terms += line;
  }
  total += likelihood_terms / eta;
  // line 4: input-weight priors
  if (input_prior_ran) {
    const InputPrior family = o.prior;
    const double prior_eta = o.prior_eta;
    double prior_terms = 0.0;
    for (int k = 0; k < K; ++k)
      for (Eigen::Index j = 0; j < d; ++j) {
        const int l = group[static_cast<std::size_t>(k) * d + j];
        const InputPriorCavity c = input_prior_cavity(sites, q, k, j, l, prior_eta);
        if (!c.ok) return std::numeric_limits<double>::quiet_NaN();
        const PriorTilted tilted = hierarchical_tilted(family, c.w_cavity_mean, c.w_cavity_variance, c.phi_cavity_mean,
                                                       c.phi_cavity_variance, prior_eta);
        prior_terms += tilted.log_normalizer + psi(c.w_cavity_mean, c.w_cavity_variance) - psi(c.mean, c.variance) +
                       psi(c.phi_cavity_mean, c.phi_cavity_variance) - psi(c.phi_mean, c.phi_variance);
      }
    total += prior_terms / prior_eta;
    for (Eigen::Index l = 0; l < q.phi_tau.size(); ++l)
      total += psi(q.phi_nu[l] / q.phi_tau[l], 1.0 / q.phi_tau[l]) - psi(o.phi_prior_mean, o.phi_prior_variance);
  } else {
    for (int k = 0; k < K; ++k)
      for (Eigen::Index j = 0; j < d; ++j) total -= psi(sites.w_nu(k, j) / sites.w_tau(k, j), 1.0 / sites.w_tau(k, j));
  }
  // line 5: output-weight priors
  if (output_prior_ran) {
    double prior_terms = 0.0;
    for (int k = 0; k < K; ++k) {
      const double mean = q.v_mean[k], variance = q.v_cov(k, k);
      double cm, cv;
      if (!scalar_cavity(mean, variance, sites.v_tau[k], sites.v_nu[k], o.prior_eta, cm, cv))
        return std::numeric_limits<double>::quiet_NaN();
      const PriorTilted tilted = truncated_t_tilted(cm, cv, o.output_weight_dof, o.output_weight_scale, o.prior_eta);
      prior_terms += tilted.log_normalizer + psi(cm, cv) - psi(mean, variance);
    }
    total += prior_terms / o.prior_eta;
  } else {
    for (int k = 0; k < K; ++k) total -= psi(sites.v_nu[k] / sites.v_tau[k], 1.0 / sites.v_tau[k]);
  }
  // line 6: the fixed Gaussian prior of v_0 (theta's and phi's are paired with their q above)
  total -= psi(0.0, o.output_bias_variance);
  return total;
}

}  // namespace bnn::nnep
