#include "gp.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "cholesky_inverse.hpp"
#include "methods/core/lapack.hpp"
#include "methods/core/minimize.hpp"
#include "methods/core/normal.hpp"
#include "methods/core/options.hpp"
#include "methods/core/parallel_pieces.hpp"

namespace bnn::gp {
namespace {

constexpr double kLogBound = 15.0;  // log-parameters are kept in [-15, 15]

// Cholesky factor L of C = K + noise I into the lower triangle of C (K given by its lower
// triangle), adding jitter (relative to the mean diagonal of C) only if the factorization fails.
bool factorize(const Eigen::MatrixXd& kernel, double noise, Eigen::MatrixXd& C, double& jitter,
               Eigen::Index tiled_from_rows) {
  const auto cholesky = [&] {
    return tiled(kernel.rows(), tiled_from_rows) ? tiled_cholesky_lower(C) : lapack::cholesky_lower(C);
  };
  const auto load = [&](double extra_diagonal) {
    C.resize(kernel.rows(), kernel.cols());
    C.triangularView<Eigen::Lower>() = kernel;
    C.diagonal().array() += noise;
    C.diagonal().array() += extra_diagonal;
  };
  load(0.0);
  if (cholesky()) return true;
  const double scale = (kernel.diagonal().array() + noise).mean();
  for (double j = 1e-10; j <= 1e-4; j *= 10.0) {
    jitter = j * scale;
    load(jitter);
    if (cholesky()) return true;
  }
  return false;
}

}  // namespace

void Options::validate() const {
  const char* name = ard ? "gp-ard" : "gp";
  require_at_least(name, "restarts", restarts, 0);
  require_at_least(name, "tiled_from_rows", tiled_from_rows, 0);
  require_at_least(name, "max_iterations", max_iterations, 1);
  require_positive(name, "gradient_tolerance", gradient_tolerance);
  require_positive(name, "initial_signal_variance", initial_signal_variance);
  require_positive(name, "initial_bias_variance", initial_bias_variance);
  require_at_least(name, "initial_input_variance", initial_input_variance, 0.0);
  require_positive(name, "initial_noise_variance", initial_noise_variance);
}

Eigen::VectorXd to_log_vector(const Hyperparameters& h, bool ard) {
  const Eigen::Index inputs = ard ? h.kernel.input_variances.size() : 1;
  Eigen::VectorXd theta(inputs + 3);
  theta[0] = std::log(h.kernel.signal_variance);
  theta[1] = std::log(h.kernel.bias_variance);
  if (ard)
    theta.segment(2, inputs) = h.kernel.input_variances.array().log();
  else
    theta[2] = std::log(h.kernel.input_variances.size() ? h.kernel.input_variances[0] : 1.0);
  theta[inputs + 2] = std::log(h.noise_variance);
  return theta;
}

Hyperparameters from_log_vector(const Eigen::VectorXd& theta, Eigen::Index inputs, bool ard) {
  Hyperparameters h;
  h.kernel.signal_variance = std::exp(theta[0]);
  h.kernel.bias_variance = std::exp(theta[1]);
  h.kernel.input_variances = ard ? Eigen::VectorXd(theta.segment(2, inputs).array().exp())
                                 : Eigen::VectorXd::Constant(inputs, std::exp(theta[2]));
  h.noise_variance = std::exp(theta[theta.size() - 1]);
  return h;
}

Evidence log_marginal_likelihood(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& theta,
                                 bool ard, bool with_gradient) {
  EvidenceWorkspace workspace;
  return log_marginal_likelihood(X, y, theta, ard, with_gradient, workspace);
}

Evidence log_marginal_likelihood(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& theta,
                                 bool ard, bool with_gradient, EvidenceWorkspace& workspace) {
  Evidence e;
  const Eigen::Index n = X.rows();
  const Hyperparameters h = from_log_vector(theta, X.cols(), ard);
  NnKernelTerms& terms = workspace.terms;
  nn_kernel_terms(X, h.kernel, terms);
  Eigen::MatrixXd& C = workspace.C;
  if (!factorize(terms.kernel, h.noise_variance, C, e.jitter, workspace.tiled_from_rows)) {
    e.ok = false;
    e.log_marginal_likelihood = -std::numeric_limits<double>::infinity();
    return e;
  }
  Eigen::VectorXd alpha = C.triangularView<Eigen::Lower>().solve(y);
  e.log_marginal_likelihood =
      -0.5 * alpha.squaredNorm() - C.diagonal().array().log().sum() - 0.5 * static_cast<double>(n) * kLog2PiOfDouble;
  if (!with_gradient) return e;
  C.triangularView<Eigen::Lower>().transpose().solveInPlace(alpha);  // alpha = C^-1 y
  // d log p / d theta = tr(W dC/dtheta), W = (alpha alpha' - C^-1) / 2 (Rasmussen & Williams
  // eq. 5.9), symmetric: lower triangle only.
  if (tiled(n, workspace.tiled_from_rows))
    tiled_inverse_from_cholesky_lower(C, workspace.inverse_factor);
  else
    inverse_from_cholesky_lower(C);
  Eigen::MatrixXd& W = C;
  W.triangularView<Eigen::Lower>() *= -0.5;
  W.selfadjointView<Eigen::Lower>().rankUpdate(alpha, 0.5);
  e.gradient.resize(theta.size());
  const double trace_w = W.trace();
  e.gradient[theta.size() - 1] = h.noise_variance * trace_w;
  // sum_ij W_ij K_ij = tr(W (C - noise I)) = (y'alpha - n)/2 - noise tr(W): K itself is not needed.
  e.gradient[0] = 0.5 * (y.dot(alpha) - static_cast<double>(n)) - h.noise_variance * trace_w;
  const NnKernelGradient g = nn_kernel_contract(X, h.kernel, terms, W);
  e.gradient[1] = g.log_bias_variance;
  if (ard)
    e.gradient.segment(2, X.cols()) = g.log_input_variances;
  else
    e.gradient[2] = g.log_input_variances.sum();
  return e;
}

Model::Model(Eigen::MatrixXd X, Hyperparameters h, Eigen::MatrixXd cholesky, Eigen::VectorXd alpha, FitReport report)
    : ModelBase(std::move(report)),
      X_(std::move(X)),
      h_(std::move(h)),
      cholesky_(std::move(cholesky)),
      alpha_(std::move(alpha)) {}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  const Eigen::MatrixXd Ks = nn_kernel_cross(X, X_, h_.kernel);  // m x n
  const Eigen::VectorXd mean = Ks * alpha_;
  Eigen::VectorXd variance(0);
  if (X.rows() > 0) {  // no rows (a figure's empty test part): Eigen's solve would bind a null reference
    const Eigen::MatrixXd V = cholesky_.triangularView<Eigen::Lower>().solve(Ks.transpose());  // n x m
    variance = nn_kernel_diagonal(X, h_.kernel) - V.colwise().squaredNorm().transpose();
  }
  variance = variance.cwiseMax(0.0).array() + h_.noise_variance;
  return std::make_unique<GaussianPredictive>(mean, variance);
}

