#pragma once
// Bayesian optimization (Snoek, Larochelle & Adams 2012 style) for tuning a few
// hyperparameters on a validation set: a Gaussian-process surrogate with a Matern-5/2 ARD
// kernel, hyperparameters by maximum marginal likelihood, and expected improvement maximized
// over random and local candidates. Used by BP and VI (PBP paper, section 5.1).
#include <Eigen/Core>
#include <functional>
#include <vector>

#include "methods/core/rng.hpp"

namespace bnn::tuning {

struct BayesOptOptions {
  int evaluations = 30;   // total objective evaluations
  int initial = 5;        // random points before the surrogate is used
  int candidates = 4096;  // random candidates per acquisition (plus local ones around the best)
};

struct BayesOptResult {
  Eigen::VectorXd best_x;  // in the unit cube
  double best_value = 0.0;
  std::vector<Eigen::VectorXd> xs;
  std::vector<double> values;  // as returned (non-finite values mean "failed")
};

// Indices of the evaluations with a finite value, best (smallest) first, at most `count`:
// the fallbacks when a refit with the best configuration diverges.
std::vector<std::size_t> ranked_evaluations(const BayesOptResult& result, std::size_t count);

// Minimizes `objective` over [0, 1]^dimension. Non-finite objective values count as worse
// than every finite one. Deterministic given the RNG. The initial random points are evaluated
// as parallel pieces (run_pieces), so the objective must be safe to call from several
// threads at once and must not depend on the order of the calls.
BayesOptResult minimize(const std::function<double(const Eigen::VectorXd&)>& objective, int dimension,
                        const BayesOptOptions& options, Rng& rng);

// The surrogate, exposed for tests: posterior mean and standard deviation at x of a GP fitted
// by maximum marginal likelihood to (X rows, y).
struct Surrogate {
  Eigen::MatrixXd X;
  Eigen::VectorXd alpha;
  Eigen::MatrixXd cholesky;  // lower factor of K + noise I
  Eigen::VectorXd lengthscales;
  double amplitude = 1.0, noise = 1e-3, y_mean = 0.0, y_scale = 1.0;
  void predict(const Eigen::VectorXd& x, double& mean, double& sd) const;
};
Surrogate fit_surrogate(const Eigen::MatrixXd& X, const Eigen::VectorXd& y);
double expected_improvement(double best, double mean, double sd);

}  // namespace bnn::tuning
