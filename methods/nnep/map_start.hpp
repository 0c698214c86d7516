#pragma once
// The alternative start the EP-NN paper describes in its discussion (section 5): the location
// parameters of the prior sites (13)-(14) set from a gradient-based MAP estimate of the weights
// instead of zeros and linspace(1, 2). The MAP is taken under the Gaussian initial site priors
// of section 3.5.3 (input weights N(0, initial_weight_variance), input biases
// N(0, initial_bias_variance)), v_k ~ N(0, output_weight_scale), v_0 ~ N(0,
// output_bias_variance) and the initial noise sd, by L-BFGS from a random start. Since g is
// odd, a unit with v_k < 0 is replaced by (-w_k, -v_k), which gives the same function and
// respects the positivity of the output weights.
#include <Eigen/Core>

#include "methods/core/rng.hpp"
#include "nnep.hpp"

namespace bnn::nnep {

struct MapStart {
  Eigen::MatrixXd input_weights;   // K x d, row k = w_k (inputs, then bias)
  Eigen::VectorXd output_weights;  // v_1..v_K (>= 0), then v_0
  double objective = 0.0;          // -log posterior (up to a constant) at the estimate
  long evaluations = 0;
};

// X holds the inputs with the constant bias column last (n x d), as inside fit().
MapStart map_start(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& options, Rng& rng);

// Replaces every unit with v_k < 0 by (-w_k, -v_k): the same network, since g is odd.
void make_output_weights_positive(Eigen::MatrixXd& input_weights, Eigen::VectorXd& output_weights);

// The minimized function and its gradient at (input_weights, output_weights) in the layout above
// (exposed for the finite-difference test).
double map_objective(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& options,
                     const Eigen::MatrixXd& input_weights, const Eigen::VectorXd& output_weights,
                     Eigen::MatrixXd& d_input_weights, Eigen::VectorXd& d_output_weights);

}  // namespace bnn::nnep