Model condition(const RegressionData& train, const Hyperparameters& h, FitReport report, Eigen::Index tiled_from_rows) {
  Eigen::MatrixXd C;
  double jitter = 0.0;
  if (!factorize(nn_kernel_terms(train.X, h.kernel).kernel, h.noise_variance, C, jitter, tiled_from_rows)) {
    report.status = FitStatus::numerical_error;
    report.message = "the kernel matrix is not positive definite even with jitter";
  }
  if (jitter > 0)
    report.warnings.push_back("jitter " + option_detail::format_double(jitter) + " added to the kernel diagonal");
  Eigen::VectorXd alpha = C.triangularView<Eigen::Lower>().solve(train.y);
  C.triangularView<Eigen::Lower>().transpose().solveInPlace(alpha);
  return Model(train.X, h, std::move(C), std::move(alpha), std::move(report));
}

namespace {

struct StartResult {
  Eigen::VectorXd theta;
  double negative_log_ml = std::numeric_limits<double>::infinity();
  long iterations = 0;
  long evaluations = 0;
  bool converged = false;
};

// Runs L-BFGS-B from theta on the negative log marginal likelihood; returns the best point
// evaluated (a failing line search still leaves a usable point).
StartResult optimize(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, bool ard, Eigen::VectorXd theta,
                     const Options& options) {
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = options.max_iterations;
  param.epsilon = 1e-8;
  param.epsilon_rel = options.gradient_tolerance;
  param.past = 1;
  param.delta = 1e-7;  // also stop when the objective improves by less than this (relative)
  param.max_linesearch = 40;
  Eigen::VectorXd lower = Eigen::VectorXd::Constant(theta.size(), -kLogBound);
  Eigen::VectorXd upper = Eigen::VectorXd::Constant(theta.size(), kLogBound);
  theta = theta.cwiseMax(lower).cwiseMin(upper);
  if (!options.learn_signal_variance) lower[0] = upper[0] = theta[0];  // log signal variance held
  // A failed factorization or a non-finite evidence is handed to the line search as 1e300 with
  // a zero gradient; the gradient itself is not checked.
  EvidenceWorkspace workspace;
  workspace.tiled_from_rows = options.tiled_from_rows;
  const auto negative_log_ml = [&](const Eigen::VectorXd& t, Eigen::VectorXd& gradient) {
    const Evidence e = log_marginal_likelihood(X, y, t, ard, true, workspace);
    if (!e.ok) return std::numeric_limits<double>::infinity();
    gradient = -e.gradient;
    return -e.log_marginal_likelihood;
  };
  const Minimum m = LbfgsBounded(param, NonFinite::huge_value).minimize(negative_log_ml, theta, lower, upper);
  StartResult result;
  result.iterations = m.iterations;
  result.converged = !m.line_search_failed && m.iterations < options.max_iterations;
  result.theta = m.x;
  result.negative_log_ml = m.value;
  result.evaluations = m.evaluations;
  return result;
}

}  // namespace

