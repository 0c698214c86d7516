#pragma once
// One point's gradient of VI's bound (vi.hpp), the inner loop of training, without allocation:
// what a step's points share (sd = exp(rho), sd^2, the prior, the noise variance) is computed
// once per step, since q does not move within a step, and each point's buffers are kept from
// one point to the next.
#include <Eigen/Core>
#include <vector>

#include "methods/core/relu_network.hpp"
#include "methods/core/rng.hpp"
#include "vi.hpp"

namespace bnn::vi {

// The terms every point of one step uses.
struct StepTerms {
  std::vector<RowMatrix> sd, variance;  // exp(rho) and exp(rho)^2, per layer
  GaussianPrior prior;
  double noise_variance = 1.0;

  void update(const Posterior& q, const Options& options);
};

// One point's forward and backward pass, sized on first use.
struct PointBuffers {
  // local estimator: each layer's input z (bias last), z^2, sd of its pre-activations a, the
  // standard normal draws of a, and a itself
  std::vector<Eigen::VectorXd> z, z_squared, sd_a, eps, a;
  Eigen::VectorXd mean_a, delta, d_var_a, d_z, variance_back;
  // weights and graves estimators: the drawn weights, their draws and gradient
  std::vector<RowMatrix> eps_w, w, g_w;
  ReluCache cache;
  ReluDeltas backward;
};

// The data term -log p(y | x, w) of one draw; `g` receives the gradient of the per-point bound
// (data term + KL / n) with respect to mean, rho and the log noise variance.
double point_gradient(const Posterior& q, const StepTerms& step, const Eigen::Ref<const Eigen::VectorXd>& x, double y,
                      double n, const Options& options, Rng& rng, PointBuffers& buffers, BoundGradient& g);

}  // namespace bnn::vi
