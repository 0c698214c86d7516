#include "nnep.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "ep_state.hpp"
#include "gauss_hermite.hpp"
#include "likelihood_tilted.hpp"
#include "lower_update.hpp"
#include "map_start.hpp"
#include "marginal_likelihood.hpp"
#include "methods/core/options.hpp"
#include "output_site.hpp"
#include "prior_ep.hpp"

namespace bnn::nnep {

void Options::validate() const {
  const char* name = prior == InputPrior::gaussian ? "nn-ep-ard" : "nn-ep-la";
  require_units(name, "hidden_units", hidden_units);
  require_at_least(name, "linear_units", linear_units, 0);
  require_below(name, "linear_units", linear_units, hidden_units + 1);
  require_positive(name, "phi_prior_variance", phi_prior_variance);
  require_positive(name, "theta_prior_variance", theta_prior_variance);
  require_positive(name, "output_weight_dof", output_weight_dof);
  require_positive(name, "output_weight_scale", output_weight_scale);
  require_positive(name, "output_bias_variance", output_bias_variance);
  for (const auto& [option, value] : {std::pair{"eta", eta},
                                      {"prior_eta", prior_eta},
                                      {"damping_w", damping_w},
                                      {"damping_v", damping_v},
                                      {"damping_theta", damping_theta},
                                      {"damping_prior", damping_prior}}) {
    if (!(value > 0.0 && value <= 1.0))
      throw std::invalid_argument(std::string(name) + ": " + option + " is " + option_detail::format_double(value) +
                                  ", but must be in (0, 1]");
  }
  require_positive(name, "tau_min", tau_min);
  require_at_least(name, "unit_schedule", unit_schedule, 0);
  require_positive(name, "initial_noise_sd", initial_noise_sd);
  require_positive(name, "initial_weight_variance", initial_weight_variance);
  require_positive(name, "initial_bias_variance", initial_bias_variance);
  require_positive(name, "initial_output_variance", initial_output_variance);
  require_at_least(name, "initial_output_high", initial_output_high, initial_output_low);
  if (initialization == Initialization::map && linear_units > 0)
    throw std::invalid_argument(std::string(name) + ": initialization is 'map', but linear_units is " +
                                std::to_string(linear_units) + " (the MAP start needs erf units only)");
  require_at_least(name, "map_iterations", map_iterations, 1);
  require_at_least(name, "initial_iterations", initial_iterations, 0);
  require_at_least(name, "prior_start", prior_start, initial_iterations);
  require_at_least(name, "max_iterations", max_iterations, 1);
  require_positive(name, "tolerance", tolerance);
}

Options laplace_defaults() { return Options{}; }

Options ard_defaults() {
  Options options;
  options.prior = InputPrior::gaussian;
  options.scale_groups = ScaleGroups::input;
  return options;
}

}  // namespace bnn::nnep

