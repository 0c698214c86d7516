#include "nnep.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "activation.hpp"
#include "gauss_hermite.hpp"
#include "likelihood_tilted.hpp"
#include "methods/core/options.hpp"
#include "output_site.hpp"
#include "prior_sites.hpp"

namespace bnn::nnep {

void Options::validate() const {
  const char* name = prior == "gaussian" ? "nn-ep-ard" : "nn-ep-la";
  require_at_least(name, "hidden_units", hidden_units, 1);
  require_at_least(name, "linear_units", linear_units, 0);
  require_below(name, "linear_units", linear_units, hidden_units + 1);
  if (prior != "laplace" && prior != "gaussian")
    throw std::invalid_argument(std::string(name) + ": prior is '" + prior + "', but must be laplace or gaussian");
  if (scale_groups != "common" && scale_groups != "input" && scale_groups != "unit" && scale_groups != "weight")
    throw std::invalid_argument(std::string(name) + ": scale_groups is '" + scale_groups +
                                "', but must be common, input, unit or weight");
  require_positive(name, "phi_prior_variance", phi_prior_variance);
  require_positive(name, "theta_prior_variance", theta_prior_variance);
  require_positive(name, "output_weight_dof", output_weight_dof);
  require_positive(name, "output_weight_scale", output_weight_scale);
  require_positive(name, "output_bias_variance", output_bias_variance);
  for (const auto& [option, value] : {std::pair{"eta", eta}, {"prior_eta", prior_eta}, {"damping_w", damping_w},
                                      {"damping_v", damping_v}, {"damping_theta", damping_theta},
                                      {"damping_prior", damping_prior}}) {
    if (!(value > 0.0 && value <= 1.0))
      throw std::invalid_argument(std::string(name) + ": " + option + " is " + option_detail::format_double(value) +
                                  ", but must be in (0, 1]");
  }
  require_positive(name, "tau_min", tau_min);
  require_positive(name, "initial_noise_sd", initial_noise_sd);
  require_positive(name, "initial_weight_variance", initial_weight_variance);
  require_positive(name, "initial_bias_variance", initial_bias_variance);
  require_positive(name, "initial_output_variance", initial_output_variance);
  require_at_least(name, "initial_output_high", initial_output_high, initial_output_low);
  require_at_least(name, "initial_iterations", initial_iterations, 0);
  require_at_least(name, "prior_start", prior_start, initial_iterations);
  require_at_least(name, "max_iterations", max_iterations, 1);
  require_positive(name, "tolerance", tolerance);
}

Options laplace_defaults() { return Options{}; }

Options ard_defaults() {
  Options options;
  options.prior = "gaussian";
  options.scale_groups = "input";
  return options;
}

}  // namespace bnn::nnep

