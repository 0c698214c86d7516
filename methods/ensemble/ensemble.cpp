#include "ensemble.hpp"

#include <boost/math/special_functions/digamma.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "methods/core/minimize.hpp"
#include "methods/core/normal.hpp"
#include "methods/core/options.hpp"
#include "methods/core/parallel_pieces.hpp"
#include "methods/core/predictive.hpp"
#include "methods/core/two_layer_network.hpp"

namespace bnn::ensemble {
namespace {

const char* method_name(const Options& o) {
  const CovarianceForm form = o.covariance;
  if (form == CovarianceForm::full) return "vi-full";
  if (form == CovarianceForm::factor) return "vi-fa";
  return "vi-diag";
}

double gamma_entropy(double shape, double scale) {
  return shape + std::log(scale) + std::lgamma(shape) + (1.0 - shape) * boost::math::digamma(shape);
}

// E[log p(x)] under Gamma(shape, scale) for the prior p(x) ~ x^(a-1) exp(-x/b) / (Gamma(a) b^a).
double expected_log_gamma_prior(double mean, double mean_log, double a, double b) {
  return (a - 1.0) * mean_log - mean / b - a * std::log(b) - std::lgamma(a);
}

double weight_second_moment(const GaussianQ& q) {
  return q.mean.squaredNorm() + (q.diagonal() ? q.variances.sum() : q.covariance.trace());
}

}  // namespace

void Options::validate() const {
  const char* name = method_name(*this);
  require_units(name, "hidden_units", hidden_units);
  if (covariance == CovarianceForm::factor) require_at_least(name, "factors", factors, 1);
  require_positive(name, "alpha_shape", alpha_shape);
  require_positive(name, "alpha_scale", alpha_scale);
  require_positive(name, "beta_shape", beta_shape);
  require_positive(name, "beta_scale", beta_scale);
  require_at_least(name, "initial_alpha", initial_alpha, 0.0);
  require_at_least(name, "initial_beta", initial_beta, 0.0);
  require_positive(name, "initial_variance", initial_variance);
  require_at_least(name, "cycles", cycles, 1);
  require_at_least(name, "iterations", iterations, 1);
  require_positive(name, "tolerance", tolerance);
  require_at_least(name, "restarts", restarts, 0);
}

namespace {

// -F_Q at theta for the hyperparameter means that `hyper(weight_second, expected_error)` returns
// (with the value of the negative bound it reports), and its gradient in theta.
template <class Hyper>
double evaluate(const Problem& problem, const Eigen::VectorXd& theta, Hyper hyper, Eigen::VectorXd* gradient) {
  double log_det = 0.0;
  const GaussianQ q = problem.parameterization.unpack(theta, log_det);
  const ExpectedError error =
      expected_squared_error(problem.layout, problem.augmented_X, problem.targets, q, gradient != nullptr);
  const double second = weight_second_moment(q);
  const auto [alpha, beta, value] = hyper(log_det, second, error.value);
  if (gradient) {
    const Eigen::VectorXd d_mean = alpha * q.mean + beta * error.d_mean;
    Eigen::MatrixXd d_cov;
    Eigen::VectorXd d_variances;
    if (q.diagonal()) {
      d_variances = beta * error.d_variances;
      d_variances.array() += 0.5 * alpha;
    } else {
      d_cov = beta * error.d_cov;
      d_cov.diagonal().array() += 0.5 * alpha;
    }
    *gradient = problem.parameterization.chain(theta, q, d_mean, d_cov, d_variances, -0.5);
  }
  return value;
}

struct HyperValue {
  double alpha, beta, value;
};

}  // namespace

double negative_bound(const Problem& problem, const Eigen::VectorXd& theta, double alpha, double beta,
                      Eigen::VectorXd* gradient) {
  return evaluate(
      problem, theta,
      [&](double log_det, double second, double error) {
        return HyperValue{alpha, beta, -0.5 * log_det + 0.5 * alpha * second + beta * error};
      },
      gradient);
}

double negative_collapsed_bound(const Problem& problem, const Options& options, const Eigen::VectorXd& theta,
                                Eigen::VectorXd* gradient) {
  const Eigen::Index k = problem.layout.size(), n = problem.targets.size();
  // The optimal R and S given Q are (35)-(38); at them dF/dQ equals the partial derivative with
  // alpha and beta fixed at their means (the terms through R and S vanish at their optimum).
  return evaluate(
      problem, theta,
      [&](double log_det, double second, double error) {
        const Hyperposterior h = reestimate(options, k, n, second, error);
        return HyperValue{h.alpha_mean(), h.beta_mean(), -full_bound(options, k, n, log_det, second, error, h)};
      },
      gradient);
}

Hyperposterior reestimate(const Options& o, Eigen::Index weights, Eigen::Index points, double weight_second,
                          double expected_error) {
  // (35)-(38): R(alpha) = Gamma(k/2 + a, scale s) with 1/s = (|m|^2 + tr C)/2 + 1/b, and
  // S(beta) = Gamma(N/2 + c, scale v) with 1/v = <E_D> + 1/d.
  Hyperposterior h;
  h.alpha_shape = 0.5 * static_cast<double>(weights) + o.alpha_shape;
  h.alpha_scale = 1.0 / (0.5 * weight_second + 1.0 / o.alpha_scale);
  h.beta_shape = 0.5 * static_cast<double>(points) + o.beta_shape;
  h.beta_scale = 1.0 / (expected_error + 1.0 / o.beta_scale);
  return h;
}

double full_bound(const Options& o, Eigen::Index weights, Eigen::Index points, double log_det, double weight_second,
                  double expected_error, const Hyperposterior& h) {
  const double k = static_cast<double>(weights), n = static_cast<double>(points);
  const double log_2pi = kLog2PiOfDouble;
  const double alpha = h.alpha_mean(), beta = h.beta_mean();
  const double log_alpha = boost::math::digamma(h.alpha_shape) + std::log(h.alpha_scale);
  const double log_beta = boost::math::digamma(h.beta_shape) + std::log(h.beta_scale);
  return 0.5 * n * (log_beta - log_2pi) - beta * expected_error + 0.5 * k * (log_alpha - log_2pi) -
         0.5 * alpha * weight_second + expected_log_gamma_prior(alpha, log_alpha, o.alpha_shape, o.alpha_scale) +
         expected_log_gamma_prior(beta, log_beta, o.beta_shape, o.beta_scale) + 0.5 * log_det +
         0.5 * k * (1.0 + log_2pi) + gamma_entropy(h.alpha_shape, h.alpha_scale) +
         gamma_entropy(h.beta_shape, h.beta_scale);
}

Model::Model(Layout layout, GaussianQ q, double alpha, double beta, FitReport report)
    : ModelBase(std::move(report)), layout_(layout), q_(std::move(q)), alpha_(alpha), beta_(beta) {}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  Eigen::VectorXd mean, second;
  output_moments(layout_, layout_.augment(X), q_, mean, second);
  const Eigen::VectorXd variance = (second - mean.cwiseAbs2()).cwiseMax(0.0).array() + 1.0 / beta_;
  return std::make_unique<GaussianPredictive>(mean, variance);
}