namespace bnn::nnep {
namespace {

// What one sweep over the likelihood sites changes and measures.
struct SweepControl {
  bool learn_theta = false;
  double fixed_theta = 0.0;
  double damping_w = 0.0, damping_v = 0.0, damping_theta = 0.0;
  bool sequential = true;
  int active_units = 0;  // the input-weight sites of units 0 .. active_units - 1 are updated
};
struct SweepResult {
  double log_z_loo = 0.0;            // sum_i log Z_i
  double max_mean_change = 0.0;      // max |m_hat - m| over i, k (h_ik)
  double max_variance_change = 0.0;  // max |V_hat - V| / V
  long skipped = 0;
  long negative_a = 0;  // output-site updates with a_hat < 0, which (55) cannot represent
};

// Lines 2-5 of Algorithm 1: cavities (39)-(41), tilted moments (45)-(54), site updates
// (57)-(61) and, if sequential, rank-one updates of q(w_k) and q(theta). q(v) is not touched
// (its parallel update follows the sweep). `inputs` holds the training inputs as columns.
SweepResult likelihood_sweep(const Eigen::MatrixXd& inputs, const Eigen::VectorXd& y, const Options& o,
                             const std::vector<HiddenUnit>& activations, const SweepControl& control, Sites& sites,
                             Approximation& q, LikelihoodWorkspace& workspace) {
  const Eigen::Index n = inputs.cols();
  const int K = o.hidden_units;
  const double eta = o.eta;
  SweepResult result;
  // cov_x.col(k) = Sigma_k x_i; the rank-one update of site i computes Sigma_k x_{i+1} into
  // next_cov_x on the way (lower_update.hpp). rank_one_scale[k] = 0: no update of Sigma_k.
  Eigen::MatrixXd cov_x(inputs.rows(), K), next_cov_x(inputs.rows(), K);
  Eigen::VectorXd h_mean(K), h_var(K), cavity_mean(K), cavity_var(K), rank_one_scale(K);
  for (int k = 0; k < K && n > 0; ++k)
    lower_update_times(q.w_cov[k], inputs.col(0).data(), 0.0, inputs.col(0).data(), cov_x.col(k).data());
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto x = inputs.col(i);
    rank_one_scale.setZero();
    bool proper = true;
    for (int k = 0; k < K; ++k) {
      h_var[k] = x.dot(cov_x.col(k));
      h_mean[k] = x.dot(q.w_mean[k]);
      const double precision = 1.0 / h_var[k] - eta * sites.tau(i, k);  // eq. (39)
      proper = proper && precision > 0.0 && h_var[k] > 0.0;
      cavity_var[k] = 1.0 / precision;
      cavity_mean[k] = cavity_var[k] * (h_mean[k] / h_var[k] - eta * sites.nu(i, k));
    }
    // The rest of the site; `return` skips it (Appendix G).
    const auto update_site = [&] {
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
        return;
      }
      const TiltedMoments& tilted =
          site_tilted_moments(activations, cavity_mean, cavity_var, v_cavity, theta_cavity_mean, theta_cavity_var,
                              control.learn_theta, y[i], eta, workspace);
      if (!tilted.ok) {
        ++result.skipped;
        return;
      }
      // eqs. (55)-(59): the output-weight site
      const OutputSite matched = matched_output_site(tilted.expected_activation, v_cavity, tilted.a_hat, tilted.b_hat,
                                                     y[i] - tilted.latent_mean, eta);
      if (!matched.ok) {
        ++result.skipped;
        return;
      }
      result.log_z_loo += tilted.log_normalizer;
      if (tilted.a_hat < 0.0) ++result.negative_a;
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
        if (control.damping_w <= 0.0 || k >= control.active_units) continue;
        double delta_tau = (1.0 / tilted_var - 1.0 / h_var[k]) / eta;
        double delta_nu = (tilted_mean / tilted_var - h_mean[k] / h_var[k]) / eta;
        double delta = delta_tau < 0.0 ? 0.5 * control.damping_w : control.damping_w;
        // keep q(w_k) positive definite: 1 + delta_tau V > 0 (Appendix G)
        while (1.0 + delta * delta_tau * h_var[k] < 1e-3 && delta > 1e-6) delta *= 0.5;
        delta_tau *= delta;
        delta_nu *= delta;
        sites.tau(i, k) += delta_tau;
        sites.nu(i, k) += delta_nu;
        if (control.sequential)  // the mean now, Sigma_k after the site
          rank_one_scale[k] = rank_one_update_mean(q.w_mean[k], cov_x.col(k), h_var[k], h_mean[k], delta_tau, delta_nu);
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
    };
    update_site();
    // Sigma_k -= scale a a' with a = Sigma_k x_i, and Sigma_k x_{i+1} for the next site (the
    // last site multiplies by its own x, unused).
    const auto x_next = inputs.col(i + 1 < n ? i + 1 : i);
    for (int k = 0; k < K; ++k)
      lower_update_times(q.w_cov[k], cov_x.col(k).data(), rank_one_scale[k], x_next.data(), next_cov_x.col(k).data());
    cov_x.swap(next_cov_x);
  }
  for (int k = 0; k < K; ++k) mirror_lower(q.w_cov[k]);
  return result;
}

}  // namespace