namespace bnn::nnep {
namespace {

constexpr double kLog2Pi = 1.83787706640934548356;

// Weight (k, j) of hidden unit k and input j (bias last) sits at k * d + j.
std::vector<int> make_scale_groups(const std::string& scheme, int units, int inputs) {
  std::vector<int> group(static_cast<std::size_t>(units) * inputs);
  for (int k = 0; k < units; ++k)
    for (int j = 0; j < inputs; ++j) {
      const std::size_t index = static_cast<std::size_t>(k) * inputs + j;
      group[index] = scheme == "common" ? 0 : scheme == "input" ? j : scheme == "unit" ? k : static_cast<int>(index);
    }
  return group;
}

// Site parameters in natural form (Appendix I, footnote 5).
struct Sites {
  Eigen::MatrixXd tau, nu;        // likelihood sites of h_ik (n x K), eq. (35)
  Eigen::MatrixXd alpha, beta;    // likelihood sites of v (n x (K + 1)), eq. (35)
  Eigen::VectorXd theta_tau, theta_nu;  // likelihood sites of theta (n), eq. (12)
  Eigen::MatrixXd w_tau, w_nu;    // prior sites of w_j (K x d), eq. (14)
  Eigen::MatrixXd phi_tau, phi_nu;  // prior sites of phi_{l_j} (K x d), eq. (14)
  Eigen::VectorXd v_tau, v_nu;    // prior sites of v_k (K), eq. (13)
};

// The approximation q: moment form for the weights, natural form for theta and phi.
struct Approximation {
  std::vector<Eigen::MatrixXd> w_cov;
  std::vector<Eigen::VectorXd> w_mean;
  Eigen::MatrixXd v_cov;
  Eigen::VectorXd v_mean;
  double theta_tau = 0.0, theta_nu = 0.0;
  Eigen::VectorXd phi_tau, phi_nu;
};

// Eq. (36): q(w_k) from its likelihood and prior sites. False if the precision is not positive definite.
bool recompute_input_weights(const Eigen::MatrixXd& X, const Sites& sites, int k, Approximation& q) {
  const Eigen::Index d = X.cols();
  Eigen::MatrixXd precision = X.transpose() * sites.tau.col(k).asDiagonal() * X;
  precision.diagonal() += sites.w_tau.row(k).transpose();
  const Eigen::VectorXd linear = X.transpose() * sites.nu.col(k) + sites.w_nu.row(k).transpose();
  Eigen::LLT<Eigen::MatrixXd> llt(precision);
  if (llt.info() != Eigen::Success) return false;
  q.w_cov[k] = llt.solve(Eigen::MatrixXd::Identity(d, d));
  q.w_mean[k] = llt.solve(linear);
  return true;
}

// Eq. (37): q(v) from the output-weight likelihood sites, the prior sites and p(v_0).
bool recompute_output_weights(const Sites& sites, double output_bias_variance, Approximation& q) {
  const Eigen::Index size = sites.alpha.cols();
  Eigen::MatrixXd precision = sites.alpha.transpose() * sites.alpha;
  Eigen::VectorXd linear = sites.beta.colwise().sum().transpose();
  precision.diagonal().head(size - 1) += sites.v_tau;
  precision(size - 1, size - 1) += 1.0 / output_bias_variance;
  linear.head(size - 1) += sites.v_nu;
  Eigen::LLT<Eigen::MatrixXd> llt(precision);
  if (llt.info() != Eigen::Success) return false;
  q.v_cov = llt.solve(Eigen::MatrixXd::Identity(size, size));
  q.v_mean = llt.solve(linear);
  return true;
}

// Sherman-Morrison update of N(mean, cov) after adding delta_tau (x'w)^2/2 - delta_nu x'w to
// the negative log density; `cov_x` = cov x and `variance` = x' cov x before the update.
void rank_one_update(Eigen::MatrixXd& cov, Eigen::VectorXd& mean, const Eigen::VectorXd& cov_x, double variance,
                     double current_mean, double delta_tau, double delta_nu) {
  const double s = 1.0 + delta_tau * variance;
  cov.noalias() -= (delta_tau / s) * cov_x * cov_x.transpose();
  mean += cov_x * ((delta_nu - delta_tau * current_mean) / s);
}

// What one sweep over the likelihood sites changes and measures.
struct SweepControl {
  bool learn_theta = false;
  double fixed_theta = 0.0;
  double damping_w = 0.0, damping_v = 0.0, damping_theta = 0.0;
  bool sequential = true;
};
struct SweepResult {
  double log_z_loo = 0.0;        // sum_i log Z_i
  double max_mean_change = 0.0;  // max |m_hat - m| over i, k (h_ik)
  double max_variance_change = 0.0;  // max |V_hat - V| / V
  long skipped = 0;
};

// Lines 2-5 of Algorithm 1: cavities (39)-(41), tilted moments (45)-(54), site updates
// (57)-(61) and, if sequential, rank-one updates of q(w_k) and q(theta). q(v) is not touched
// (its parallel update follows the sweep).
SweepResult likelihood_sweep(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& o,
                             const std::vector<Activation>& activations, const SweepControl& control, Sites& sites,
                             Approximation& q, LikelihoodWorkspace& workspace) {
  const Eigen::Index n = X.rows();
  const int K = o.hidden_units;
  const double eta = o.eta;
  SweepResult result;
  Eigen::MatrixXd cov_x(X.cols(), K);
  Eigen::VectorXd h_mean(K), h_var(K), cavity_mean(K), cavity_var(K);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto x = X.row(i).transpose();
    bool proper = true;
    for (int k = 0; k < K && proper; ++k) {
      cov_x.col(k).noalias() = q.w_cov[k] * x;
      h_var[k] = x.dot(cov_x.col(k));
      h_mean[k] = x.dot(q.w_mean[k]);
      const double precision = 1.0 / h_var[k] - eta * sites.tau(i, k);  // eq. (39)
      proper = precision > 0.0 && h_var[k] > 0.0;
      cavity_var[k] = 1.0 / precision;
      cavity_mean[k] = cavity_var[k] * (h_mean[k] / h_var[k] - eta * sites.nu(i, k));
    }
    const OutputCavity v_cavity =
        output_cavity(q.v_mean, q.v_cov, sites.alpha.row(i).transpose(), sites.beta.row(i).transpose(), eta);
    double theta_cavity_mean = control.fixed_theta, theta_cavity_var = 0.0;
    if (control.learn_theta) {
      const double precision = q.theta_tau - eta * sites.theta_tau[i];  // eq. (41)
      proper = proper && precision > 0.0;
      theta_cavity_var = 1.0 / precision;
      theta_cavity_mean = theta_cavity_var * (q.theta_nu - eta * sites.theta_nu[i]);
    }
    if (!proper || !v_cavity.ok) {
      ++result.skipped;
      continue;
    }
    const TiltedMoments& tilted = site_tilted_moments(activations, cavity_mean, cavity_var, v_cavity, theta_cavity_mean,
                                                     theta_cavity_var, control.learn_theta, y[i], eta,
                                                     workspace);
    if (!tilted.ok) {
      ++result.skipped;
      continue;
    }
    // eqs. (55)-(59): the output-weight site
    const OutputSite matched = matched_output_site(tilted.expected_activation, v_cavity, tilted.a_hat, tilted.b_hat,
                                                   y[i] - tilted.latent_mean, eta);
    if (!matched.ok) {
      ++result.skipped;
      continue;
    }
    result.log_z_loo += tilted.log_normalizer;
    if (control.damping_v > 0.0) {
      const OutputSite damped = damped_output_site(sites.alpha.row(i).transpose(), sites.beta.row(i).transpose(),
                                                   matched, v_cavity, control.damping_v, eta);
      sites.alpha.row(i) = damped.alpha.transpose();
      sites.beta.row(i) = damped.beta.transpose();
    }
    // eq. (60): the input-weight sites, with more damping when a variance grows (Appendix G)
    for (int k = 0; k < K; ++k) {
      const double tilted_var = tilted.h_variance[k], tilted_mean = tilted.h_mean[k];
      result.max_mean_change = std::max(result.max_mean_change, std::abs(tilted_mean - h_mean[k]));
      result.max_variance_change = std::max(result.max_variance_change, std::abs(tilted_var - h_var[k]) / h_var[k]);
      if (control.damping_w <= 0.0) continue;
      double delta_tau = (1.0 / tilted_var - 1.0 / h_var[k]) / eta;
      double delta_nu = (tilted_mean / tilted_var - h_mean[k] / h_var[k]) / eta;
      double delta = delta_tau < 0.0 ? 0.5 * control.damping_w : control.damping_w;
      // keep q(w_k) positive definite: 1 + delta_tau V > 0 (Appendix G)
      while (1.0 + delta * delta_tau * h_var[k] < 1e-3 && delta > 1e-6) delta *= 0.5;
      delta_tau *= delta;
      delta_nu *= delta;
      sites.tau(i, k) += delta_tau;
      sites.nu(i, k) += delta_nu;
      if (control.sequential)
        rank_one_update(q.w_cov[k], q.w_mean[k], cov_x.col(k), h_var[k], h_mean[k], delta_tau, delta_nu);
    }
    // eq. (61): the noise site, q(theta) updated at once
    if (control.learn_theta && control.damping_theta > 0.0) {
      const double q_var = 1.0 / q.theta_tau, q_mean = q.theta_nu / q.theta_tau;
      const double delta_tau = control.damping_theta / eta * (1.0 / tilted.theta_variance - 1.0 / q_var);
      const double delta_nu =
          control.damping_theta / eta * (tilted.theta_mean / tilted.theta_variance - q_mean / q_var);
      if (q.theta_tau + delta_tau > 0.0) {
        sites.theta_tau[i] += delta_tau;
        sites.theta_nu[i] += delta_nu;
        q.theta_tau += delta_tau;
        q.theta_nu += delta_nu;
      }
    }
  }
  return result;
}


std::vector<Activation> make_activations(int units, int linear_units) {
  std::vector<Activation> activations(units);
  for (int k = 0; k < units; ++k) activations[k] = Activation{units, k < linear_units};
  return activations;
}

// Appendix F step 3 with the tau_min constraint of Appendix G: the damped change of a prior
// site (tau, nu) from the marginal q and the tilted moments; false if nothing is to be done.
bool prior_site_step(double marginal_mean, double marginal_variance, const PriorTilted& tilted, double site_tau,
                     double delta, double eta, double tau_min, double& delta_tau, double& delta_nu) {
  double tilted_precision = 1.0 / tilted.variance;
  delta_tau = delta / eta * (tilted_precision - 1.0 / marginal_variance);
  if (site_tau + delta_tau < tau_min) {
    tilted_precision = 1.0 / marginal_variance + eta / delta * (tau_min - site_tau);
    delta_tau = tau_min - site_tau;
  }
  delta_nu = delta / eta * (tilted.mean * tilted_precision - marginal_mean / marginal_variance);
  return std::isfinite(delta_tau) && std::isfinite(delta_nu) && 1.0 + delta_tau * marginal_variance > 1e-6;
}

// Cavity of a one-dimensional site: false if improper.
bool scalar_cavity(double mean, double variance, double site_tau, double site_nu, double eta, double& cavity_mean,
                   double& cavity_variance) {
  const double precision = 1.0 / variance - eta * site_tau;
  if (!(precision > 0.0)) return false;
  cavity_variance = 1.0 / precision;
  cavity_mean = cavity_variance * (mean / variance - eta * site_nu);
  return true;
}

// Line 8: EP on the truncated Student-t priors (5) of v_1..v_K with sequential rank-one updates
// of q(v), until the sites stop moving or `sweeps` are used. Returns the largest last change.
double output_prior_ep(const Options& o, int sweeps, Sites& sites, Approximation& q) {
  const int K = o.hidden_units;
  const double eta = o.prior_eta;
  double largest_change = 0.0;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    largest_change = 0.0;
    for (int k = 0; k < K; ++k) {
      const double mean = q.v_mean[k], variance = q.v_cov(k, k);
      double cavity_mean, cavity_variance;
      if (!scalar_cavity(mean, variance, sites.v_tau[k], sites.v_nu[k], eta, cavity_mean, cavity_variance)) continue;
      const PriorTilted tilted =
          truncated_t_tilted(cavity_mean, cavity_variance, o.output_weight_dof, o.output_weight_scale, eta);
      double delta_tau, delta_nu;
      if (!tilted.ok || !prior_site_step(mean, variance, tilted, sites.v_tau[k], o.damping_prior, eta, o.tau_min,
                                         delta_tau, delta_nu))
        continue;
      sites.v_tau[k] += delta_tau;
      sites.v_nu[k] += delta_nu;
      const Eigen::VectorXd column = q.v_cov.col(k);
      rank_one_update(q.v_cov, q.v_mean, column, variance, mean, delta_tau, delta_nu);
      largest_change = std::max(largest_change, std::abs(q.v_mean[k] - mean) / std::sqrt(variance));
    }
    if (largest_change < 1e-4) break;
  }
  return largest_change;
}

