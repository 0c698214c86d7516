#include "dense_network.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace bnn {

template <class Scalar>
BasicDenseNetwork<Scalar> BasicDenseNetwork<Scalar>::glorot_uniform(const DenseShape& s, Rng& rng) {
  BasicDenseNetwork net(s);
  const double a1 = std::sqrt(6.0 / static_cast<double>(s.inputs + s.hidden));
  const double a2 = std::sqrt(6.0 / static_cast<double>(s.hidden + s.outputs));
  for (Eigen::Index k = 0; k < net.b1_offset(); ++k) net.theta[k] = static_cast<Scalar>(uniform(rng, -a1, a1));
  for (Eigen::Index k = net.W2_offset(); k < net.b2_offset(); ++k)
    net.theta[k] = static_cast<Scalar>(uniform(rng, -a2, a2));
  return net;
}

namespace {
std::uint32_t drop_threshold(double p) {
  return static_cast<std::uint32_t>(std::min(std::llround(p * 4294967296.0), 4294967295LL));
}
}  // namespace

template <class Scalar>
void apply_dropout(Scalar* values, Eigen::Index count, double p, Rng& rng, std::vector<std::uint32_t>& uniforms) {
  const std::uint32_t threshold = drop_threshold(p);
  const auto kept = static_cast<Scalar>(1.0 / (1.0 - p));
  uniforms.resize(static_cast<std::size_t>(count));
  fill_uniform32(uniforms.data(), uniforms.size(), rng());
  const std::uint32_t* u = uniforms.data();
  for (Eigen::Index k = 0; k < count; ++k) values[k] *= u[k] < threshold ? Scalar(0) : kept;
}

template <class Scalar>
void draw_dropout_mask(Eigen::Index rows, Eigen::Index cols, double p, Rng& rng,
                       Eigen::Array<Scalar, Eigen::Dynamic, Eigen::Dynamic>& mask,
                       std::vector<std::uint32_t>& uniforms) {
  const std::uint32_t threshold = drop_threshold(p);
  const auto kept = static_cast<Scalar>(1.0 / (1.0 - p));
  mask.resize(rows, cols);
  uniforms.resize(static_cast<std::size_t>(mask.size()));
  fill_uniform32(uniforms.data(), uniforms.size(), rng());
  const std::uint32_t* u = uniforms.data();
  Scalar* m = mask.data();
  for (Eigen::Index k = 0; k < mask.size(); ++k) m[k] = u[k] < threshold ? Scalar(0) : kept;
}

template <class Scalar>
void dense_forward(const BasicDenseNetwork<Scalar>& net, const DenseInput<Scalar>& X,
                   const BasicDropoutMasks<Scalar>& masks, BasicDenseCache<Scalar>& cache) {
  if (masks.input.size() > 0)
    cache.input = X.array() * masks.input;
  else
    cache.input = X;
  cache.hidden.noalias() = cache.input * net.W1();
  // Bias, rectifier and mask in one sweep over the block.
  if (masks.hidden.size() > 0)
    cache.hidden.array() = (cache.hidden.rowwise() + net.b1()).array().cwiseMax(Scalar(0)) * masks.hidden;
  else
    cache.hidden.array() = (cache.hidden.rowwise() + net.b1()).array().cwiseMax(Scalar(0));
  cache.output.noalias() = cache.hidden * net.W2();
  cache.output.rowwise() += net.b2();
}

template <class Scalar>
void dense_backward(const BasicDenseNetwork<Scalar>& net, BasicDenseCache<Scalar>& cache,
                    const BasicDropoutMasks<Scalar>& masks, const DenseInput<Scalar>& d_output,
                    Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& gradient, DenseInput<Scalar>* d_input) {
  using Net = BasicDenseNetwork<Scalar>;
  const DenseShape& s = net.shape;
  gradient.resize(s.parameter_count());
  typename Net::MatrixMap(gradient.data() + net.W2_offset(), s.hidden, s.outputs).noalias() =
      cache.hidden.transpose() * d_output;
  typename Net::RowMap(gradient.data() + net.b2_offset(), s.outputs) = d_output.colwise().sum();
  // dLoss/d(pre-activation): through the output weights, the hidden mask and the rectifier (whose
  // derivative is 0 where the unit is off; a dropped unit has hidden == 0 too and mask 0).
  auto& d_pre = cache.d_pre;
  if (s.outputs == 1) {
    // One branch-free sweep (the rectifier's on/off is random, so a branch would mispredict):
    // the outer product d_output w2^T, times the mask, where the unit is on.
    const Eigen::Index rows = cache.hidden.rows();
    d_pre.resize(rows, s.hidden);
    const Scalar* h = cache.hidden.data();
    const Scalar* m = masks.hidden.size() > 0 ? masks.hidden.data() : nullptr;
    const Scalar* d = d_output.data();
    Scalar* out = d_pre.data();
    for (Eigen::Index j = 0; j < s.hidden; ++j) {
      const Scalar w = net.W2()(j, 0);
      const Eigen::Index col = j * rows;
      for (Eigen::Index i = 0; i < rows; ++i) {
        const Scalar through = m != nullptr ? d[i] * w * m[col + i] : d[i] * w;  // computed either way
        out[col + i] = h[col + i] > Scalar(0) ? through : Scalar(0);
      }
    }
  } else {
    d_pre.noalias() = d_output * net.W2().transpose();
    if (masks.hidden.size() > 0) d_pre.array() *= masks.hidden;
    d_pre = (cache.hidden.array() > Scalar(0)).select(d_pre, Scalar(0));
  }
  typename Net::MatrixMap(gradient.data(), s.inputs, s.hidden).noalias() = cache.input.transpose() * d_pre;
  typename Net::RowMap(gradient.data() + net.b1_offset(), s.hidden) = d_pre.colwise().sum();
  if (d_input != nullptr) {
    d_input->noalias() = d_pre * net.W1().transpose();
    if (masks.input.size() > 0) d_input->array() *= masks.input;
  }
}

#define BNN_DENSE_NETWORK(Scalar)                                                                        \
  template struct BasicDenseNetwork<Scalar>;                                                             \
  template void apply_dropout<Scalar>(Scalar*, Eigen::Index, double, Rng&, std::vector<std::uint32_t>&); \
  template void draw_dropout_mask<Scalar>(Eigen::Index, Eigen::Index, double, Rng&,                      \
                                          Eigen::Array<Scalar, Eigen::Dynamic, Eigen::Dynamic>&,         \
                                          std::vector<std::uint32_t>&);                                  \
  template void dense_forward<Scalar>(const BasicDenseNetwork<Scalar>&, const DenseInput<Scalar>&,       \
                                      const BasicDropoutMasks<Scalar>&, BasicDenseCache<Scalar>&);       \
  template void dense_backward<Scalar>(const BasicDenseNetwork<Scalar>&, BasicDenseCache<Scalar>&,       \
                                       const BasicDropoutMasks<Scalar>&, const DenseInput<Scalar>&,      \
                                       Eigen::Matrix<Scalar, Eigen::Dynamic, 1>&, DenseInput<Scalar>*);
BNN_DENSE_NETWORK(double)
BNN_DENSE_NETWORK(float)
#undef BNN_DENSE_NETWORK

}  // namespace bnn