Model fit(const RegressionData& train, const Validated<Options>& valid, Rng& rng) {
  const Options& options = *valid;
  const char* name = options.ard ? "gp-ard" : "gp";
  check_training_data(train, name);
  const Eigen::Index d = train.X.cols();
  Hyperparameters initial;
  initial.kernel.signal_variance = options.initial_signal_variance;
  initial.kernel.bias_variance = options.initial_bias_variance;
  // With many normalized inputs a unit variance per input makes u'Su ~ d: the kernel starts
  // almost white and the optimizer can drift to the all-noise solution. Start at 1/d.
  const double input_variance =
      options.initial_input_variance > 0.0 ? options.initial_input_variance : 1.0 / static_cast<double>(d);
  initial.kernel.input_variances = Eigen::VectorXd::Constant(d, input_variance);
  initial.noise_variance = options.initial_noise_variance;

  // Deterministic start: the shared-scale optimum (for GP-ARD, expanded to one variance per
  // input). Random starts: every log-parameter of the initial values moved by U(-log 10, log 10).
  // The random starts are drawn first, then every start runs as a parallel piece.
  std::vector<Eigen::VectorXd> random_starts;
  for (int r = 0; r < options.restarts; ++r) {
    Eigen::VectorXd theta = to_log_vector(initial, options.ard);
    for (Eigen::Index k = 0; k < theta.size(); ++k) {
      const double shift = uniform(rng, -std::log(10.0), std::log(10.0));
      if (k > 0 || options.learn_signal_variance) theta[k] += shift;  // same draws either way
    }
    random_starts.push_back(std::move(theta));
  }
  std::vector<StartResult> results(random_starts.size() + 1);
  long shared_iterations = 0, shared_evaluations = 0;
  FitReport report;
  // The starts' evaluations may split into pieces of their own (cholesky_inverse.hpp), which
  // threads beyond one per start take up.
  run_pieces(
      static_cast<int>(results.size()),
      [&](int piece) {
        if (piece > 0) {
          const Eigen::VectorXd& start = random_starts[static_cast<std::size_t>(piece - 1)];
          results[static_cast<std::size_t>(piece)] = optimize(train.X, train.y, options.ard, start, options);
          return;
        }
        const StartResult shared = optimize(train.X, train.y, false, to_log_vector(initial, false), options);
        if (!options.ard) {
          results[0] = shared;
          return;
        }
        shared_iterations = shared.iterations;
        shared_evaluations = shared.evaluations;
        results[0] =
            optimize(train.X, train.y, true, to_log_vector(from_log_vector(shared.theta, d, false), true), options);
      },
      0, tiled(train.X.rows(), options.tiled_from_rows));
  long iterations = shared_iterations, evaluations = shared_evaluations;
  std::size_t best = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    iterations += results[i].iterations;
    evaluations += results[i].evaluations;
    if (results[i].negative_log_ml < results[best].negative_log_ml) best = i;
  }
  const StartResult& chosen = results[best];
  report.iterations = iterations;
  if (!std::isfinite(chosen.negative_log_ml)) {
    report.status = FitStatus::numerical_error;
    report.message = "no start reached a finite marginal likelihood";
  } else if (!chosen.converged) {
    report.status = FitStatus::not_converged;
    report.message = "the best start stopped before the gradient tolerance was met";
  }
  const Hyperparameters h = from_log_vector(chosen.theta, d, options.ard);
  report.diagnostics = {{"log_marginal_likelihood", -chosen.negative_log_ml},
                        {"best_start", static_cast<double>(best)},
                        {"starts", static_cast<double>(results.size())},
                        {"function_evaluations", static_cast<double>(evaluations)},
                        {"signal_variance", h.kernel.signal_variance},
                        {"bias_variance", h.kernel.bias_variance},
                        {"noise_variance", h.noise_variance}};
  for (std::size_t i = 0; i < results.size(); ++i)
    report.diagnostics.emplace_back("start" + std::to_string(i) + "_log_ml", -results[i].negative_log_ml);
  // Each start's share of the work (the shared-scale start counted with start 0), for a
  // schedule of the starts as parallel pieces (scripts/scaling-model.py).
  for (std::size_t i = 0; i < results.size(); ++i)
    report.diagnostics.emplace_back("start" + std::to_string(i) + "_evaluations",
                                    static_cast<double>(results[i].evaluations + (i == 0 ? shared_evaluations : 0)));
  if (!options.ard) report.diagnostics.emplace_back("input_variance", h.kernel.input_variances[0]);
  return condition(train, h, std::move(report), options.tiled_from_rows);
}

}  // namespace bnn::gp
