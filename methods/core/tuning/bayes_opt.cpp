#include "bayes_opt.hpp"

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "methods/core/minimize.hpp"
#include "methods/core/normal.hpp"
#include "methods/core/parallel_pieces.hpp"

namespace bnn::tuning {
namespace {

double matern52(double r2) {
  const double r = std::sqrt(5.0 * r2);
  return (1.0 + r + r * r / 3.0) * std::exp(-r);
}

// theta = [log lengthscale_1..D, log amplitude, log noise]; y standardized.
struct Hyper {
  Eigen::VectorXd lengthscales;
  double amplitude, noise;
};
Hyper unpack(const Eigen::VectorXd& theta, Eigen::Index D) {
  return {theta.head(D).array().exp(), std::exp(theta[D]), std::exp(theta[D + 1])};
}

Eigen::MatrixXd kernel(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const Hyper& h) {
  Eigen::MatrixXd K(A.rows(), B.rows());
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < B.rows(); ++j)
      K(i, j) =
          h.amplitude * matern52(((A.row(i) - B.row(j)).array() / h.lengthscales.transpose().array()).square().sum());
  return K;
}

double negative_log_ml(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& theta) {
  const Hyper h = unpack(theta, X.cols());
  Eigen::MatrixXd K = kernel(X, X, h);
  K.diagonal().array() += h.noise + 1e-10;
  const Eigen::LLT<Eigen::MatrixXd> llt(K);
  if (llt.info() != Eigen::Success) return 1e300;
  const Eigen::VectorXd alpha = llt.solve(y);
  const Eigen::MatrixXd L = llt.matrixL();
  return 0.5 * y.dot(alpha) + L.diagonal().array().log().sum();
}

}  // namespace

void Surrogate::predict(const Eigen::VectorXd& x, double& mean, double& sd) const {
  const Hyper h{lengthscales, amplitude, noise};
  const Eigen::VectorXd k = kernel(x.transpose(), X, h).transpose();
  const Eigen::VectorXd v = cholesky.triangularView<Eigen::Lower>().solve(k);
  mean = y_mean + y_scale * k.dot(alpha);
  sd = y_scale * std::sqrt(std::max(amplitude - v.squaredNorm(), 1e-12));
}

Surrogate fit_surrogate(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  const Eigen::Index D = X.cols();
  Surrogate s;
  s.X = X;
  s.y_mean = y.mean();
  const double sd = std::sqrt((y.array() - s.y_mean).square().mean());
  s.y_scale = sd > 0 ? sd : 1.0;
  const Eigen::VectorXd ys = (y.array() - s.y_mean) / s.y_scale;
  // Hyperparameters by L-BFGS-B on the negative log marginal likelihood with a central
  // finite-difference gradient (D + 2 parameters, at most a few dozen points).
  const auto objective = [&](const Eigen::VectorXd& theta, Eigen::VectorXd& grad) {
    const double f = negative_log_ml(X, ys, theta);
    for (Eigen::Index k = 0; k < theta.size(); ++k) {
      Eigen::VectorXd a = theta, b = theta;
      a[k] += 1e-5;
      b[k] -= 1e-5;
      grad[k] = (negative_log_ml(X, ys, a) - negative_log_ml(X, ys, b)) / 2e-5;
    }
    return f;
  };
  Eigen::VectorXd lower(D + 2), upper(D + 2);
  lower << Eigen::VectorXd::Constant(D, std::log(0.02)), std::log(0.05), std::log(1e-6);
  upper << Eigen::VectorXd::Constant(D, std::log(5.0)), std::log(20.0), std::log(1.0);
  Eigen::VectorXd best(D + 2);
  best << Eigen::VectorXd::Constant(D, std::log(0.3)), 0.0, std::log(1e-2);
  double best_f = negative_log_ml(X, ys, best);
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = 100;
  param.epsilon_rel = 1e-5;
  const LbfgsBounded optimizer(param);
  for (double start : {std::log(0.1), std::log(0.3), std::log(1.0)}) {
    Eigen::VectorXd theta(D + 2);
    theta << Eigen::VectorXd::Constant(D, start), 0.0, std::log(1e-2);
    // The point the solver stopped at (not the best it evaluated), re-evaluated after a failed line search.
    const Minimum m = optimizer.minimize(objective, theta, lower, upper);
    const double f = m.line_search_failed ? negative_log_ml(X, ys, m.last_x) : m.last_value;
    if (f < best_f) {
      best_f = f;
      best = m.last_x;
    }
  }
  const Hyper h = unpack(best, D);
  s.lengthscales = h.lengthscales;
  s.amplitude = h.amplitude;
  s.noise = h.noise;
  Eigen::MatrixXd K = kernel(X, X, h);
  K.diagonal().array() += h.noise + 1e-10;
  const Eigen::LLT<Eigen::MatrixXd> llt(K);
  s.cholesky = llt.matrixL();
  s.alpha = llt.solve(ys);
  return s;
}