Model::Model(Posterior posterior, FitReport report) : ModelBase(std::move(report)), posterior_(std::move(posterior)) {}

void Model::latent_moments(const Eigen::MatrixXd& X, Eigen::VectorXd& mean, Eigen::VectorXd& variance) const {
  nnep::latent_moments(posterior_, X, mean, variance);
}

void latent_moments(const Posterior& p, const Eigen::MatrixXd& X, Eigen::VectorXd& mean, Eigen::VectorXd& variance) {
  const int K = static_cast<int>(p.input_mean.size());
  const Eigen::Index n = X.rows(), d = X.cols() + 1;
  if (d != p.input_mean.front().size())
    throw std::invalid_argument("nn-ep: predict got " + std::to_string(X.cols()) + " inputs, but the model has " +
                                std::to_string(p.input_mean.front().size() - 1));
  mean.resize(n);
  variance.resize(n);
  const std::vector<HiddenUnit> activations = make_activations(K, p.linear_units);
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
    const double noise = std::exp(posterior_.theta_mean + std::sqrt(posterior_.theta_variance) * rule.nodes[j]);
    means.col(j) = latent_mean;
    variances.col(j) = latent_variance.array() + noise;
  }
  return std::make_unique<GaussianMixturePredictive>(std::move(means), std::move(variances), rule.weights);
}

int units_with_effect(const Posterior& posterior) {
  int count = 0;
  for (Eigen::Index k = 0; k + 1 < posterior.output_mean.size(); ++k)
    if (posterior.output_mean[k] - 1.96 * std::sqrt(posterior.output_covariance(k, k)) > 0.0) ++count;
  return count;
}

void check_breakdown(long skipped_last_sweep, long n, bool noise_learned, double noise_sd, double target_sd,
                     FitReport& report) {
  if (report.status == FitStatus::numerical_error) return;
  if (100 * skipped_last_sweep > n) {
    report.status = FitStatus::numerical_error;
    report.message = "EP broke down: " + std::to_string(skipped_last_sweep) + " of " + std::to_string(n) +
                     " likelihood sites were skipped in the last sweep (improper cavity or tilted moments)";
  } else if (noise_learned && !(noise_sd <= 10.0 * target_sd)) {
    report.status = FitStatus::numerical_error;
    report.message = "EP diverged: the noise sd grew to " + option_detail::format_double(noise_sd) +
                     ", more than 10 times the targets' sd " + option_detail::format_double(target_sd);
  }
}

std::optional<ParameterMarginals> Model::parameter_marginals() const {
  const Posterior& q = posterior_;
  ParameterMarginals rows;
  const int K = static_cast<int>(q.input_mean.size());
  const Eigen::Index d = q.input_mean.front().size();
  for (int k = 0; k < K; ++k)
    for (Eigen::Index j = 0; j < d; ++j)
      rows.push_back({"w", k + 1, static_cast<int>(j + 1), q.input_mean[k][j], std::sqrt(q.input_covariance[k](j, j))});
  // One scale per input (ARD): group l holds input l + 1 of every unit.
  bool per_input = q.scale_mean.size() == d;
  for (int k = 0; k < K && per_input; ++k)
    for (Eigen::Index j = 0; j < d; ++j)
      per_input = per_input && q.scale_group[static_cast<std::size_t>(k * d + j)] == j;
  for (Eigen::Index l = 0; l < q.scale_mean.size(); ++l)
    rows.push_back(
        {"phi", 0, per_input ? static_cast<int>(l + 1) : 0, q.scale_mean[l], std::sqrt(q.scale_variance[l])});
  for (int k = 0; k <= K; ++k)
    rows.push_back({"v", k < K ? k + 1 : 0, 0, q.output_mean[k], std::sqrt(q.output_covariance(k, k))});
  return rows;
}

