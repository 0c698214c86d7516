#pragma once
// The per-example path of the MLP (mlp.hpp): a deterministic ReLU network with the
// parameterization PBP uses, a_l = W_l z_{l-1} / sqrt(inputs + 1), z = [max(0, a); 1], a linear
// output unit, one point at a time. Shared by BP and VI, whose updates are per point.
#include <Eigen/Core>
#include <vector>

#include "mlp.hpp"
#include "rng.hpp"

namespace bnn {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The shape: ReLU units and the in_rows layout, layer l the matrix [W_l b_l] (units x fan-in).
MlpShape relu_network_shape(Eigen::Index inputs, const std::vector<int>& hidden);

struct ReluNetwork {
  std::vector<RowMatrix> weights;  // layer l: outputs x (inputs + 1), last column for the bias

  // Weights ~ N(0, sd^2): with the 1/sqrt(inputs + 1) scaling, sd = 1 keeps the
  // pre-activations at unit scale.
  static ReluNetwork random(Eigen::Index inputs, const std::vector<int>& hidden, double sd, Rng& rng);
  std::size_t parameter_count() const;
};

// Activations of one forward pass, kept for the backward pass (no allocation once sized).
struct ReluCache {
  std::vector<Eigen::VectorXd> z;  // input of each layer, bias last
  std::vector<Eigen::VectorXd> a;  // pre-activations of each layer
};

double relu_forward(const std::vector<RowMatrix>& weights, const Eigen::Ref<const Eigen::VectorXd>& x,
                    ReluCache& cache);
// Adds d_output * d output / d W to `gradients` (same shapes as the weights).
void relu_backward(const std::vector<RowMatrix>& weights, const ReluCache& cache, double d_output,
                   std::vector<RowMatrix>& gradients);

}  // namespace bnn
