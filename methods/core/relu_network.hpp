#pragma once
// The per-example path of the MLP (mlp.hpp): a deterministic ReLU network with the
// parameterization PBP uses, a_l = W_l z_{l-1} / sqrt(inputs + 1), z = [max(0, a); 1], a linear
// output unit, one point at a time. Shared by BP and VI, whose updates are per point.
#include <Eigen/Core>
#include <cmath>
#include <utility>
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

// The deltas of a backward pass (no allocation once sized).
struct ReluDeltas {
  Eigen::VectorXd delta;  // d / d a_l of the layer being visited
  Eigen::VectorXd below;  // d / d a_{l-1}
};

double relu_forward(const std::vector<RowMatrix>& weights, const Eigen::Ref<const Eigen::VectorXd>& x,
                    ReluCache& cache);

// The backward pass of one point whose forward pass is in `cache`, from d / d output =
// d_output: for l = L-1, ..., 0, on_layer(l, scale_l, delta_l), where delta_l = d / d a_l and
// layer l's gradient is scale_l delta_l z_l'. The delta of the layer below is computed from W_l
// before on_layer runs, so on_layer may update W_l (BP's fused step).
template <class Weights, class OnLayer>
void relu_backward_pass(Weights& weights, const ReluCache& cache, double d_output, ReluDeltas& d, OnLayer&& on_layer) {
  d.delta.setConstant(1, d_output);
  for (std::size_t l = weights.size(); l-- > 0;) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(weights[l].cols()));
    if (l > 0) {
      const Eigen::Index units = cache.a[l - 1].size();
      d.below.noalias() = scale * (weights[l].leftCols(units).transpose() * d.delta);
      d.below = (cache.a[l - 1].array() > 0.0).select(d.below, 0.0);
    }
    on_layer(l, scale, std::as_const(d.delta));
    if (l > 0) std::swap(d.delta, d.below);
  }
}

// Adds d_output * d output / d W to `gradients` (same shapes as the weights).
void relu_backward(const std::vector<RowMatrix>& weights, const ReluCache& cache, double d_output,
                   std::vector<RowMatrix>& gradients, ReluDeltas& scratch);

}  // namespace bnn
