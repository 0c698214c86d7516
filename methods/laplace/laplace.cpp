#include "laplace.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "methods/core/minimize.hpp"
#include "methods/core/normal.hpp"
#include "methods/core/options.hpp"
#include "methods/core/parallel_pieces.hpp"
#include "trainbr.hpp"

namespace bnn::laplace {
namespace {

constexpr double kSettledChange = 1e-4;  // relative change of alpha and beta that ends the loop
constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool is_diagonal(const Options& options) { return options.hessian == Hessian::diagonal_gn; }

// The mode of the posterior for fixed alpha and beta: L-BFGS on beta E_D + alpha/2 |w|^2 from
// `weights`. Returns the best point evaluated (a failing line search still leaves one).
struct Mode {
  Eigen::VectorXd weights;
  long iterations = 0;  // L-BFGS iterations; a search ended by its line search counts its evaluations
  long evaluations = 0;
  double gradient_norm = kInfinity;
};

Mode find_mode(const MlpShape& shape, const RegressionData& train, const Eigen::VectorXd& weights, double alpha,
               double beta, int max_iterations) {
  LBFGSpp::LBFGSParam<double> param;
  param.m = 10;
  param.max_iterations = max_iterations;
  // Gradient norm below 1e-5 max(1, |w|), or relative decrease below 1e-12 over 10 iterations:
  // below that the line search only sees rounding (the objective is O(N beta)).
  param.epsilon = 1e-5;
  param.epsilon_rel = 1e-5;
  param.past = 10;
  param.delta = 1e-12;
  // A non-finite evaluation is handed to the line search as 1e300 with a zero gradient.
  const auto objective = [&](const Eigen::VectorXd& w, Eigen::VectorXd& gradient) {
    const double value = beta * squared_error(shape, w, train.X, train.y, &gradient) + 0.5 * alpha * w.squaredNorm();
    gradient = beta * gradient + alpha * w;
    return value;
  };
  const Minimum m = Lbfgs(param, NonFinite::huge).minimize(objective, weights);
  Mode mode;
  mode.weights = m.x;
  mode.evaluations = m.evaluations;
  mode.gradient_norm = m.gradient_norm;
  // a line search failure (limited precision) keeps the best point and counts its evaluations
  mode.iterations = m.line_search_failed ? m.evaluations : m.iterations;
  return mode;
}

// One start of the evidence loop from `weights`.
struct Start {
  Posterior posterior;
  long map_iterations = 0;
  long map_evaluations = 0;
  int reestimations = 0;
  int beta_kept = 0;       // re-estimations that left beta unchanged because gamma >= N
  long negative_beta = 0;  // trainbr: updates that made beta negative
  bool settled = false;
  double gradient_norm = kInfinity;  // of the objective at the final mode
  std::string error;
};

// MATLAB's schedule (trainbr.hpp): the posterior at its last alpha and beta, whatever their sign.
Start run_trainbr_start(const MlpShape& shape, const RegressionData& train, const Options& options,
                        Eigen::VectorXd weights) {
  Start start;
  TrainbrResult r = trainbr(shape, train, std::move(weights), options.map_iterations, is_diagonal(options));
  start.map_iterations = r.epochs;
  start.map_evaluations = r.evaluations;
  start.reestimations = static_cast<int>(r.epochs);
  start.beta_kept = 0;
  start.negative_beta = r.negative_beta;
  start.settled = true;
  start.gradient_norm = r.gradient_norm;
  start.posterior = laplace_posterior(shape, train, std::move(r.weights), r.alpha, r.beta, is_diagonal(options));
  if (!start.posterior.ok)
    start.error = "trainbr ended (" + r.stop + ") at alpha " + option_detail::format_double(r.alpha) + ", beta " +
                  option_detail::format_double(r.beta);
  return start;
}

Start run_start(const MlpShape& shape, const RegressionData& train, const Options& options, Eigen::VectorXd weights) {
  if (options.schedule == Schedule::trainbr) return run_trainbr_start(shape, train, options, std::move(weights));
  Start start;
  double alpha = options.initial_alpha, beta = options.initial_beta;
  double alpha_step = 0.0, beta_step = 0.0;  // last changes of log alpha and log beta
  for (;;) {
    Mode mode = find_mode(shape, train, weights, alpha, beta, options.map_iterations);
    start.map_iterations += mode.iterations;
    start.map_evaluations += mode.evaluations;
    Posterior posterior = laplace_posterior(shape, train, mode.weights, alpha, beta, is_diagonal(options));
    if (!posterior.ok) {
      start.error = "non-finite error, curvature or evidence at alpha " + option_detail::format_double(alpha) +
                    ", beta " + option_detail::format_double(beta);
      if (start.reestimations == 0) start.posterior = std::move(posterior);  // nothing better to keep
      return start;
    }
    start.posterior = std::move(posterior);
    start.gradient_norm = mode.gradient_norm;
    weights = std::move(mode.weights);
    if (start.reestimations == options.evidence_iterations) return start;
    const Posterior& p = start.posterior;
    Hyperparameters next =
        reestimate(p.eigenvalues, alpha, p.weights.squaredNorm(), p.squared_error, train.X.rows(), options);
    ++start.reestimations;
    if (!(std::isfinite(next.alpha) && next.alpha > 0.0 && std::isfinite(next.beta))) {
      start.error = "re-estimation gave alpha " + option_detail::format_double(next.alpha) + ", beta " +
                    option_detail::format_double(next.beta);
      return start;
    }
    if (next.beta <= 0.0) {
      // gamma >= N (possible with the diagonal curvature, which ignores that J'J has rank <= N):
      // MacKay's beta update has no positive solution, so beta keeps its value.
      next.beta = beta;
      ++start.beta_kept;
    }
    if (std::abs(next.alpha - alpha) <= kSettledChange * alpha && std::abs(next.beta - beta) <= kSettledChange * beta) {
      start.settled = true;
      return start;
    }
    // The fixed-point map can overshoot (with the diagonal curvature it oscillates and converges
    // very slowly): a step that reverses the previous one is halved on the log scale. The
    // fixed point is unchanged.
    const auto damped = [](double proposed, double& last) {
      const double step = proposed * last < 0.0 ? 0.5 * proposed : proposed;
      last = step;
      return step;
    };
    alpha *= std::exp(damped(std::log(next.alpha / alpha), alpha_step));
    beta *= std::exp(damped(std::log(next.beta / beta), beta_step));
  }
}

Eigen::VectorXd initial_weights(const MlpShape& shape, Rng& rng) {
  Eigen::VectorXd w = Eigen::VectorXd::Zero(shape.parameter_count());  // output bias starts at 0
  const Eigen::Index hidden = shape.layer_units(0), output_offset = shape.weight_offset(1);
  const double input_sd = 1.0 / std::sqrt(static_cast<double>(shape.layer_fan_in(0)));
  const double output_sd = 1.0 / std::sqrt(static_cast<double>(hidden));
  for (Eigen::Index i = 0; i < output_offset; ++i) w[i] = input_sd * standard_normal(rng);
  for (Eigen::Index i = 0; i < hidden; ++i) w[output_offset + i] = output_sd * standard_normal(rng);
  return w;
}

}  // namespace

std::string Options::method_name() const { return is_diagonal(*this) ? "laplace-diag" : "laplace"; }

void Options::validate() const {
  const std::string name = method_name();
  require_units(name, "hidden_units", hidden_units);
  if (activation == Activation::relu)
    throw std::invalid_argument(name + ": activation is 'relu', but must be erf or tanh");
  require_positive(name, "initial_alpha", initial_alpha);
  require_positive(name, "initial_beta", initial_beta);
  require_at_least(name, "alpha_shape", alpha_shape, 0.0);
  require_at_least(name, "alpha_rate", alpha_rate, 0.0);
  require_at_least(name, "beta_shape", beta_shape, 0.0);
  require_at_least(name, "beta_rate", beta_rate, 0.0);
  require_at_least(name, "evidence_iterations", evidence_iterations, 0);
  require_at_least(name, "map_iterations", map_iterations, 1);
  require_at_least(name, "restarts", restarts, 0);
}

Options diagonal_defaults() {
  Options o;
  o.hidden_units = 10;
  o.activation = Activation::tanh;
  o.hessian = Hessian::diagonal_gn;
  o.output_bias = true;
  return o;
}

MlpShape network_shape(const Options& options, Eigen::Index inputs) {
  return two_layer_shape(inputs, options.hidden_units, options.activation, options.input_bias, options.output_bias);
}

double effective_parameters(const Eigen::VectorXd& eigenvalues, double alpha) {
  const Eigen::ArrayXd lambda = eigenvalues.array().max(0.0);
  return (lambda / (lambda + alpha)).sum();
}

Hyperparameters reestimate(const Eigen::VectorXd& eigenvalues, double alpha, double weight_norm2, double squared_error,
                           Eigen::Index n, const Options& options) {
  Hyperparameters h;
  h.gamma = effective_parameters(eigenvalues, alpha);
  h.alpha = (h.gamma + 2.0 * options.alpha_shape) / (weight_norm2 + 2.0 * options.alpha_rate);
  h.beta =
      (static_cast<double>(n) - h.gamma + 2.0 * options.beta_shape) / (2.0 * squared_error + 2.0 * options.beta_rate);
  return h;
}

Posterior laplace_posterior(const MlpShape& shape, const RegressionData& train, Eigen::VectorXd weights, double alpha,
                            double beta, bool diagonal) {
  Posterior p;
  p.weights = std::move(weights);
  p.alpha = alpha;
  p.beta = beta;
  p.diagonal = diagonal;
  p.squared_error = squared_error(shape, p.weights, train.X, train.y);
  double log_det_a = 0.0;
  if (diagonal) {
    p.eigenvalues = beta * gauss_newton_diagonal(shape, p.weights, train.X);
    const Eigen::VectorXd a_diagonal = p.eigenvalues.array() + alpha;
    p.covariance_diagonal = a_diagonal.cwiseInverse();
    log_det_a = a_diagonal.array().log().sum();
  } else {
    const Eigen::MatrixXd curvature = beta * squared_error_hessian(shape, p.weights, train.X, train.y);
    if (!curvature.allFinite()) {
      p.ok = false;
      return p;
    }
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(curvature);
    if (eigen.info() != Eigen::Success) {
      p.ok = false;
      return p;
    }
    p.eigenvalues = eigen.eigenvalues();
    Eigen::VectorXd a_eigenvalues = p.eigenvalues.array() + alpha;
    if (a_eigenvalues.minCoeff() <= 0.0) {
      p.projected = true;
      a_eigenvalues = p.eigenvalues.cwiseMax(0.0).array() + alpha;
    }
    p.covariance_factor = eigen.eigenvectors() * a_eigenvalues.cwiseInverse().cwiseSqrt().asDiagonal();
    log_det_a = a_eigenvalues.array().log().sum();
  }
  p.negative_eigenvalues = (p.eigenvalues.array() < 0.0).count();
  p.gamma = effective_parameters(p.eigenvalues, alpha);
  const double n = static_cast<double>(train.X.rows());
  const double k = static_cast<double>(shape.parameter_count());
  // MacKay (1992): log evidence of (alpha, beta) under the Gaussian approximation at the mode.
  p.log_evidence = -beta * p.squared_error - 0.5 * alpha * p.weights.squaredNorm() - 0.5 * log_det_a +
                   0.5 * k * std::log(alpha) + 0.5 * n * std::log(beta) - 0.5 * n * kLog2PiOfDouble;
  p.ok = std::isfinite(p.log_evidence) && p.weights.allFinite() && p.eigenvalues.allFinite();
  return p;
}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  const Posterior& p = posterior_;
  const Eigen::VectorXd mean = network_outputs(shape_, p.weights, X);
  Eigen::VectorXd variance;
  if (!p.ok) {
    variance = Eigen::VectorXd::Constant(X.rows(), std::numeric_limits<double>::quiet_NaN());
  } else {
    const Eigen::MatrixXd J = network_jacobian(shape_, p.weights, X);  // rows are g' = (df/dw)'
    const Eigen::VectorXd weight_variance = p.diagonal
                                                ? Eigen::VectorXd(J.array().square().matrix() * p.covariance_diagonal)
                                                : Eigen::VectorXd((J * p.covariance_factor).rowwise().squaredNorm());
    variance = weight_variance.array() + 1.0 / p.beta;
  }
  return std::make_unique<GaussianPredictive>(mean, variance);
}

