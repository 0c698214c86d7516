#pragma once
// A network of one hidden ReLU layer over a batch of points at once (one point per row), with K
// linear outputs and optional inverted dropout (Srivastava et al. 2014, as Keras applies it):
//   H = max(0, (X o M_in) W1 + b1),   F = (H o M_hid) W2 + b2,
// the masks holding 0 (dropped) or 1 / (1 - p) (kept). MC dropout (one output, float32 as Keras
// runs it) and deep ensembles (a mean and a variance output, double) train it by Adam on
// mini-batches.
#include <Eigen/Core>
#include <cstdint>
#include <type_traits>
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
template <class Scalar>
struct BasicDenseNetwork {
  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  using MatrixMap = Eigen::Map<Matrix>;
  using ConstMatrixMap = Eigen::Map<const Matrix>;
  using RowMap = Eigen::Map<Eigen::Matrix<Scalar, 1, Eigen::Dynamic>>;
  using ConstRowMap = Eigen::Map<const Eigen::Matrix<Scalar, 1, Eigen::Dynamic>>;

  DenseShape shape;
  Vector theta;

  explicit BasicDenseNetwork(const DenseShape& s) : shape(s), theta(Vector::Zero(s.parameter_count())) {}
  // Keras' default initialization: Glorot-uniform weights, U(-a, a) with a = sqrt(6 / (fan_in +
  // fan_out)), zero biases (drawn in double, then rounded to Scalar).
  static BasicDenseNetwork glorot_uniform(const DenseShape& s, Rng& rng);

  ConstMatrixMap W1() const { return ConstMatrixMap(theta.data(), shape.inputs, shape.hidden); }
  ConstRowMap b1() const { return ConstRowMap(theta.data() + b1_offset(), shape.hidden); }
  ConstMatrixMap W2() const { return ConstMatrixMap(theta.data() + W2_offset(), shape.hidden, shape.outputs); }
  ConstRowMap b2() const { return ConstRowMap(theta.data() + b2_offset(), shape.outputs); }

  Eigen::Index b1_offset() const { return shape.inputs * shape.hidden; }
  Eigen::Index W2_offset() const { return b1_offset() + shape.hidden; }
  Eigen::Index b2_offset() const { return W2_offset() + shape.hidden * shape.outputs; }
};
using DenseNetwork = BasicDenseNetwork<double>;
using DenseNetwork32 = BasicDenseNetwork<float>;

// What a forward pass keeps for the backward pass (no allocation once sized for a batch).
template <class Scalar>
struct BasicDenseCache {
  using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  Matrix input;   // X o M_in
  Matrix hidden;  // H o M_hid
  Matrix output;  // F
  Matrix d_pre;   // scratch of the backward pass: dLoss/d(pre-activation)
};
using DenseCache = BasicDenseCache<double>;
using DenseCache32 = BasicDenseCache<float>;

// Dropout masks of one batch; empty arrays mean no dropout on that layer.
template <class Scalar>
struct BasicDropoutMasks {
  Eigen::Array<Scalar, Eigen::Dynamic, Eigen::Dynamic> input, hidden;
};
using DropoutMasks = BasicDropoutMasks<double>;
using DropoutMasks32 = BasicDropoutMasks<float>;

// Multiplies values[k] by 0 where the k-th 32-bit uniform of fill_uniform32's stream, seeded by
// one draw of rng, falls below p 2^32 (probability p to 2^-32), by 1/(1 - p) elsewhere.
// `uniforms` is scratch space.
template <class Scalar>
void apply_dropout(Scalar* values, Eigen::Index count, double p, Rng& rng, std::vector<std::uint32_t>& uniforms);
// A mask of such factors (rows x cols, column-major order): the same draws as apply_dropout on
// a block of ones.
template <class Scalar>
void draw_dropout_mask(Eigen::Index rows, Eigen::Index cols, double p, Rng& rng,
                       Eigen::Array<Scalar, Eigen::Dynamic, Eigen::Dynamic>& mask,
                       std::vector<std::uint32_t>& uniforms);
template <class Scalar>
void draw_dropout_mask(Eigen::Index rows, Eigen::Index cols, double p, Rng& rng,
                       Eigen::Array<Scalar, Eigen::Dynamic, Eigen::Dynamic>& mask) {
  std::vector<std::uint32_t> uniforms;
  draw_dropout_mask(rows, cols, p, rng, mask, uniforms);
}

// A matrix argument that does not take part in deducing Scalar (the network fixes it), so
// expressions such as X.row(i) convert.
template <class Scalar>
using DenseInput = std::type_identity_t<Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>>;

template <class Scalar>
void dense_forward(const BasicDenseNetwork<Scalar>& net, const DenseInput<Scalar>& X,
                   const BasicDropoutMasks<Scalar>& masks, BasicDenseCache<Scalar>& cache);

// Backpropagation of d_output = dLoss/dF (rows x K): writes dLoss/dtheta into `gradient` and,
// if `d_input` is not null, dLoss/dX (the masks' factors included).
template <class Scalar>
void dense_backward(const BasicDenseNetwork<Scalar>& net, BasicDenseCache<Scalar>& cache,
                    const BasicDropoutMasks<Scalar>& masks, const DenseInput<Scalar>& d_output,
                    Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& gradient, DenseInput<Scalar>* d_input);

}  // namespace bnn