namespace {

// Section 3.5.3: zero likelihood sites, N(0, 0.5) input-weight sites (N(0, 2^2) for biases),
// N(linspace(1, 2), 0.2^2) output-weight sites.
Sites initial_sites(Eigen::Index n, Eigen::Index d, const Options& o) {
  const int K = o.hidden_units;
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
  return sites;
}

// Section 5: the prior sites' locations from a MAP estimate of the weights.
MapStart start_from_map(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& o, Rng& rng, Sites& sites) {
  MapStart start = map_start(X, y, o, rng);
  sites.w_nu = start.input_weights.cwiseProduct(sites.w_tau);
  sites.v_nu = start.output_weights.head(o.hidden_units).cwiseProduct(sites.v_tau);
  return start;
}

// q from the sites, with the noise and scale hyperpriors of section 4.4.
Approximation initial_approximation(const Eigen::MatrixXd& X, const Sites& sites, int groups, const Options& o) {
  const int K = o.hidden_units;
  Approximation q;
  q.w_cov.resize(K);
  q.w_mean.resize(K);
  q.theta_tau = 1.0 / o.theta_prior_variance;
  q.theta_nu = o.theta_prior_mean / o.theta_prior_variance;
  q.phi_tau = Eigen::VectorXd::Constant(groups, 1.0 / o.phi_prior_variance);
  q.phi_nu = Eigen::VectorXd::Constant(groups, o.phi_prior_mean / o.phi_prior_variance);
  for (int k = 0; k < K; ++k) recompute_input_weights(X, sites, k, q);
  recompute_output_weights(sites, o.output_bias_variance, q);
  return q;
}

// How sweep `iteration` updates the likelihood sites.
SweepControl sweep_control(const Options& o, int iteration) {
  SweepControl control;
  control.learn_theta = iteration > o.initial_iterations && o.learn_noise;
  control.fixed_theta = 2.0 * std::log(o.initial_noise_sd);
  // section 3.5.4: the sweep after the initial ones does not move the sites
  const bool frozen = o.learn_noise && o.initial_iterations > 0 && iteration == o.initial_iterations + 1;
  control.damping_w = frozen ? 0.0 : o.damping_w;
  control.damping_v = frozen ? 0.0 : o.damping_v;
  control.damping_theta = o.damping_theta;
  control.sequential = o.sequential;
  control.active_units =
      o.unit_schedule > 0 ? std::min(o.hidden_units, 1 + (iteration - 1) / o.unit_schedule) : o.hidden_units;
  return control;
}

// Line 6 (parallel) or, every 10th sweep, a re-synchronization of the rank-one updates
// (sequential): q(w_k) from its sites; a parallel step that breaks positive definiteness is
// halved towards the sites `before` it (Appendix G). False, with the report's status set, when
// a q(w_k) stays improper (the units after it are still recomputed).
bool recompute_all_input_weights(const Eigen::MatrixXd& X, const Sites& before, const Options& o, int iteration,
                                 Sites& sites, Approximation& q, FitReport& report) {
  bool ok = true;
  for (int k = 0; k < o.hidden_units; ++k) {
    int halvings = 0;
    while (!recompute_input_weights(X, sites, k, q)) {
      if (o.sequential || halvings++ > 30) {
        report.status = FitStatus::numerical_error;
        report.message =
            "q(w_" + std::to_string(k + 1) + ") lost positive definiteness in sweep " + std::to_string(iteration);
        ok = false;
        break;
      }
      sites.tau.col(k) = 0.5 * (sites.tau.col(k) + before.tau.col(k));
      sites.nu.col(k) = 0.5 * (sites.nu.col(k) + before.nu.col(k));
    }
  }
  return ok;
}

// The sweep after which two quiet sweeps end EP: past the start of the input-prior EP (or the
// initial sweeps) and after every unit joined.
int settled_sweep(const Options& o) {
  const int all_joined = o.unit_schedule > 0 ? 1 + (o.hidden_units - 1) * o.unit_schedule : 0;
  return std::max(o.prior_start < o.max_iterations ? o.prior_start + 1 : o.initial_iterations, all_joined);
}

// What the EP iterations leave besides the sites and q.
struct EpRun {
  SweepResult last;
  std::vector<double> loo_trace;
  long skipped = 0, negative_a = 0;
  int sweeps = 0;
  bool converged = false;
};

// Algorithm 1: sweeps over the likelihood sites with the prior-site EP of lines 1 and 8, until
// the LOO density settles or max_iterations.
EpRun run_ep(const Eigen::MatrixXd& X, const Eigen::MatrixXd& inputs, const Eigen::VectorXd& y, const Options& o,
             const std::vector<HiddenUnit>& activations, const std::vector<int>& group, Sites& sites, Approximation& q,
             LikelihoodWorkspace& workspace, FitReport& report) {
  const Eigen::Index n = y.size();
  EpRun run;
  double previous_loo = std::numeric_limits<double>::quiet_NaN();
  int quiet_sweeps = 0, iteration = 0;
  for (iteration = 1; iteration <= o.max_iterations; ++iteration) {
    const bool after_initial = iteration > o.initial_iterations;
    if (iteration > o.prior_start) {  // line 1
      const int inner = iteration == o.prior_start + 1 ? 40 : 1;
      input_prior_ep(group, o, inner, sites, q);
    }
    const Sites before = o.sequential ? Sites{} : sites;
    run.last = likelihood_sweep(inputs, y, o, activations, sweep_control(o, iteration), sites, q, workspace);
    run.skipped += run.last.skipped;
    run.negative_a += run.last.negative_a;
    const bool recompute = !o.sequential || iteration % 10 == 0;
    if (recompute && !recompute_all_input_weights(X, before, o, iteration, sites, q, report)) break;
    recompute_output_weights(sites, o.output_bias_variance, q);  // line 7
    if (after_initial && o.truncated_output_prior) {             // line 8
      output_prior_ep(o, 50, sites, q);
      recompute_output_weights(sites, o.output_bias_variance, q);
    }
    run.loo_trace.push_back(run.last.log_z_loo);
    if (!std::isfinite(run.last.log_z_loo)) {
      report.status = FitStatus::numerical_error;
      report.message = "the approximate LOO density is not finite in sweep " + std::to_string(iteration);
      break;
    }
    // A sweep that had to skip many sites (improper cavities or tilted moments, Appendix G)
    // changes little because it updates little: that is not convergence.
    const bool few_skipped = 100 * run.last.skipped <= n;
    const bool quiet =
        few_skipped && std::abs(run.last.log_z_loo - previous_loo) < o.tolerance * static_cast<double>(n);
    quiet_sweeps = quiet ? quiet_sweeps + 1 : 0;
    previous_loo = run.last.log_z_loo;
    if (iteration > settled_sweep(o) && quiet_sweeps >= 2) {
      run.converged = true;
      break;
    }
  }
  run.sweeps = std::min(iteration, o.max_iterations);
  return run;
}

Posterior posterior_from(const Approximation& q, const std::vector<int>& group, const Options& o) {
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
  return posterior;
}

// A posterior whose predictive mean misses its own training targets by more than 10 sd has
// diverged (with the noise fixed, check_breakdown cannot see it in the noise).
void check_training_fit(const Posterior& posterior, const RegressionData& train, FitReport& report) {
  if (report.status == FitStatus::numerical_error) return;
  const Eigen::VectorXd& y = train.y;
  Eigen::VectorXd mean, variance;
  latent_moments(posterior, train.X, mean, variance);
  const double target_sd = std::sqrt((y.array() - y.mean()).square().mean());
  const double training_rmse = std::sqrt((mean - y).squaredNorm() / static_cast<double>(y.size()));
  if (!(training_rmse <= 10.0 * target_sd)) {
    report.status = FitStatus::numerical_error;
    report.message = "EP diverged: the predictive mean misses the training targets by an RMS of " +
                     option_detail::format_double(training_rmse) + ", more than 10 times their sd " +
                     option_detail::format_double(target_sd);
  }
}

}  // namespace