// Line 1: EP on the hierarchical input-weight priors p(w_j | phi_l) (Appendix F), sequential
// over the weights, with rank-one updates of q(w_k) and scalar updates of q(phi_l).
double input_prior_ep(const std::vector<int>& group, const Options& o, int sweeps, Sites& sites, Approximation& q) {
  const int K = o.hidden_units;
  const Eigen::Index d = sites.w_tau.cols();
  const double eta = o.prior_eta;
  const InputPrior family = o.prior == "gaussian" ? InputPrior::gaussian : InputPrior::laplace;
  double largest_change = 0.0;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    largest_change = 0.0;
    for (int k = 0; k < K; ++k)
      for (Eigen::Index j = 0; j < d; ++j) {
        const int l = group[static_cast<std::size_t>(k) * d + j];
        const double mean = q.w_mean[k][j], variance = q.w_cov[k](j, j);
        const double phi_variance = 1.0 / q.phi_tau[l], phi_mean = q.phi_nu[l] / q.phi_tau[l];
        double w_cavity_mean, w_cavity_variance, phi_cavity_mean, phi_cavity_variance;
        if (!scalar_cavity(mean, variance, sites.w_tau(k, j), sites.w_nu(k, j), eta, w_cavity_mean,
                           w_cavity_variance) ||
            !scalar_cavity(phi_mean, phi_variance, sites.phi_tau(k, j), sites.phi_nu(k, j), eta, phi_cavity_mean,
                           phi_cavity_variance))
          continue;
        const PriorTilted tilted =
            hierarchical_tilted(family, w_cavity_mean, w_cavity_variance, phi_cavity_mean, phi_cavity_variance, eta);
        double delta_tau, delta_nu;
        if (!tilted.ok || !prior_site_step(mean, variance, tilted, sites.w_tau(k, j), o.damping_prior, eta, o.tau_min,
                                           delta_tau, delta_nu))
          continue;
        // Appendix F step 3 for the scale site; q(phi_l) must stay proper
        const double phi_delta_tau = o.damping_prior / eta * (1.0 / tilted.phi_variance - q.phi_tau[l]);
        const double phi_delta_nu =
            o.damping_prior / eta * (tilted.phi_mean / tilted.phi_variance - q.phi_nu[l]);
        if (q.phi_tau[l] + phi_delta_tau > 0.0 && std::isfinite(phi_delta_nu)) {
          sites.phi_tau(k, j) += phi_delta_tau;
          sites.phi_nu(k, j) += phi_delta_nu;
          q.phi_tau[l] += phi_delta_tau;
          q.phi_nu[l] += phi_delta_nu;
        }
        sites.w_tau(k, j) += delta_tau;
        sites.w_nu(k, j) += delta_nu;
        const Eigen::VectorXd column = q.w_cov[k].col(j);
        rank_one_update(q.w_cov[k], q.w_mean[k], column, variance, mean, delta_tau, delta_nu);  // eq. (66)
        largest_change = std::max(largest_change, std::abs(q.w_mean[k][j] - mean) / std::sqrt(variance));
      }
    if (largest_change < 1e-4) break;
  }
  return largest_change;
}


