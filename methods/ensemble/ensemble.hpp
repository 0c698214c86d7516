#pragma once
// Ensemble learning (Barber & Bishop 1998): a Gaussian Q(w) with full, factor-analysis (eq. 26)
// or diagonal covariance fitted to the posterior of a two-layer erf network by maximizing the
// lower bound (17) on the log marginal likelihood, computed exactly up to a bivariate normal
// integral (Appendix A) with its analytic gradient, by L-BFGS; the hyperparameters alpha (weight
// precision) and beta (noise precision) have Gamma hyperpriors (27)-(28) and factorized
// posteriors R(alpha) S(beta) re-estimated by (35)-(38) in alternation with Q.
// Registered as vi-full, vi-fa and vi-diag (registration.cpp): the three covariance forms.
#include <Eigen/Core>
#include <string>

#include "covariance.hpp"
#include "expected_error.hpp"
#include "methods/core/model.hpp"
#include "methods/core/rng.hpp"

namespace bnn::ensemble {

// joint: alpha and beta re-estimated at every evaluation; alternate: in cycles.
enum class Schedule { joint, alternate };
constexpr std::array<ChoiceName<Schedule>, 2> choice_names(Schedule) {
  return {{{Schedule::joint, "joint"}, {Schedule::alternate, "alternate"}}};
}

struct Options {
  int hidden_units = 4;
  Choice<CovarianceForm> covariance = CovarianceForm::full;
  int factors = 1;
  bool input_bias = true;
  bool output_bias = false;
  // Gamma hyperpriors in the paper's shape-scale form p(alpha) ~ alpha^(a-1) exp(-alpha/b).
  double alpha_shape = 0.25;   // a
  double alpha_scale = 400.0;  // b
  double beta_shape = 0.05;    // c
  double beta_scale = 2000.0;  // d
  bool update_hyperparameters = true;
  double initial_alpha = 0.0;  // 0: the hyperprior mean a b
  double initial_beta = 0.0;   // 0: the hyperprior mean c d
  double initial_variance = 1e-2;
  Choice<Schedule> schedule = Schedule::joint;
  int cycles = 100;         // alternations of Q optimization and hyperparameter re-estimation
  int iterations = 2000;    // L-BFGS iterations per Q optimization
  double tolerance = 1e-7;  // relative change of the bound at which an optimization stops
  int restarts = 0;         // extra random starts; the start with the highest bound is kept

  template <class Visitor>
  void visit(Visitor&& v) {
    v("hidden_units", hidden_units, "hidden erf units H");
    v("covariance", covariance, "form of the covariance of Q: full, factor (diag + s factors, eq. 26) or diagonal");
    v("factors", factors, "number s of factors of the factor form");
    v("input_bias", input_bias, "append a constant input (hidden-unit biases)");
    v("output_bias", output_bias, "add an output bias weight");
    v("alpha_shape", alpha_shape, "shape a of the Gamma hyperprior on the weight precision alpha (eq. 27)");
    v("alpha_scale", alpha_scale, "scale b of the Gamma hyperprior on alpha (eq. 27)");
    v("beta_shape", beta_shape, "shape c of the Gamma hyperprior on the noise precision beta (eq. 28)");
    v("beta_scale", beta_scale, "scale d of the Gamma hyperprior on beta (eq. 28)");
    v("update_hyperparameters", update_hyperparameters,
      "re-estimate alpha and beta by (37)-(38); false keeps them at their initial values");
    v("initial_alpha", initial_alpha, "initial (or fixed) alpha; 0 means the hyperprior mean a b");
    v("initial_beta", initial_beta, "initial (or fixed) beta; 0 means the hyperprior mean c d");
    v("initial_variance", initial_variance, "initial marginal variance of every weight under Q");
    v("schedule", schedule,
      "joint: re-estimate alpha and beta by (37)-(38) at every evaluation and optimize Q on that bound; "
      "alternate: optimize Q to convergence, then re-estimate, in cycles (the paper's description; same fixed points)");
    v("cycles", cycles, "alternations of Q optimization and hyperparameter re-estimation (schedule = alternate)");
    v("iterations", iterations, "L-BFGS iterations per Q optimization");
    v("tolerance", tolerance,
      "relative improvement of the bound over 10 L-BFGS iterations (or over one alternation cycle) at which to stop");
    v("restarts", restarts, "extra random starts; the one with the highest bound is kept");
  }
  void validate() const;
};

// Everything the bound needs besides theta.
struct Problem {
  Layout layout;
  Parameterization parameterization;
  Eigen::MatrixXd augmented_X;
  Eigen::VectorXd targets;
};

// -F_Q: the part of the negative bound that depends on Q, for hyperparameters fixed at alpha,
// beta: -0.5 log|C| + alpha/2 (|m|^2 + tr C) + beta <E_D> (eqs. 17-20, 34), and its gradient.
double negative_bound(const Problem& problem, const Eigen::VectorXd& theta, double alpha, double beta,
                      Eigen::VectorXd* gradient);

// The negative of the bound maximized over R and S for this Q (each evaluation re-estimates
// R and S by (35)-(38)), and its gradient in theta.
double negative_collapsed_bound(const Problem& problem, const Options& options, const Eigen::VectorXd& theta,
                                Eigen::VectorXd* gradient);

// Hyperparameter posteriors R(alpha) = Gamma(shape, scale), S(beta) likewise (eqs. 35-38).
struct Hyperposterior {
  double alpha_shape = 0.0, alpha_scale = 0.0;
  double beta_shape = 0.0, beta_scale = 0.0;
  double alpha_mean() const { return alpha_shape * alpha_scale; }
  double beta_mean() const { return beta_shape * beta_scale; }
};
Hyperposterior reestimate(const Options& options, Eigen::Index weights, Eigen::Index points,
                          double weight_second_moment, double expected_error);
// The full lower bound F[Q, R, S] (eq. 33) on log p(D), hyperpriors included.
double full_bound(const Options& options, Eigen::Index weights, Eigen::Index points, double log_det,
                  double weight_second_moment, double expected_error, const Hyperposterior& h);

class Model final : public ModelBase {
 public:
  Model(Layout layout, GaussianQ q, double alpha, double beta, FitReport report);
  // Gaussian with the mean and variance of the predictive under Q (eq. 8 with Q for the
  // posterior) plus the noise variance 1/beta at the averaged hyperparameters.
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;
  // Q over the network's weights, with the bound F[Q] it maximized.
  std::optional<GaussianPosterior> gaussian_posterior() const override;
  // The posterior Q approximates, unnormalized, at the averaged hyperparameters.
  std::optional<Eigen::VectorXd> log_joint(const RegressionData& train, const Eigen::MatrixXd& W) const override;
  const GaussianQ& q() const { return q_; }
  double alpha() const { return alpha_; }
  double beta() const { return beta_; }

 private:
  Layout layout_;
  GaussianQ q_;
  double alpha_, beta_;
};

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);

}  // namespace bnn::ensemble
