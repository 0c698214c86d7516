#pragma once
// Gaussian-process regression with the neural-network covariance (nn_kernel.hpp) and
// Gaussian noise; hyperparameters by type-II maximum likelihood (uniform priors on the log
// scale, as in the EP-NN paper's GP and GP-ARD baselines) with analytic gradients, L-BFGS-B
// and seeded restarts; the restart with the highest marginal likelihood is kept.
// Registered as gp and gp-ard (registration.cpp): one input variance or one per input.
#include <Eigen/Core>

#include "methods/core/model.hpp"
#include "methods/core/options.hpp"
#include "methods/core/rng.hpp"
#include "nn_kernel.hpp"

namespace bnn::gp {

struct Options {
  bool ard = false;  // one variance per input (GP-ARD) instead of one shared (GP)
  int restarts = 1;  // random starts besides the deterministic one(s)
  int max_iterations = 300;
  double gradient_tolerance = 1e-3;  // relative, for L-BFGS-B convergence
  double initial_signal_variance = 1.0;
  double initial_bias_variance = 1.0;
  double initial_input_variance = 0.0;  // 0: 1 / (number of inputs)
  double initial_noise_variance = 0.1;
  // false: the signal variance stays at initial_signal_variance, as in GPstuff's
  // gpcf_neuralnetwork (the toolbox of the EP-NN paper), whose covariance has no magnitude.
  bool learn_signal_variance = true;
  // From this many training points on, the Cholesky factor and inverse of each evaluation go by
  // tiles that idle threads share (cholesky_inverse.hpp): the same bits on any number of threads,
  // not those of the whole-matrix LAPACK calls. 0: never (the default, which the committed
  // results used).
  int tiled_from_rows = 0;
  // Jobs stored before tiled_from_rows existed ran without tiles: their keys stay as they were.
  static ParamMap earlier_values() { return {{"tiled_from_rows", "0"}}; }

  template <class Visitor>
  void visit(Visitor&& v) {
    v("ard", ard, "one input variance per input (GP-ARD) instead of a shared one (GP)");
    v("restarts", restarts, "random restarts of the optimizer besides the deterministic start");
    v("max_iterations", max_iterations, "L-BFGS-B iterations per start");
    v("gradient_tolerance", gradient_tolerance, "relative gradient norm at which a start stops");
    v("initial_signal_variance", initial_signal_variance, "start value of the signal variance");
    v("initial_bias_variance", initial_bias_variance, "start value of the bias weight variance");
    v("initial_input_variance", initial_input_variance,
      "start value of the input weight variance(s); 0 means 1/inputs, so that u'Su is about 1 for normalized inputs");
    v("initial_noise_variance", initial_noise_variance, "start value of the noise variance");
    v("learn_signal_variance", learn_signal_variance,
      "optimize the signal variance; false keeps it at initial_signal_variance (GPstuff's neural-network covariance has no magnitude parameter)");
    v("tiled_from_rows", tiled_from_rows,
      "from this many training points on, factorize by tiles that idle threads share (same bits on any thread count, "
      "not those of the whole-matrix LAPACK calls; 4096 suits kin40k's 5000); 0: never");
  }
  void validate() const;
};

struct Hyperparameters {
  NnKernelParams kernel;
  double noise_variance = 0.1;
};

// Log-scale parameter vector: [log sf2, log bias variance, log input variance(s), log noise].
Eigen::VectorXd to_log_vector(const Hyperparameters& h, bool ard);
Hyperparameters from_log_vector(const Eigen::VectorXd& theta, Eigen::Index inputs, bool ard);

// log p(y | X, theta) and its gradient with respect to the log-scale parameters.
// Adds diagonal jitter only if the Cholesky factorization fails (reported in `jitter`).
struct Evidence {
  double log_marginal_likelihood = 0.0;
  Eigen::VectorXd gradient;
  double jitter = 0.0;
  bool ok = true;
};
// The n x n matrices of one evaluation, kept by a caller that evaluates many parameter values
// (the optimizer): allocated once instead of three fresh n x n matrices per evaluation, whose
// pages a thread other than the main one would otherwise map and fault in again each time.
struct EvidenceWorkspace {
  NnKernelTerms terms;
  Eigen::MatrixXd C;                 // K + noise I, its Cholesky factor, then the weights of the gradient
  Eigen::MatrixXd inverse_factor;    // L^{-1} on the way to C^{-1} (tiled path only)
  Eigen::Index tiled_from_rows = 0;  // Options::tiled_from_rows
};
// Whether n points go by tiles under Options::tiled_from_rows.
inline bool tiled(Eigen::Index n, Eigen::Index tiled_from_rows) { return tiled_from_rows > 0 && n >= tiled_from_rows; }

Evidence log_marginal_likelihood(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& theta,
                                 bool ard, bool with_gradient, EvidenceWorkspace& workspace);
Evidence log_marginal_likelihood(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& theta,
                                 bool ard, bool with_gradient = true);

class Model final : public ModelBase {
 public:
  // `cholesky` holds L (K + noise I = L L') in its lower triangle.
  Model(Eigen::MatrixXd X, Hyperparameters h, Eigen::MatrixXd cholesky, Eigen::VectorXd alpha, FitReport report);
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;
  const Hyperparameters& hyperparameters() const { return h_; }

 private:
  Eigen::MatrixXd X_;
  Hyperparameters h_;
  Eigen::MatrixXd cholesky_;
  Eigen::VectorXd alpha_;
};

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);
// The model at given hyperparameters, without optimization.
Model condition(const RegressionData& train, const Hyperparameters& h, FitReport report = {},
                Eigen::Index tiled_from_rows = 0);

}  // namespace bnn::gp