// Psi(mu, Sigma) = log int exp(-w' Sigma^-1 w / 2 + nu' w) dw for a scalar Gaussian (Appendix I).
double psi(double mean, double variance) {
  return 0.5 * mean * mean / variance + 0.5 * std::log(variance) + 0.5 * kLog2Pi;
}
double psi(const Eigen::VectorXd& mean, const Eigen::MatrixXd& covariance) {
  const Eigen::LLT<Eigen::MatrixXd> llt(covariance);
  const double log_det = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
  return 0.5 * mean.dot(llt.solve(mean)) + 0.5 * log_det + 0.5 * static_cast<double>(mean.size()) * kLog2Pi;
}

// Eq. (69): the EP estimate of log p(y | X, gamma) at the current sites. Prior terms whose EP
// never ran (their sites are still the fixed Gaussians of section 3.5.3) count as exact
// Gaussian priors: their normalized densities replace the lines 4-5 of (69).
double log_marginal_likelihood(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& o,
                               const std::vector<Activation>& activations, const std::vector<int>& group,
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
    const InputPrior family = o.prior == "gaussian" ? InputPrior::gaussian : InputPrior::laplace;
    const double prior_eta = o.prior_eta;
    double prior_terms = 0.0;
    for (int k = 0; k < K; ++k)
      for (Eigen::Index j = 0; j < d; ++j) {
        const int l = group[static_cast<std::size_t>(k) * d + j];
        const double mean = q.w_mean[k][j], variance = q.w_cov[k](j, j);
        const double phi_var = 1.0 / q.phi_tau[l], phi_mean = q.phi_nu[l] / q.phi_tau[l];
        double wm, wv, pm, pv;
        if (!scalar_cavity(mean, variance, sites.w_tau(k, j), sites.w_nu(k, j), prior_eta, wm, wv) ||
            !scalar_cavity(phi_mean, phi_var, sites.phi_tau(k, j), sites.phi_nu(k, j), prior_eta, pm, pv))
          return std::numeric_limits<double>::quiet_NaN();
        const PriorTilted tilted = hierarchical_tilted(family, wm, wv, pm, pv, prior_eta);
        prior_terms += tilted.log_normalizer + psi(wm, wv) - psi(mean, variance) + psi(pm, pv) - psi(phi_mean, phi_var);
      }
    total += prior_terms / prior_eta;
    for (Eigen::Index l = 0; l < q.phi_tau.size(); ++l)
      total += psi(q.phi_nu[l] / q.phi_tau[l], 1.0 / q.phi_tau[l]) - psi(o.phi_prior_mean, o.phi_prior_variance);
  } else {
    for (int k = 0; k < K; ++k)
      for (Eigen::Index j = 0; j < d; ++j)
        total -= psi(sites.w_nu(k, j) / sites.w_tau(k, j), 1.0 / sites.w_tau(k, j));
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

}  // namespace

