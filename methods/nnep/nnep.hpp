#pragma once
// NN-EP: expectation propagation for a two-layer network with sparsity-promoting hierarchical
// priors (Jylanki, Nummenmaa & Vehtari 2014), Algorithm 1 with the factorized approximation
// q(v) prod_k q(w_k) q(theta) prod_l q(phi_l) of eqs. (15)-(20).
//
// Model (section 2): f(x) = sum_k v_k g(w_k' x) + v_0 with g(h) = erf(h/sqrt 2)/sqrt K, the input
// bias as a constant last input; output weights v_k >= 0 with left-truncated Student-t priors
// (5); v_0 ~ N(0, sigma2_v0); noise theta = log sigma^2 ~ N(mu_theta0, s2_theta0); input weights
// w_j | phi_l ~ Laplace (NN-EP-LA) or Gaussian (NN-EP-ARD) with variance exp(phi_l), and
// phi_l ~ N(mu_phi0, s2_phi0), the weights grouped into scale groups l by `scale_groups`.
//
// Schedule (section 3.5): likelihood sweeps over i = 1..n with the noise fixed at
// exp(theta) = initial_noise_sd^2 for the first `initial_iterations`; the output-weight prior
// sites start as N(linspace(1, 2), 0.2^2) and the input-weight sites as N(0, 0.5) (N(0, 2^2) for
// the biases); with initialization = map those sites' means come from a MAP estimate of the
// weights instead (the alternative of section 5, map_start.hpp). After the initial iterations
// the noise sites are learned (the first sweep with the weight sites frozen, section 3.5.4) and
// EP on the truncated output-weight priors runs to convergence after every parallel update of
// q(v) (line 8). From `prior_start` on, EP on the hierarchical input-weight priors runs to
// convergence once and then one inner sweep per outer iteration (line 1, scheme 2 of section
// 3.5.6). q(w_k) is updated by rank-one updates after every site (sequential, the paper's
// choice) or recomputed after each sweep (parallel); q(v) always in parallel (line 7).
//
// Report: iterations, log_z_loo (sum_i log Z_i, the approximate LOO density of section 3.5.2)
// per the last sweep, log_z_ep (Appendix I), the largest tilted-vs-marginal differences of the
// h means and variances in the last sweep, noise_sd = exp(E theta / 2), skipped (improper
// cavities or tilted moments), units_with_effect (see below), and log_z_loo after every 25th
// sweep (log_z_loo_sweep_N); with the MAP start also its objective and evaluations
// (map_objective, map_evaluations).
// Registered as nn-ep-la and nn-ep-ard (registration.cpp): Laplace or Gaussian ARD input priors.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "methods/core/choice.hpp"
#include "methods/core/model.hpp"
#include "methods/core/rng.hpp"
#include "prior_sites.hpp"