std::optional<GaussianPosterior> Model::gaussian_posterior() const {
  const Posterior& p = posterior_;
  GaussianPosterior g;
  g.names = two_layer_parameter_names(shape_.inputs, shape_.layer_units(0), shape_.hidden_bias, shape_.output_bias);
  g.mean = p.weights;
  g.covariance = p.diagonal ? Eigen::MatrixXd(p.covariance_diagonal.asDiagonal())
                            : Eigen::MatrixXd(p.covariance_factor * p.covariance_factor.transpose());
  g.objective_name = "log_evidence";
  g.objective = p.log_evidence;
  return g;
}

std::optional<Eigen::VectorXd> Model::log_joint(const RegressionData& train, const Eigen::MatrixXd& W) const {
  return two_layer_log_joint(shape_, train, W, posterior_.alpha, posterior_.beta);
}

Model fit(const RegressionData& train, const Validated<Options>& valid, Rng& rng) {
  const Options& options = *valid;
  check_training_data(train, options.method_name());
  const MlpShape shape = network_shape(options, train.X.cols());
  // Every start's weights are drawn first (in start order), then the starts run as parallel pieces.
  std::vector<Eigen::VectorXd> initial;
  for (int s = 0; s <= options.restarts; ++s) initial.push_back(initial_weights(shape, rng));
  std::vector<Start> starts(initial.size());
  run_pieces(static_cast<int>(starts.size()), [&](int s) {
    const auto i = static_cast<std::size_t>(s);
    starts[i] = run_start(shape, train, options, std::move(initial[i]));
  });
  std::size_t best = 0;
  long total_iterations = 0;
  const auto evidence = [](const Start& s) { return s.posterior.ok ? s.posterior.log_evidence : -kInfinity; };
  for (std::size_t s = 0; s < starts.size(); ++s) {
    total_iterations += starts[s].map_iterations;
    if (evidence(starts[s]) > evidence(starts[best])) best = s;
  }
  Start& chosen = starts[best];
  const Posterior& p = chosen.posterior;

  FitReport report;
  report.iterations = total_iterations;
  if (!p.ok) {
    report.status = FitStatus::numerical_error;
    report.message = chosen.error.empty() ? "no start reached a finite evidence" : chosen.error;
  } else if (!chosen.error.empty()) {
    report.status = FitStatus::numerical_error;
    report.message = chosen.error + "; kept the last finite state";
  } else if (options.evidence_iterations > 0 && !chosen.settled) {
    report.status = FitStatus::not_converged;
    report.message = "alpha and beta still changed by more than 1e-4 (relative) after " +
                     std::to_string(chosen.reestimations) + " re-estimations";
  }
  if (chosen.negative_beta > 0)
    report.warnings.push_back("gamma exceeded the number of points in " + std::to_string(chosen.negative_beta) +
                              " trainbr updates, which made beta negative there");
  if (chosen.beta_kept > 0)
    report.warnings.push_back("gamma reached the number of points in " + std::to_string(chosen.beta_kept) +
                              " re-estimations; beta kept its previous value there");
  if (p.projected)
    report.warnings.push_back(
        "A = beta H + alpha I was not positive definite at the mode; its eigenvalues were "
        "floored at alpha");
  const double gradient_tolerance = 1e-3 * std::max(1.0, p.weights.norm());
  if (p.ok && !(chosen.gradient_norm <= gradient_tolerance))
    report.warnings.push_back("the final mode search stopped with objective gradient norm " +
                              option_detail::format_double(chosen.gradient_norm));
  report.diagnostics = {{"alpha", p.alpha},
                        {"beta", p.beta},
                        {"gamma", p.gamma},
                        {"log_evidence", p.log_evidence},
                        {"negative_eigenvalues", static_cast<double>(p.negative_eigenvalues)},
                        {"map_iterations", static_cast<double>(chosen.map_iterations)},
                        {"map_evaluations", static_cast<double>(chosen.map_evaluations)},
                        {"evidence_iterations", static_cast<double>(chosen.reestimations)},
                        {"beta_kept", static_cast<double>(chosen.beta_kept)},
                        {"negative_beta", static_cast<double>(chosen.negative_beta)},
                        {"map_gradient_norm", chosen.gradient_norm},
                        {"weight_norm2", p.weights.squaredNorm()},
                        {"best_start", static_cast<double>(best)},
                        {"starts", static_cast<double>(starts.size())}};
  if (starts.size() > 1)
    for (std::size_t s = 0; s < starts.size(); ++s)
      report.diagnostics.emplace_back("start" + std::to_string(s) + "_log_evidence", evidence(starts[s]));
  return Model(shape, std::move(chosen.posterior), std::move(report));
}

}  // namespace bnn::laplace