std::optional<GaussianPosterior> Model::gaussian_posterior() const {
  GaussianPosterior g;
  g.names = two_layer_parameter_names(layout_.inputs, layout_.hidden, layout_.input_bias, layout_.output_bias);
  g.mean = q_.mean;
  g.covariance = q_.diagonal() ? Eigen::MatrixXd(q_.variances.asDiagonal()) : q_.covariance;
  g.objective_name = "bound";
  g.objective = report().diagnostics.front().second;
  return g;
}

std::optional<Eigen::VectorXd> Model::log_joint(const RegressionData& train, const Eigen::MatrixXd& W) const {
  const MlpShape shape =
      two_layer_shape(layout_.inputs, layout_.hidden, Activation::erf, layout_.input_bias, layout_.output_bias);
  return two_layer_log_joint(shape, train, W, alpha_, beta_);
}

namespace {

struct StartResult {
  Eigen::VectorXd theta;
  double alpha = 0.0, beta = 0.0;
  double bound = -std::numeric_limits<double>::infinity();
  long cycles = 0, iterations = 0, evaluations = 0;
  bool converged = false, finite = true;
};

// The optimizer of Q: L-BFGS that stops when 10 iterations improved the bound by less than
// `tolerance` (relative); a non-finite evaluation is handed to the line search as +inf.
Lbfgs q_optimizer(const Options& o) {
  LBFGSpp::LBFGSParam<double> param;
  param.max_iterations = o.iterations;
  param.epsilon = 1e-6;
  param.past = 10;
  param.delta = o.tolerance;
  return Lbfgs(param, NonFinite::infinite);
}

// One run from theta, which becomes the best point seen (a failed line search ends the run
// there and counts as using every iteration). Returns the iterations.
template <class Objective>
long minimize(const Lbfgs& optimizer, Objective objective, Eigen::VectorXd& theta, long& evaluations) {
  const Minimum m = optimizer.minimize(objective, theta);
  evaluations += m.evaluations;
  theta = m.x;
  return m.line_search_failed ? optimizer.settings().max_iterations : m.iterations;
}

StartResult run_start(const Problem& problem, const Options& o, Eigen::VectorXd theta) {
  const Eigen::Index k = problem.layout.size(), n = problem.targets.size();
  StartResult result;
  const Lbfgs optimizer = q_optimizer(o);
  if (o.update_hyperparameters && o.schedule == Schedule::joint) {
    // Re-estimation (35)-(38) at every evaluation: L-BFGS on the bound maximized over R and S.
    result.iterations = minimize(
        optimizer,
        [&](const Eigen::VectorXd& x, Eigen::VectorXd& gradient) {
          return negative_collapsed_bound(problem, o, x, &gradient);
        },
        theta, result.evaluations);
    result.converged = result.iterations < o.iterations;
    result.cycles = 1;
    result.bound = -negative_collapsed_bound(problem, o, theta, nullptr);
    result.finite = std::isfinite(result.bound);
    double log_det = 0.0;
    const GaussianQ q = problem.parameterization.unpack(theta, log_det);
    const double error = expected_squared_error(problem.layout, problem.augmented_X, problem.targets, q, false).value;
    const Hyperposterior h = reestimate(o, k, n, weight_second_moment(q), error);
    result.alpha = h.alpha_mean();
    result.beta = h.beta_mean();
    result.theta = theta;
    return result;
  }
  double alpha = o.initial_alpha > 0.0 ? o.initial_alpha : o.alpha_shape * o.alpha_scale;
  double beta = o.initial_beta > 0.0 ? o.initial_beta : o.beta_shape * o.beta_scale;
  double previous_bound = -std::numeric_limits<double>::infinity();
  for (int cycle = 1; cycle <= o.cycles; ++cycle) {
    const long iterations = minimize(
        optimizer,
        [&](const Eigen::VectorXd& x, Eigen::VectorXd& gradient) {
          return negative_bound(problem, x, alpha, beta, &gradient);
        },
        theta, result.evaluations);
    result.iterations += iterations;
    double log_det = 0.0;
    const GaussianQ q = problem.parameterization.unpack(theta, log_det);
    const double expected_error =
        expected_squared_error(problem.layout, problem.augmented_X, problem.targets, q, false).value;
    const double second = weight_second_moment(q);
    double bound = 0.0;
    if (o.update_hyperparameters) {
      const Hyperposterior h = reestimate(o, k, n, second, expected_error);
      bound = full_bound(o, k, n, log_det, second, expected_error, h);
      alpha = h.alpha_mean();
      beta = h.beta_mean();
    } else {
      const double log_2pi = kLog2PiOfDouble;
      const double points = static_cast<double>(n), weights = static_cast<double>(k);
      bound = 0.5 * points * (std::log(beta) - log_2pi) - beta * expected_error +
              0.5 * weights * (std::log(alpha) - log_2pi) - 0.5 * alpha * second + 0.5 * log_det +
              0.5 * weights * (1.0 + log_2pi);
    }
    result.cycles = cycle;
    if (!std::isfinite(bound)) {
      result.finite = false;
      break;
    }
    result.bound = bound;
    if (!o.update_hyperparameters) {
      result.converged = iterations < o.iterations;
      break;
    }
    if (std::abs(bound - previous_bound) <= o.tolerance * std::abs(bound)) {
      result.converged = true;
      break;
    }
    previous_bound = bound;
  }
  result.theta = theta;
  result.alpha = alpha;
  result.beta = beta;
  return result;
}

}  // namespace

