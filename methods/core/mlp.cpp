#include "mlp.hpp"

#include <algorithm>
#include <stdexcept>

#include "simd_packet.hpp"

namespace bnn {
namespace {

using namespace simd_packet;
constexpr Eigen::Index kPackets = 4;
constexpr Eigen::Index kBlock = kPackets * kLanes;  // points per block
// Units per register tile: 3 x kPackets independent sums hide the FMA latency, and each input
// loaded serves 3 units.
constexpr int kTile = 3;

Packet load(const double* from) { return simd::ploadu<Packet>(from); }
void store(double* to, const Packet& p) { simd::pstoreu(to, p); }

using RowMap = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

RowMap layer_weights(const MlpShape& s, const Eigen::VectorXd& theta, std::size_t l) {
  return RowMap(theta.data() + s.weight_offset(l), s.layer_units(l), s.layer_inputs(l));
}

// The rows of one block: value t of row j is data[j * stride + t], t < kBlock.
struct BlockRows {
  const double* data;
  Eigen::Index stride;
};

// out(i, :) = bias_i + sum_j c(i, j) in(j, :) for rows i0 .. i0 + Rows - 1 of one block
// (bias null: 0), the sums in SIMD registers.
template <int Rows, class Coefficients>
void combine_tile(const Coefficients& c, Eigen::Index i0, const double* bias, BlockRows in, Eigen::ArrayXd& out) {
  Packet sum[Rows][kPackets];
  for (int r = 0; r < Rows; ++r)
    for (Packet& s : sum[r]) s = simd::pset1<Packet>(bias ? bias[i0 + r] : 0.0);
  for (Eigen::Index j = 0; j < c.cols(); ++j) {
    const double* x = in.data + j * in.stride;
    for (int r = 0; r < Rows; ++r) {
      const Packet w = simd::pset1<Packet>(c(i0 + r, j));
      for (Eigen::Index t = 0; t < kPackets; ++t) sum[r][t] = simd::pmadd(w, load(x + t * kLanes), sum[r][t]);
    }
  }
  for (int r = 0; r < Rows; ++r)
    for (Eigen::Index t = 0; t < kPackets; ++t) store(out.data() + (i0 + r) * kBlock + t * kLanes, sum[r][t]);
}

// out(i, :) = bias_i + sum_j c(i, j) in(j, :) over one block.
template <class Coefficients>
void combine_rows(const Coefficients& c, const double* bias, BlockRows in, Eigen::ArrayXd& out) {
  Eigen::Index i = 0;
  for (; i + kTile <= c.rows(); i += kTile) combine_tile<kTile>(c, i, bias, in, out);
  for (; i < c.rows(); ++i) combine_tile<1>(c, i, bias, in, out);
}

// Gradient of units k0 .. k0 + Units - 1 of a layer from one block, kept lane by lane (kLanes
// partial sums per weight): dW(k, j) += delta(k, :) in(j, :), db(k) += sum delta(k, :).
template <int Units>
void accumulate_tile(const Eigen::ArrayXd& delta, Eigen::Index k0, BlockRows in, Eigen::Index inputs, double* dW,
                     double* db) {
  Packet d[Units][kPackets];
  for (int u = 0; u < Units; ++u)
    for (Eigen::Index t = 0; t < kPackets; ++t) d[u][t] = load(delta.data() + (k0 + u) * kBlock + t * kLanes);
  for (Eigen::Index j = 0; j < inputs; ++j) {
    Packet x[kPackets];
    for (Eigen::Index t = 0; t < kPackets; ++t) x[t] = load(in.data + j * in.stride + t * kLanes);
    for (int u = 0; u < Units; ++u) {
      double* w = dW + ((k0 + u) * inputs + j) * kLanes;
      Packet sum = load(w);
      for (Eigen::Index t = 0; t < kPackets; ++t) sum = simd::pmadd(d[u][t], x[t], sum);
      store(w, sum);
    }
  }
  for (int u = 0; u < Units; ++u) {
    Packet sum = load(db + (k0 + u) * kLanes);
    for (const Packet& dt : d[u]) sum = simd::padd(sum, dt);
    store(db + (k0 + u) * kLanes, sum);
  }
}

void accumulate_gradient(const Eigen::ArrayXd& delta, BlockRows in, Eigen::Index inputs, double* dW, double* db) {
  const Eigen::Index units = delta.size() / kBlock;
  Eigen::Index k = 0;
  for (; k + kTile <= units; k += kTile) accumulate_tile<kTile>(delta, k, in, inputs, dW, db);
  for (; k < units; ++k) accumulate_tile<1>(delta, k, in, inputs, dW, db);
}

void size_workspace(const MlpShape& s, MlpWorkspace& ws) {
  if (s.bias_layout != BiasLayout::after_weights || !s.hidden_bias || !s.output_bias)
    throw std::invalid_argument("mlp: the blocked path needs the after_weights layout with every bias");
  const std::size_t L = s.hidden.size();
  ws.pre.resize(L + 1);
  ws.post.resize(L);
  ws.delta.resize(L + 1);
  for (std::size_t l = 0; l <= L; ++l) {
    const Eigen::Index size = s.layer_units(l) * kBlock;
    ws.pre[l].resize(size);
    ws.delta[l].resize(size);
    if (l < L) ws.post[l].resize(size);
  }
}

// Inputs of the block of points from `first`: X in place (column-major: a column is one
// input over all points), or a zero-padded copy if fewer than kBlock points are left.
BlockRows block_inputs(const Eigen::MatrixXd& X, Eigen::Index first, MlpWorkspace& ws) {
  const Eigen::Index count = std::min(kBlock, X.rows() - first);
  if (count == kBlock) return {X.data() + first, X.rows()};
  ws.padded_inputs.setZero(X.cols() * kBlock);
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    ws.padded_inputs.segment(j * kBlock, count) = X.col(j).segment(first, count).array();
  return {ws.padded_inputs.data(), kBlock};
}

// Forward pass of one block: fills ws.pre (the outputs f last) and ws.post.
void forward_block(const MlpShape& s, const Eigen::VectorXd& theta, BlockRows inputs, MlpWorkspace& ws) {
  const std::size_t L = s.hidden.size();
  BlockRows in = inputs;
  for (std::size_t l = 0; l <= L; ++l) {
    combine_rows(layer_weights(s, theta, l), theta.data() + s.bias_offset(l), in, ws.pre[l]);
    if (l == L) break;
    activation_values(s.activation, ws.pre[l], ws.post[l]);
    in = {ws.post[l].data(), kBlock};
  }
}

// Backward pass of one block from ws.delta[L] = dE/df: adds its gradient to ws.gradient_lanes.
void backward_block(const MlpShape& s, const Eigen::VectorXd& theta, BlockRows inputs, MlpWorkspace& ws) {
  double* lanes = ws.gradient_lanes.data();
  for (std::size_t l = s.hidden.size();; --l) {
    const BlockRows in = l == 0 ? inputs : BlockRows{ws.post[l - 1].data(), kBlock};
    accumulate_gradient(ws.delta[l], in, s.layer_inputs(l), lanes + s.weight_offset(l) * kLanes,
                        lanes + s.bias_offset(l) * kLanes);
    if (l == 0) return;
    // delta_{l-1} = g'(a_{l-1}) * W_l' delta_l
    combine_rows(layer_weights(s, theta, l).transpose(), nullptr, {ws.delta[l].data(), kBlock}, ws.delta[l - 1]);
    multiply_by_slope(s.activation, ws.pre[l - 1], ws.post[l - 1], ws.delta[l - 1]);
  }
}

}  // namespace

Eigen::Index MlpShape::layer_inputs(std::size_t layer) const { return layer == 0 ? inputs : hidden[layer - 1]; }
Eigen::Index MlpShape::layer_units(std::size_t layer) const { return layer < hidden.size() ? hidden[layer] : 1; }
bool MlpShape::layer_bias(std::size_t layer) const { return layer < hidden.size() ? hidden_bias : output_bias; }
Eigen::Index MlpShape::weight_offset(std::size_t layer) const {
  Eigen::Index offset = 0;
  for (std::size_t l = 0; l < layer; ++l) offset += layer_units(l) * layer_fan_in(l);
  return offset;
}
Eigen::Index MlpShape::bias_offset(std::size_t layer) const {
  if (bias_layout == BiasLayout::in_rows) return weight_offset(layer) + layer_inputs(layer);
  return weight_offset(layer) + layer_units(layer) * layer_inputs(layer);
}
Eigen::Index MlpShape::parameter_count() const { return weight_offset(hidden.size() + 1); }

void mlp_outputs(const MlpShape& shape, const Eigen::VectorXd& theta, const Eigen::MatrixXd& X, MlpWorkspace& ws,
                 Eigen::VectorXd& out) {
  size_workspace(shape, ws);
  const Eigen::Index n = X.rows();
  out.resize(n);
  for (Eigen::Index first = 0; first < n; first += kBlock) {
    forward_block(shape, theta, block_inputs(X, first, ws), ws);
    const Eigen::Index count = std::min(kBlock, n - first);
    out.segment(first, count) = ws.pre.back().head(count).matrix();
  }
}

double mlp_squared_error(const MlpShape& s, const Eigen::VectorXd& theta, const Eigen::MatrixXd& X,
                         const Eigen::VectorXd& y, MlpWorkspace& ws, Eigen::VectorXd* gradient) {
  size_workspace(s, ws);
  if (gradient) ws.gradient_lanes.setZero(theta.size() * kLanes);
  const Eigen::Index n = X.rows();
  Eigen::ArrayXd& residuals = ws.delta.back();  // dE/df = f - y
  Packet squares = simd::pset1<Packet>(0.0);
  for (Eigen::Index first = 0; first < n; first += kBlock) {
    const BlockRows inputs = block_inputs(X, first, ws);
    forward_block(s, theta, inputs, ws);
    const Eigen::Index count = std::min(kBlock, n - first);
    residuals.head(count) = ws.pre.back().head(count) - y.segment(first, count).array();
    residuals.tail(kBlock - count).setZero();  // padding points
    for (Eigen::Index t = 0; t < kBlock; t += kLanes) {
      const Packet r = load(residuals.data() + t);
      squares = simd::pmadd(r, r, squares);
    }
    if (gradient) backward_block(s, theta, inputs, ws);
  }
  if (gradient) {
    gradient->resize(theta.size());
    for (Eigen::Index i = 0; i < theta.size(); ++i)
      (*gradient)[i] = simd::predux(load(ws.gradient_lanes.data() + i * kLanes));
  }
  return 0.5 * simd::predux(squares);
}

}  // namespace bnn
