#pragma once
// A multilayer perceptron with one flat parameter vector, the form a sampler works with:
// f(x) = v' g(a_L) + c, a_1 = W_1 x + b_1, a_l = W_l g(a_{l-1}) + b_l. Layer l stores W_l
// row-major (units x inputs) followed by b_l; the output weights v and bias c come last.
#include <Eigen/Core>
#include <string>
#include <vector>

namespace bnn::hmc {

enum class Activation { tanh, relu, erf };  // erf: erf(a / sqrt(2)), the probit unit
Activation parse_activation(const std::string& name);  // throws std::invalid_argument

struct MlpShape {
  Eigen::Index inputs = 0;
  std::vector<int> hidden;  // units per hidden layer; empty gives a linear model
  Activation activation = Activation::tanh;

  Eigen::Index parameter_count() const;
  // Offset of W_l (l = hidden.size() is the output layer, a 1 x units row v) and of b_l.
  Eigen::Index weight_offset(std::size_t layer) const;
  Eigen::Index bias_offset(std::size_t layer) const;
  Eigen::Index layer_inputs(std::size_t layer) const;
  Eigen::Index layer_units(std::size_t layer) const;  // 1 for the output layer
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

// Network outputs f(x_i) for the rows of X.
void mlp_outputs(const MlpShape& shape, const Eigen::VectorXd& theta, const Eigen::MatrixXd& X,
                 MlpWorkspace& ws, Eigen::VectorXd& out);

// E = 0.5 sum_i (f(x_i) - y_i)^2 and, if `gradient` is not null, dE/dtheta (backpropagation).
// The sums run in a fixed order: the same bits on every call, thread and memory address.
double mlp_squared_error(const MlpShape& shape, const Eigen::VectorXd& theta, const Eigen::MatrixXd& X,
                         const Eigen::VectorXd& y, MlpWorkspace& ws, Eigen::VectorXd* gradient);

// tanh of every element, SIMD-vectorized, within a few ulp of the exact value (the hidden
// units' activation; std::tanh is not vectorized).
void vector_tanh(const Eigen::Ref<const Eigen::ArrayXd>& x, Eigen::Ref<Eigen::ArrayXd> out);

}  // namespace bnn::hmc
