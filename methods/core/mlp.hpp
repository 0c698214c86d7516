#pragma once
// The multilayer perceptrons of the methods, f(x) = v' g(a_L) + c, a_1 = W_1 x + b_1,
// a_l = W_l g(a_{l-1}) + b_l, described by one shape type with its flat parameter layout:
//
//   MlpShape          layers, activation (core/activation.hpp) and where the biases sit;
//   this file         the blocked SIMD batch path over flat parameters (NN-MC's sampler,
//                     NN-EP's MAP start): forward and backward over all points at once;
//   relu_network.hpp  the per-example path over per-layer matrices (BP, VI: one SGD step per
//                     point, PBP's 1/sqrt(fan_in + 1) scaling);
//   two_layer_network.hpp  one hidden layer over matrices of all points, with the Jacobian and
//                     the exact Hessian (Laplace, ensemble learning).
#include <Eigen/Core>
#include <string>
#include <vector>

#include "activation.hpp"

namespace bnn {

// Where the biases of a layer sit in a flat parameter vector.
enum class BiasLayout {
  after_weights,  // W_l row-major (units x inputs), then b_l: the blocked path's layout
  in_rows,        // [W_l b_l] row-major, each unit's weights then its bias: the layer matrices of
                  // the per-example path, and the two-layer network's (Barber & Bishop's u_i)
};

struct MlpShape {
  Eigen::Index inputs = 0;
  std::vector<int> hidden;  // units per hidden layer; empty gives a linear model
  Activation activation = Activation::tanh;
  BiasLayout bias_layout = BiasLayout::after_weights;
  bool hidden_bias = true;  // biases on the hidden units (a constant input)
  bool output_bias = true;

  Eigen::Index parameter_count() const;
  // Offset of W_l (l = hidden.size() is the output layer, a 1 x units row v) and of b_l (in_rows:
  // of the first unit's bias; the next unit's is layer_fan_in(l) further).
  Eigen::Index weight_offset(std::size_t layer) const;
  Eigen::Index bias_offset(std::size_t layer) const;
  Eigen::Index layer_inputs(std::size_t layer) const;
  Eigen::Index layer_units(std::size_t layer) const;  // 1 for the output layer
  bool layer_bias(std::size_t layer) const;
  Eigen::Index layer_fan_in(std::size_t layer) const { return layer_inputs(layer) + (layer_bias(layer) ? 1 : 0); }
};

// Buffers reused across calls (no allocation once sized for a network). The points pass
// through the network in blocks of a few SIMD packets; a block's values of a layer are stored
// unit by unit (units x block, row-major).
struct MlpWorkspace {
  std::vector<Eigen::ArrayXd> pre;    // a_l of the current block; the last is the output f
  std::vector<Eigen::ArrayXd> post;   // g(a_l)
  std::vector<Eigen::ArrayXd> delta;  // dE/da_l of the current block
  Eigen::ArrayXd padded_inputs;       // a last, partial block of inputs, zero-padded
  Eigen::ArrayXd gradient_lanes;      // per parameter, one partial sum of dE/dtheta per SIMD lane
};

// The blocked path: the shape's layout must be after_weights, with both biases.

// Network outputs f(x_i) for the rows of X.
void mlp_outputs(const MlpShape& shape, const Eigen::VectorXd& theta, const Eigen::MatrixXd& X, MlpWorkspace& ws,
                 Eigen::VectorXd& out);

// E = 0.5 sum_i (f(x_i) - y_i)^2 and, if `gradient` is not null, dE/dtheta (backpropagation).
// The sums run in a fixed order: the same bits on every call, thread and memory address.
double mlp_squared_error(const MlpShape& shape, const Eigen::VectorXd& theta, const Eigen::MatrixXd& X,
                         const Eigen::VectorXd& y, MlpWorkspace& ws, Eigen::VectorXd* gradient);

}  // namespace bnn