double expected_improvement(double best, double mean, double sd) {
  if (!(sd > 0.0)) return std::max(best - mean, 0.0);
  const double z = (best - mean) / sd;
  return (best - mean) * normal_cdf(z) + sd * normal_pdf(z);
}

std::vector<std::size_t> ranked_evaluations(const BayesOptResult& result, std::size_t count) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < result.values.size(); ++i)
    if (std::isfinite(result.values[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return result.values[a] < result.values[b]; });
  if (order.size() > count) order.resize(count);
  return order;
}

BayesOptResult minimize(const std::function<double(const Eigen::VectorXd&)>& objective, int dimension,
                        const BayesOptOptions& options, Rng& rng) {
  BayesOptResult result;
  const auto random_point = [&] {
    Eigen::VectorXd x(dimension);
    for (int d = 0; d < dimension; ++d) x[d] = uniform01(rng);
    return x;
  };
  const auto evaluate = [&](const Eigen::VectorXd& x) {
    result.xs.push_back(x);
    result.values.push_back(objective(x));
  };
  // The initial random points are independent: drawn in order, then evaluated as parallel pieces.
  std::vector<Eigen::VectorXd> initial_points;
  for (int i = 0; i < std::min(options.initial, options.evaluations); ++i) initial_points.push_back(random_point());
  std::vector<double> initial_values(initial_points.size());
  run_pieces(static_cast<int>(initial_points.size()), [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    initial_values[k] = objective(initial_points[k]);
  });
  result.xs = std::move(initial_points);
  result.values = std::move(initial_values);
  while (static_cast<int>(result.xs.size()) < options.evaluations) {
    // Failed evaluations are modelled as slightly worse than the worst finite one.
    double worst = -std::numeric_limits<double>::infinity(), lowest = std::numeric_limits<double>::infinity();
    for (double v : result.values)
      if (std::isfinite(v)) {
        worst = std::max(worst, v);
        lowest = std::min(lowest, v);
      }
    if (!std::isfinite(worst)) {  // nothing has worked yet: keep exploring at random
      evaluate(random_point());
      continue;
    }
    const double penalty = worst + std::max(worst - lowest, 1.0);
    Eigen::MatrixXd X(static_cast<Eigen::Index>(result.xs.size()), dimension);
    Eigen::VectorXd y(X.rows());
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      X.row(i) = result.xs[static_cast<std::size_t>(i)].transpose();
      const double v = result.values[static_cast<std::size_t>(i)];
      y[i] = std::isfinite(v) ? v : penalty;
    }
    const Surrogate s = fit_surrogate(X, y);
    Eigen::Index best_index = 0;
    y.minCoeff(&best_index);
    const double best = y[best_index];
    Eigen::VectorXd argmax = random_point();
    double max_ei = -1.0;
    const auto consider = [&](const Eigen::VectorXd& x) {
      double mean = 0.0, sd = 0.0;
      s.predict(x, mean, sd);
      const double ei = expected_improvement(best, mean, sd);
      if (ei > max_ei) {
        max_ei = ei;
        argmax = x;
      }
    };
    for (int c = 0; c < options.candidates; ++c) consider(random_point());
    const Eigen::VectorXd incumbent = X.row(best_index).transpose();
    for (int c = 0; c < options.candidates / 16; ++c) {
      Eigen::VectorXd x = incumbent;
      for (int d = 0; d < dimension; ++d) x[d] = std::clamp(x[d] + 0.05 * standard_normal(rng), 0.0, 1.0);
      consider(x);
    }
    evaluate(argmax);
  }
  std::size_t best = 0;
  bool found = false;
  for (std::size_t i = 0; i < result.values.size(); ++i)
    if (std::isfinite(result.values[i]) && (!found || result.values[i] < result.values[best])) {
      best = i;
      found = true;
    }
  result.best_x = result.xs[best];
  result.best_value = found ? result.values[best] : std::numeric_limits<double>::infinity();
  return result;
}

}  // namespace bnn::tuning
