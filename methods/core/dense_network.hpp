#pragma once
// A network of one hidden ReLU layer over a batch of points at once (one point per row), with K
// linear outputs and optional inverted dropout (Srivastava et al. 2014, as Keras applies it):
//   H = max(0, (X o M_in) W1 + b1),   F = (H o M_hid) W2 + b2,
// the masks holding 0 (dropped) or 1 / (1 - p) (kept). MC dropout (one output) and deep
// ensembles (a mean and a variance output) train it by Adam on mini-batches.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "rng.hpp"

namespace bnn {

struct DenseShape {
  Eigen::Index inputs = 0;
  Eigen::Index hidden = 50;
  Eigen::Index outputs = 1;
  Eigen::Index parameter_count() const { return inputs * hidden + hidden + hidden * outputs + outputs; }
};

// The parameters in one flat vector (what Adam moves): W1 (inputs x hidden, column-major), b1,
// W2 (hidden x outputs, column-major), b2.
struct DenseNetwork {
  DenseShape shape;
  Eigen::VectorXd theta;

  explicit DenseNetwork(const DenseShape& s) : shape(s), theta(Eigen::VectorXd::Zero(s.parameter_count())) {}
  // Keras' default initialization: Glorot-uniform weights, U(-a, a) with a = sqrt(6 / (fan_in +
  // fan_out)), zero biases.
  static DenseNetwork glorot_uniform(const DenseShape& s, Rng& rng);

  using Matrix = Eigen::Map<Eigen::MatrixXd>;
  using ConstMatrix = Eigen::Map<const Eigen::MatrixXd>;
  using Row = Eigen::Map<Eigen::RowVectorXd>;
  using ConstRow = Eigen::Map<const Eigen::RowVectorXd>;
  ConstMatrix W1() const { return ConstMatrix(theta.data(), shape.inputs, shape.hidden); }
  ConstRow b1() const { return ConstRow(theta.data() + b1_offset(), shape.hidden); }
  ConstMatrix W2() const { return ConstMatrix(theta.data() + W2_offset(), shape.hidden, shape.outputs); }
  ConstRow b2() const { return ConstRow(theta.data() + b2_offset(), shape.outputs); }

  Eigen::Index b1_offset() const { return shape.inputs * shape.hidden; }
  Eigen::Index W2_offset() const { return b1_offset() + shape.hidden; }
  Eigen::Index b2_offset() const { return W2_offset() + shape.hidden * shape.outputs; }
};

// What a forward pass keeps for the backward pass (no allocation once sized for a batch).
struct DenseCache {
  Eigen::MatrixXd input;   // X o M_in
  Eigen::MatrixXd hidden;  // H o M_hid
  Eigen::MatrixXd output;  // F
};

// Dropout masks of one batch; empty arrays mean no dropout on that layer.
struct DropoutMasks {
  Eigen::ArrayXXd input, hidden;
};

// Multiplies values[k] by 0 where the k-th 32-bit uniform of a SplitMix64 stream seeded by one
// draw of rng falls below p 2^32 (probability p to 2^-32), by 1/(1 - p) elsewhere. `uniforms` is
// scratch space.
void apply_dropout(double* values, Eigen::Index count, double p, Rng& rng, std::vector<std::uint32_t>& uniforms);
// A mask of such factors (rows x cols, column-major order).
void draw_dropout_mask(Eigen::Index rows, Eigen::Index cols, double p, Rng& rng, Eigen::ArrayXXd& mask);

void dense_forward(const DenseNetwork& net, const Eigen::MatrixXd& X, const DropoutMasks& masks, DenseCache& cache);

// Backpropagation of d_output = dLoss/dF (rows x K): writes dLoss/dtheta into `gradient` and,
// if `d_input` is not null, dLoss/dX (the masks' factors included).
void dense_backward(const DenseNetwork& net, const DenseCache& cache, const DropoutMasks& masks,
                    const Eigen::MatrixXd& d_output, Eigen::VectorXd& gradient, Eigen::MatrixXd* d_input);

}  // namespace bnn