Model::Model(Posterior posterior, FitReport report) : posterior_(std::move(posterior)), report_(std::move(report)) {}

void Model::latent_moments(const Eigen::MatrixXd& X, Eigen::VectorXd& mean, Eigen::VectorXd& variance) const {
  const auto& p = posterior_;
  const int K = static_cast<int>(p.input_mean.size());
  const Eigen::Index n = X.rows(), d = X.cols() + 1;
  if (d != p.input_mean.front().size())
    throw std::invalid_argument("nn-ep: predict got " + std::to_string(X.cols()) + " inputs, but the model has " +
                                std::to_string(p.input_mean.front().size() - 1));
  mean.resize(n);
  variance.resize(n);
  const std::vector<Activation> activations = make_activations(K, p.linear_units);
  Eigen::VectorXd m_g(K + 1), v_g(K + 1), x(d);
  m_g[K] = 1.0;
  v_g[K] = 0.0;
  const Eigen::VectorXd second_moment = p.output_covariance.diagonal() + p.output_mean.cwiseAbs2();
  for (Eigen::Index i = 0; i < n; ++i) {
    x.head(d - 1) = X.row(i).transpose();
    x[d - 1] = 1.0;
    for (int k = 0; k < K; ++k) {
      const double h_mean = x.dot(p.input_mean[k]);
      const double h_var = x.dot(p.input_covariance[k] * x);
      m_g[k] = activations[k].mean(h_mean, h_var);
      v_g[k] = activations[k].variance(h_mean, h_var);
    }
    // eq. (46) with q(v) and q(w_k) in place of the cavities (Appendix H)
    mean[i] = p.output_mean.dot(m_g);
    variance[i] = m_g.dot(p.output_covariance * m_g) + v_g.dot(second_moment);
  }
}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  Eigen::VectorXd latent_mean, latent_variance;
  latent_moments(X, latent_mean, latent_variance);
  // eq. (68): a mixture over Gauss-Hermite nodes of q(theta)
  constexpr int kNodes = 20;
  const HermiteRule rule = hermite_rule(kNodes);
  const Eigen::Index n = X.rows();
  Eigen::MatrixXd means(n, kNodes), variances(n, kNodes);
  for (int j = 0; j < kNodes; ++j) {
    const double noise =
        std::exp(posterior_.theta_mean + std::sqrt(posterior_.theta_variance) * rule.nodes[j]);
    means.col(j) = latent_mean;
    variances.col(j) = latent_variance.array() + noise;
  }
  return std::make_unique<GaussianMixturePredictive>(std::move(means), std::move(variances), rule.weights);
}