namespace bnn::nnep {

constexpr std::array<ChoiceName<InputPrior>, 2> choice_names(InputPrior) {
  return {{{InputPrior::laplace, "laplace"}, {InputPrior::gaussian, "gaussian"}}};
}
// Which input weights share a prior scale phi_l: all, those of one input, of one unit, or none.
enum class ScaleGroups { common, input, unit, weight };
constexpr std::array<ChoiceName<ScaleGroups>, 4> choice_names(ScaleGroups) {
  return {{{ScaleGroups::common, "common"},
           {ScaleGroups::input, "input"},
           {ScaleGroups::unit, "unit"},
           {ScaleGroups::weight, "weight"}}};
}
// Where the prior sites' locations start: zeros and linspace(1, 2), or a MAP estimate (section 5).
enum class Initialization { zero, map };
constexpr std::array<ChoiceName<Initialization>, 2> choice_names(Initialization) {
  return {{{Initialization::zero, "zero"}, {Initialization::map, "map"}}};
}

struct Options {
  int hidden_units = 10;
  int linear_units = 0;                            // the first units get g(h) = h (the paper's case 1 uses one)
  Choice<InputPrior> prior = InputPrior::laplace;  // laplace (NN-EP-LA) or gaussian (NN-EP-ARD)
  Choice<ScaleGroups> scale_groups = ScaleGroups::common;
  // Hyperpriors of section 4.4 (normalized data).
  double phi_prior_mean = -9.210340371976184;  // 2 log(0.01)
  double phi_prior_variance = 6.25;            // 2.5^2
  double theta_prior_mean = -9.210340371976184;
  double theta_prior_variance = 4.0;
  double output_weight_dof = 4.0;
  double output_weight_scale = 1.0;  // sigma2_v0 of (5)
  double output_bias_variance = 1.0;
  // EP controls (section 3.5).
  double eta = 0.95;                   // fraction of the likelihood sites
  double prior_eta = 0.8;              // fraction of the prior sites
  double damping_w = 0.5;              // tau_ik, nu_ik (sequential)
  double damping_v = 0.2;              // alpha_i, beta_i
  double damping_theta = 0.5;          // theta sites
  double damping_prior = 0.6;          // prior sites
  double tau_min = 0.01;               // Appendix G: prior site precisions >= 0.1^2
  bool sequential = true;              // rank-one updates of q(w_k); false: parallel (line 6)
  bool learn_noise = true;             // EP on theta after the initial sweeps; false: fixed at initial_noise_sd
  bool truncated_output_prior = true;  // EP on the priors (5); false: the initial output sites stay
  // Initialization (section 3.5.3).
  double initial_noise_sd = 0.3;
  double initial_weight_variance = 0.5;
  double initial_bias_variance = 4.0;
  double initial_output_low = 1.0;
  double initial_output_high = 2.0;
  double initial_output_variance = 0.04;
  Choice<Initialization> initialization = Initialization::zero;  // see map_start.hpp
  int map_iterations = 1000;                                     // L-BFGS iterations of the MAP start
  int unit_schedule = 0;        // > 0: unit k joins the updates at sweep 1 + (k - 1) * unit_schedule
  int initial_iterations = 15;  // sweeps with the noise and weight priors fixed
  int prior_start = 30;         // sweep at which the input-weight prior EP starts
  int max_iterations = 100;
  double tolerance = 1e-4;  // on the change of log_z_loo / n and of the h moments