Model fit(const RegressionData& train, const Validated<Options>& valid, Rng& rng) {
  const Options& o = *valid;
  const char* name = method_name(o);
  check_training_data(train, name);
  Problem problem;
  problem.layout = Layout{train.X.cols(), o.hidden_units, o.input_bias, o.output_bias};
  problem.parameterization = Parameterization{o.covariance, problem.layout.size(), o.factors};
  problem.augmented_X = problem.layout.augment(train.X);
  problem.targets = train.y;
  const Layout& layout = problem.layout;

  // Every start's initial state is drawn first (in start order), then the starts run as
  // parallel pieces.
  std::vector<Eigen::VectorXd> initial_states;
  for (int start = 0; start <= o.restarts; ++start) {
    // Means as for a network initialized for unit-scale inputs: u ~ N(0, 1/D), v ~ N(0, 1/H).
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(layout.size());
    const double u_sd = 1.0 / std::sqrt(static_cast<double>(layout.unit_inputs()));
    const double v_sd = 1.0 / std::sqrt(static_cast<double>(layout.hidden));
    for (int i = 0; i < layout.hidden; ++i) {
      for (Eigen::Index d = 0; d < layout.unit_inputs(); ++d)
        mean[layout.u_offset(i) + d] = u_sd * standard_normal(rng);
      mean[layout.v_offset(i)] = v_sd * standard_normal(rng);
    }
    initial_states.push_back(problem.parameterization.initial(mean, o.initial_variance, rng));
  }
  std::vector<StartResult> results(initial_states.size());
  run_pieces(static_cast<int>(results.size()), [&](int start) {
    const auto s = static_cast<std::size_t>(start);
    results[s] = run_start(problem, o, std::move(initial_states[s]));
  });
  long evaluations = 0, iterations = 0;
  std::size_t best_start = 0;
  for (std::size_t start = 0; start < results.size(); ++start) {
    evaluations += results[start].evaluations;
    iterations += results[start].iterations;
    if (results[start].finite && results[start].bound > results[best_start].bound) best_start = start;
  }
  StartResult& best = results[best_start];

  FitReport report;
  report.iterations = iterations;
  double log_det = 0.0;
  GaussianQ q = problem.parameterization.unpack(best.theta, log_det);
  if (!best.finite || !best.theta.allFinite()) {
    report.status = FitStatus::numerical_error;
    report.message = std::string(name) + ": the bound became non-finite";
  } else if (!best.converged) {
    report.status = FitStatus::not_converged;
    report.message = std::string(name) + (o.schedule == Schedule::joint && o.update_hyperparameters
                                              ? ": L-BFGS stopped at the iteration limit"
                                              : ": the bound still changed at the cycle or iteration limit");
  }
  report.diagnostics = {{"bound", best.bound},
                        {"alpha", best.alpha},
                        {"beta", best.beta},
                        {"cycles", static_cast<double>(best.cycles)},
                        {"evaluations", static_cast<double>(evaluations)},
                        {"best_start", static_cast<double>(best_start)}};
  return Model(layout, std::move(q), best.alpha, best.beta, std::move(report));
}

}  // namespace bnn::ensemble