Model fit(const RegressionData& train, const Options& o, Rng& rng) {
  (void)rng;  // the algorithm is deterministic (section 3.5.3 initialization)
  o.validate();
  const char* name = o.prior == "gaussian" ? "nn-ep-ard" : "nn-ep-la";
  check_training_data(train, name);
  const Eigen::Index n = train.X.rows(), d = train.X.cols() + 1;
  const int K = o.hidden_units;
  Eigen::MatrixXd X(n, d);
  X << train.X, Eigen::VectorXd::Ones(n);
  const Eigen::VectorXd& y = train.y;

  // Section 3.5.3: zero likelihood sites, N(0, 0.5) input-weight sites (N(0, 2^2) for biases),
  // N(linspace(1, 2), 0.2^2) output-weight sites.
  Sites sites;
  sites.tau = sites.nu = Eigen::MatrixXd::Zero(n, K);
  sites.alpha = sites.beta = Eigen::MatrixXd::Zero(n, K + 1);
  sites.theta_tau = sites.theta_nu = Eigen::VectorXd::Zero(n);
  sites.w_tau = Eigen::MatrixXd::Constant(K, d, 1.0 / o.initial_weight_variance);
  sites.w_tau.col(d - 1).setConstant(1.0 / o.initial_bias_variance);
  sites.w_nu = sites.phi_tau = sites.phi_nu = Eigen::MatrixXd::Zero(K, d);
  sites.v_tau = Eigen::VectorXd::Constant(K, 1.0 / o.initial_output_variance);
  sites.v_nu = Eigen::VectorXd::LinSpaced(K, o.initial_output_low, o.initial_output_high) / o.initial_output_variance;
  if (K == 1) sites.v_nu.setConstant(o.initial_output_low / o.initial_output_variance);

  const std::vector<int> group = make_scale_groups(o.scale_groups, K, static_cast<int>(d));
  const int groups = *std::max_element(group.begin(), group.end()) + 1;
  Approximation q;
  q.w_cov.resize(K);
  q.w_mean.resize(K);
  q.theta_tau = 1.0 / o.theta_prior_variance;
  q.theta_nu = o.theta_prior_mean / o.theta_prior_variance;
  q.phi_tau = Eigen::VectorXd::Constant(groups, 1.0 / o.phi_prior_variance);
  q.phi_nu = Eigen::VectorXd::Constant(groups, o.phi_prior_mean / o.phi_prior_variance);
  for (int k = 0; k < K; ++k) recompute_input_weights(X, sites, k, q);
  recompute_output_weights(sites, o.output_bias_variance, q);

  const std::vector<Activation> activations = make_activations(K, o.linear_units);
  FitReport report;
  LikelihoodWorkspace workspace(K);
  std::vector<double> loo_trace;
  double previous_loo = std::numeric_limits<double>::quiet_NaN();
  int quiet_sweeps = 0, iteration = 0;
  long skipped = 0;
  SweepResult last;
  bool converged = false;
  for (iteration = 1; iteration <= o.max_iterations; ++iteration) {
    const bool after_initial = iteration > o.initial_iterations;
    if (iteration > o.prior_start) {  // line 1
      const int inner = iteration == o.prior_start + 1 ? 40 : 1;
      input_prior_ep(group, o, inner, sites, q);
    }
    SweepControl control;
    control.learn_theta = after_initial && o.learn_noise;
    control.fixed_theta = 2.0 * std::log(o.initial_noise_sd);
    const bool frozen = o.learn_noise && o.initial_iterations > 0 && iteration == o.initial_iterations + 1;  // section 3.5.4
    control.damping_w = frozen ? 0.0 : o.damping_w;
    control.damping_v = frozen ? 0.0 : o.damping_v;
    control.damping_theta = o.damping_theta;
    control.sequential = o.sequential;
    const Sites before = o.sequential ? Sites{} : sites;
    last = likelihood_sweep(X, y, o, activations, control, sites, q, workspace);
    skipped += last.skipped;
    // line 6 (parallel) or, every 10th sweep, a re-synchronization of the rank-one updates
    // (sequential): q(w_k) from its sites; a parallel step that breaks positive definiteness is
    // halved (Appendix G).
    const bool recompute = !o.sequential || iteration % 10 == 0;
    for (int k = 0; k < K && recompute; ++k) {
      int halvings = 0;
      while (!recompute_input_weights(X, sites, k, q)) {
        if (o.sequential || halvings++ > 30) {
          report.status = FitStatus::numerical_error;
          report.message = "q(w_" + std::to_string(k + 1) + ") lost positive definiteness in sweep " +
                           std::to_string(iteration);
          break;
        }
        sites.tau.col(k) = 0.5 * (sites.tau.col(k) + before.tau.col(k));
        sites.nu.col(k) = 0.5 * (sites.nu.col(k) + before.nu.col(k));
      }
    }
    if (report.status == FitStatus::numerical_error) break;
    recompute_output_weights(sites, o.output_bias_variance, q);  // line 7
    if (after_initial && o.truncated_output_prior) {              // line 8
      output_prior_ep(o, 50, sites, q);
      recompute_output_weights(sites, o.output_bias_variance, q);
    }
    loo_trace.push_back(last.log_z_loo);
    if (!std::isfinite(last.log_z_loo)) {
      report.status = FitStatus::numerical_error;
      report.message = "the approximate LOO density is not finite in sweep " + std::to_string(iteration);
      break;
    }
    const bool quiet = std::abs(last.log_z_loo - previous_loo) < o.tolerance * static_cast<double>(n);
    quiet_sweeps = quiet ? quiet_sweeps + 1 : 0;
    previous_loo = last.log_z_loo;
    const int settled = o.prior_start < o.max_iterations ? o.prior_start + 1 : o.initial_iterations;
    if (iteration > settled && quiet_sweeps >= 2) {
      converged = true;
      break;
    }
  }
  if (report.status == FitStatus::ok && !converged) {
    report.status = FitStatus::not_converged;
    report.message = "no convergence in " + std::to_string(o.max_iterations) + " sweeps";
  }
  report.iterations = std::min(iteration, o.max_iterations);

  Posterior posterior;
  posterior.input_mean = q.w_mean;
  posterior.input_covariance = q.w_cov;
  posterior.output_mean = q.v_mean;
  posterior.output_covariance = q.v_cov;
  posterior.theta_variance = 1.0 / q.theta_tau;
  posterior.theta_mean = q.theta_nu / q.theta_tau;
  posterior.scale_variance = q.phi_tau.cwiseInverse();
  posterior.scale_mean = q.phi_nu.cwiseQuotient(q.phi_tau);
  posterior.scale_group = group;
  posterior.linear_units = o.linear_units;
  if (!o.learn_noise) {
    posterior.theta_mean = 2.0 * std::log(o.initial_noise_sd);
    posterior.theta_variance = 0.0;
  }
  const bool theta_learned = o.learn_noise && report.iterations > o.initial_iterations;
  const bool input_prior_ran = report.iterations > o.prior_start;
  const bool output_prior_ran = o.truncated_output_prior && report.iterations > o.initial_iterations;
  const double log_z_ep = log_marginal_likelihood(X, y, o, activations, group, theta_learned, input_prior_ran,
                                                  output_prior_ran, sites, q, workspace);
  report.diagnostics = {{"log_z_ep", log_z_ep},
                        {"log_z_loo", last.log_z_loo},
                        {"max_h_mean_change", last.max_mean_change},
                        {"max_h_variance_change", last.max_variance_change},
                        {"noise_sd", std::exp(0.5 * posterior.theta_mean)},
                        {"skipped_sites", static_cast<double>(skipped)},
                        {"sweeps", static_cast<double>(report.iterations)}};
  return Model(std::move(posterior), std::move(report));
}

}  // namespace bnn::nnep
