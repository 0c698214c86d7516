#pragma once
// Laplace's method with MacKay's (1992) evidence framework, as described by Barber & Bishop
// (1998) section 1.2, for the two-layer network of core/two_layer_network.hpp.
//
// Model: t_n = f(x_n, w) + noise of precision beta, prior w ~ N(0, alpha^-1 I) on all k weights
// (one alpha). For fixed (alpha, beta) the mode w* minimizes beta E_D + alpha/2 |w|^2 (L-BFGS,
// analytic gradient). The posterior is N(w*, A^-1), A = beta H_D + alpha I, with H_D the
// Hessian of E_D at w*: exact (hessian = exact) or its diagonal Gauss-Newton approximation
// diag(sum_n J_n J_n') (hessian = diagonal-gn). The evidence loop alternates the mode with
// MacKay's re-estimation of alpha and beta (see reestimate), warm-starting each mode from the
// previous one, until both change by less than 1e-4 (relative) or evidence_iterations
// re-estimations are used up (then the status is not_converged); the posterior and evidence are
// those of the last mode, at the alpha and beta it was found with. Two safeguards that leave
// the fixed point unchanged: a re-estimate that reverses the previous step of log alpha (or log
// beta) is applied at half length, which damps the oscillation the diagonal curvature tends to
// cause; and when gamma >= N (only the diagonal curvature allows it, since J'J has rank <= N)
// the beta update has no positive solution and beta keeps its value (diagnostic beta_kept and
// a warning).
//
// Negative curvature: eigenvalues lambda_i of beta H_D below 0 (possible with the exact
// Hessian, whose residual term is indefinite) count 0 in gamma and are reported as
// negative_eigenvalues. A is used as it is when positive definite (the exact Laplace
// covariance); otherwise (the mode is not a minimum) its eigenvalues are floored at alpha,
// i.e. A = Q diag(max(lambda, 0) + alpha) Q', and the report carries a warning.
//
// Log evidence (MacKay 1992): log p(D | alpha, beta) ~ -beta E_D - alpha/2 |w|^2 - 1/2 log|A|
// + k/2 log alpha + N/2 log beta - N/2 log 2 pi, without the 2^H H! symmetry factor
// (constant for a given network, so it does not change which restart is kept).
//
// Predictions: the linearized Gaussian (MacKay 1992): mean f(x, w*), variance
// 1/beta + g' A^-1 g with g = df/dw at w* (diagonal-gn: 1/beta + sum_i g_i^2 / A_ii).
//
// Weights start at u ~ N(0, 1/D), v ~ N(0, 1/H), c = 0; each restart runs the whole evidence
// loop from new random weights and the start with the highest log evidence is kept. Report
// diagnostics: alpha, beta, gamma, log_evidence, negative_eigenvalues, map_iterations,
// map_evaluations, evidence_iterations (re-estimations), beta_kept, map_gradient_norm,
// weight_norm2, best_start, starts (and startI_log_evidence with restarts).
// Registered as laplace and laplace-diag (registration.cpp): exact or diagonal Gauss-Newton Hessian.
#include <Eigen/Core>
#include <string>
#include <string_view>

#include "methods/core/model.hpp"
#include "methods/core/rng.hpp"
#include "methods/core/two_layer_network.hpp"

namespace bnn::laplace {

enum class Hessian { exact, diagonal_gn };
constexpr std::array<ChoiceName<Hessian>, 2> choice_names(Hessian) {
  return {{{Hessian::exact, "exact"}, {Hessian::diagonal_gn, "diagonal-gn"}}};
}

// How alpha and beta are chosen: mackay (the evidence loop above, with its safeguards) or
// trainbr (MATLAB's schedule, trainbr.hpp: re-estimation after every Levenberg-Marquardt step,
// no safeguard; the PBP paper's LA).
enum class Schedule { mackay, trainbr };
constexpr std::array<ChoiceName<Schedule>, 2> choice_names(Schedule) {
  return {{{Schedule::mackay, "mackay"}, {Schedule::trainbr, "trainbr"}}};
}

struct Options {
  int hidden_units = 4;
  Choice<Activation> activation = Activation::erf;  // erf or tanh
  Choice<Hessian> hessian = Hessian::exact;
  bool input_bias = true;
  bool output_bias = false;
  // Start values for normalized data: weight prior variance 1, and noise variance 0.1 (the
  // network is expected to explain most of the unit target variance). Both are re-estimated.
  double initial_alpha = 1.0;
  double initial_beta = 10.0;
  // Gamma(shape, rate) hyperpriors on alpha and beta; 0, 0 is p(alpha) ~ 1/alpha (flat in
  // log alpha), which gives MacKay's updates exactly (see reestimate).
  double alpha_shape = 0.0;
  double alpha_rate = 0.0;
  double beta_shape = 0.0;
  double beta_rate = 0.0;
  int evidence_iterations = 20;
  int map_iterations = 2000;
  int restarts = 0;
  Choice<Schedule> schedule = Schedule::mackay;