Model fit(const RegressionData& train, const Validated<Options>& valid, Rng& rng) {
  // Deterministic with the zero start of section 3.5.3; the MAP start draws its random start from rng.
  const Options& o = *valid;
  const char* name = o.prior == InputPrior::gaussian ? "nn-ep-ard" : "nn-ep-la";
  check_training_data(train, name);
  const Eigen::Index n = train.X.rows(), d = train.X.cols() + 1;
  const int K = o.hidden_units;
  Eigen::MatrixXd X(n, d);
  X << train.X, Eigen::VectorXd::Ones(n);
  const Eigen::MatrixXd inputs = X.transpose();  // x_i as contiguous columns for the sweeps
  const Eigen::VectorXd& y = train.y;

  Sites sites = initial_sites(n, d, o);
  MapStart start;
  if (o.initialization == Initialization::map) start = start_from_map(X, y, o, rng, sites);
  const std::vector<int> group = make_scale_groups(o.scale_groups, K, static_cast<int>(d));
  Approximation q = initial_approximation(X, sites, *std::max_element(group.begin(), group.end()) + 1, o);
  const std::vector<HiddenUnit> activations = make_activations(K, o.linear_units);
  FitReport report;
  LikelihoodWorkspace workspace(K);
  const EpRun run = run_ep(X, inputs, y, o, activations, group, sites, q, workspace, report);
  if (report.status == FitStatus::ok && !run.converged) {
    report.status = FitStatus::not_converged;
    report.message = "no convergence in " + std::to_string(o.max_iterations) + " sweeps";
  }
  check_breakdown(run.last.skipped, n, o.learn_noise, std::exp(0.5 * q.theta_nu / q.theta_tau),
                  std::sqrt((y.array() - y.mean()).square().mean()), report);
  report.iterations = run.sweeps;

  Posterior posterior = posterior_from(q, group, o);
  const bool theta_learned = o.learn_noise && report.iterations > o.initial_iterations;
  const bool input_prior_ran = report.iterations > o.prior_start;
  const bool output_prior_ran = o.truncated_output_prior && report.iterations > o.initial_iterations;
  const double log_z_ep = log_marginal_likelihood(X, y, o, activations, group, theta_learned, input_prior_ran,
                                                  output_prior_ran, sites, q, workspace);
  report.diagnostics = {{"log_z_ep", log_z_ep},
                        {"log_z_loo", run.last.log_z_loo},
                        {"max_h_mean_change", run.last.max_mean_change},
                        {"max_h_variance_change", run.last.max_variance_change},
                        {"noise_sd", std::exp(0.5 * posterior.theta_mean)},
                        {"skipped_sites", static_cast<double>(run.skipped)},
                        {"negative_a_sites", static_cast<double>(run.negative_a)},
                        {"sweeps", static_cast<double>(report.iterations)},
                        {"units_with_effect", static_cast<double>(units_with_effect(posterior))}};
  if (units_with_effect(posterior) == 0)
    report.warnings.push_back(
        "no hidden unit has an effect (every output weight within 1.96 sd of zero): the "
        "network is about a constant, EP ended at the zero fixed point of section 2.3");
  if (o.initialization == Initialization::map) {
    report.diagnostics.emplace_back("map_objective", start.objective);
    report.diagnostics.emplace_back("map_evaluations", static_cast<double>(start.evaluations));
  }
  // The history of the LOO density (section 3.5.2), every 25th sweep: is it still climbing?
  for (std::size_t sweep = 25; sweep <= run.loo_trace.size(); sweep += 25)
    report.diagnostics.emplace_back("log_z_loo_sweep_" + std::to_string(sweep), run.loo_trace[sweep - 1]);
  check_training_fit(posterior, train, report);
  return Model(std::move(posterior), std::move(report));
}

}  // namespace bnn::nnep