  template <class Visitor>
  void visit(Visitor&& v) {
    v("hidden_units", hidden_units, "hidden units K");
    v("linear_units", linear_units, "the first this many hidden units are linear, g(h) = h");
    v("prior", prior, "input-weight prior: laplace (NN-EP-LA) or gaussian (NN-EP-ARD)");
    v("scale_groups", scale_groups,
      "weights sharing a scale phi_l: common (one), input (one per input incl. bias: ARD), unit, weight");
    v("phi_prior_mean", phi_prior_mean, "mean of the Gaussian prior on phi_l = log lambda_l^2");
    v("phi_prior_variance", phi_prior_variance, "variance of the prior on phi_l");
    v("theta_prior_mean", theta_prior_mean, "mean of the Gaussian prior on theta = log sigma^2");
    v("theta_prior_variance", theta_prior_variance, "variance of the prior on theta");
    v("output_weight_dof", output_weight_dof, "degrees of freedom of the truncated Student-t prior on v_k");
    v("output_weight_scale", output_weight_scale, "scale sigma2_v0 of the truncated Student-t prior on v_k");
    v("output_bias_variance", output_bias_variance, "variance of the Gaussian prior on the output bias");
    v("eta", eta, "power-EP fraction of the likelihood sites");
    v("prior_eta", prior_eta, "power-EP fraction of the prior sites");
    v("damping_w", damping_w, "damping of the input-weight likelihood sites (tau, nu)");
    v("damping_v", damping_v, "damping of the output-weight likelihood sites (alpha, beta)");
    v("damping_theta", damping_theta, "damping of the noise sites");
    v("damping_prior", damping_prior, "damping of the prior sites");
    v("tau_min", tau_min, "lower bound of the prior site precisions (Appendix G)");
    v("learn_noise", learn_noise, "learn theta = log sigma^2 by EP (else fixed at initial_noise_sd)");
    v("truncated_output_prior", truncated_output_prior,
      "EP on the truncated Student-t output-weight priors (else the initial Gaussian sites are the prior)");
    v("sequential", sequential, "rank-one updates of q(w_k) after each site (else recomputed per sweep)");
    v("initial_noise_sd", initial_noise_sd, "noise sd held fixed during the initial sweeps");
    v("initial_weight_variance", initial_weight_variance, "initial input-weight prior site variance");
    v("initial_bias_variance", initial_bias_variance, "initial input-bias prior site variance");
    v("initial_output_low", initial_output_low, "smallest initial output-weight site mean");
    v("initial_output_high", initial_output_high, "largest initial output-weight site mean");
    v("initial_output_variance", initial_output_variance, "initial output-weight site variance");
    v("initialization", initialization,
      "zero: the prior sites of section 3.5.3 (zero input-weight means, output-weight means linspace(1, 2)); "
      "map: their means from a MAP estimate of the weights (the alternative of the paper's section 5)");
    v("map_iterations", map_iterations, "L-BFGS iterations of the MAP estimate (initialization = map)");
    v("unit_schedule", unit_schedule,
      "0: every hidden unit's sites are updated from the first sweep; s > 0: unit k joins at sweep "
      "1 + (k - 1) s (the incremental scheme of section 3.5.3)");
    v("initial_iterations", initial_iterations, "sweeps with fixed noise and fixed prior sites");
    v("prior_start", prior_start, "sweep at which EP on the input-weight priors starts");
    v("max_iterations", max_iterations, "maximum number of sweeps over the likelihood sites");
    v("tolerance", tolerance, "convergence tolerance of the sweeps");
  }
  void validate() const;
};

Options laplace_defaults();  // NN-EP-LA: Laplace prior, one common scale
Options ard_defaults();      // NN-EP-ARD: Gaussian prior, one scale per input (bias included)

// The posterior approximation, for the figures of cases 1-3 and for tests.
struct Posterior {
  std::vector<Eigen::VectorXd> input_mean;        // mu_{w_k}, inputs then bias
  std::vector<Eigen::MatrixXd> input_covariance;  // Sigma_{w_k}
  Eigen::VectorXd output_mean;                    // mu_v: v_1..v_K, v_0
  Eigen::MatrixXd output_covariance;
  double theta_mean = 0.0, theta_variance = 0.0;
  Eigen::VectorXd scale_mean, scale_variance;  // q(phi_l)
  std::vector<int> scale_group;                // l of weight (k, j) at k * d + j
  int linear_units = 0;
};

class Model final : public ModelBase {
 public:
  Model(Posterior posterior, FitReport report);
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;
  // q's marginals of every input weight w, scale phi_l and output weight v (v unit 0: the bias).
  std::optional<ParameterMarginals> parameter_marginals() const override;
  const Posterior& posterior() const { return posterior_; }
  // Mean and variance of the latent f(x) (Appendix H, eq. (46) under q).
  void latent_moments(const Eigen::MatrixXd& X, Eigen::VectorXd& mean, Eigen::VectorXd& variance) const;

 private:
  Posterior posterior_;
};

// Mean and variance of the latent f(x) under a posterior (Appendix H, eq. (46) under q).
void latent_moments(const Posterior& posterior, const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                    Eigen::VectorXd& variance);

// Hidden units whose output weight v_k is above zero at the 95% level (the paper's reading of
// Figure 4(c)); the others sit at or near the fixed point E(v_k) = 0 of section 2.3.
int units_with_effect(const Posterior& posterior);

// Marks a fit that broke down as a numerical error (report unchanged otherwise): more than 1%
// of the n likelihood sites skipped in the last sweep (improper cavities or tilted moments),
// or a learned noise sd above 10 times the training targets' sd.
void check_breakdown(long skipped_last_sweep, long n, bool noise_learned, double noise_sd, double target_sd,
                     FitReport& report);

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);

}  // namespace bnn::nnep