  template <class Visitor>
  void visit(Visitor&& v) {
    v("hidden_units", hidden_units, "hidden units H of the two-layer network");
    v("activation", activation, "hidden-unit nonlinearity: erf (erf(a/sqrt2), Barber & Bishop) or tanh");
    v("hessian", hessian, "curvature of the data error: exact (full Hessian) or diagonal-gn (diagonal Gauss-Newton)");
    v("input_bias", input_bias, "hidden-unit biases (a constant input of 1)");
    v("output_bias", output_bias, "bias on the network output");
    v("initial_alpha", initial_alpha, "start value of the weight prior precision alpha");
    v("initial_beta", initial_beta, "start value of the noise precision beta (normalized targets)");
    v("alpha_shape", alpha_shape, "shape of the Gamma hyperprior on alpha (0 with rate 0: flat in log alpha, MacKay)");
    v("alpha_rate", alpha_rate, "rate of the Gamma hyperprior on alpha");
    v("beta_shape", beta_shape, "shape of the Gamma hyperprior on beta (0 with rate 0: flat in log beta, MacKay)");
    v("beta_rate", beta_rate, "rate of the Gamma hyperprior on beta");
    v("evidence_iterations", evidence_iterations, "most re-estimations of alpha and beta (0: keep the initial values)");
    v("map_iterations", map_iterations, "L-BFGS iterations per search for the posterior mode");
    v("restarts", restarts, "random starts besides the first; the highest log evidence is kept");
    v("schedule", schedule,
      "how alpha and beta are chosen: mackay (evidence loop with safeguards) or trainbr (MATLAB's: re-estimated "
      "after every Levenberg-Marquardt step, map_iterations steps at most, no safeguard)");
  }
  // The name used in messages: laplace-diag for the diagonal Gauss-Newton curvature, else laplace.
  std::string method_name() const;
  void validate() const;
};

// The variant registered as `laplace-diag`: the PBP paper's Laplace baseline for active
// learning (tanh, 10 units, output bias, diagonal Gauss-Newton curvature).
Options diagonal_defaults();

// gamma = sum_i max(lambda_i, 0) / (max(lambda_i, 0) + alpha), the number of well-determined
// parameters (MacKay 1992), from the eigenvalues lambda_i of beta H_D.
double effective_parameters(const Eigen::VectorXd& eigenvalues, double alpha);

struct Hyperparameters {
  double alpha = 0.0;
  double beta = 0.0;
  double gamma = 0.0;  // at the alpha the update started from
};

// One re-estimation of alpha and beta (MacKay 1992) from the eigenvalues of beta H_D at the
// mode, |w|^2, E_D, the number of points and the current alpha:
//   alpha' = (gamma + 2 alpha_shape) / (|w|^2 + 2 alpha_rate),
//   beta'  = (N - gamma + 2 beta_shape) / (2 E_D + 2 beta_rate).
// These are the stationarity conditions of the Laplace evidence times the hyperprior densities
// of log alpha and log beta: a Gamma(a, b) density on alpha is alpha^a exp(-b alpha) on log
// alpha, so a = b = 0 (p(alpha) ~ 1/alpha, flat in log alpha) gives MacKay's gamma / |w|^2 and
// (N - gamma) / (2 E_D). (The mode in alpha itself would have a - 1 in place of a.)
Hyperparameters reestimate(const Eigen::VectorXd& eigenvalues, double alpha, double weight_norm2, double squared_error,
                           Eigen::Index n, const Options& options);

// The Laplace posterior N(weights, A^-1) at given weights and hyperparameters.
struct Posterior {
  Eigen::VectorXd weights;
  double alpha = 0.0;
  double beta = 0.0;
  double squared_error = 0.0;   // E_D at the weights
  Eigen::VectorXd eigenvalues;  // of beta H_D (diagonal-gn: its diagonal)
  double gamma = 0.0;
  Eigen::Index negative_eigenvalues = 0;
  bool projected = false;  // A was not positive definite and was floored
  double log_evidence = 0.0;
  bool diagonal = false;
  Eigen::MatrixXd covariance_factor;    // exact: A^-1 = S S'
  Eigen::VectorXd covariance_diagonal;  // diagonal-gn: 1 / A_ii
  bool ok = true;                       // false if anything was not finite
};
Posterior laplace_posterior(const MlpShape& shape, const RegressionData& train, Eigen::VectorXd weights, double alpha,
                            double beta, bool diagonal);

class Model final : public ModelBase {
 public:
  Model(MlpShape shape, Posterior posterior, FitReport report)
      : ModelBase(std::move(report)), shape_(shape), posterior_(std::move(posterior)) {}
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;
  // N(w_MAP, A^-1) over the network's weights, with the log evidence.
  std::optional<GaussianPosterior> gaussian_posterior() const override;
  // -beta E_D(w) - alpha/2 |w|^2 + the Gaussian normalizers, at the re-estimated alpha and beta.
  std::optional<Eigen::VectorXd> log_joint(const RegressionData& train, const Eigen::MatrixXd& W) const override;
  const MlpShape& shape() const { return shape_; }
  const Posterior& posterior() const { return posterior_; }

 private:
  MlpShape shape_;
  Posterior posterior_;
};

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);

// The network of `options` for data with `inputs` columns.
MlpShape network_shape(const Options& options, Eigen::Index inputs);

}  // namespace bnn::laplace
