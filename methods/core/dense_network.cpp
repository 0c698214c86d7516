#include "dense_network.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace bnn {

DenseNetwork DenseNetwork::glorot_uniform(const DenseShape& s, Rng& rng) {
  DenseNetwork net(s);
  const double a1 = std::sqrt(6.0 / static_cast<double>(s.inputs + s.hidden));
  const double a2 = std::sqrt(6.0 / static_cast<double>(s.hidden + s.outputs));
  for (Eigen::Index k = 0; k < net.b1_offset(); ++k) net.theta[k] = uniform(rng, -a1, a1);
  for (Eigen::Index k = net.W2_offset(); k < net.b2_offset(); ++k) net.theta[k] = uniform(rng, -a2, a2);
  return net;
}

void apply_dropout(double* values, Eigen::Index count, double p, Rng& rng, std::vector<std::uint32_t>& uniforms) {
  const auto threshold = static_cast<std::uint32_t>(std::min(std::llround(p * 4294967296.0), 4294967295LL));
  const double kept = 1.0 / (1.0 - p);
  uniforms.resize(static_cast<std::size_t>(count));
  fill_uniform32(uniforms.data(), uniforms.size(), rng());
  const std::uint32_t* u = uniforms.data();
  for (Eigen::Index k = 0; k < count; ++k) values[k] *= u[k] < threshold ? 0.0 : kept;
}

void draw_dropout_mask(Eigen::Index rows, Eigen::Index cols, double p, Rng& rng, Eigen::ArrayXXd& mask) {
  mask.setOnes(rows, cols);
  std::vector<std::uint32_t> uniforms;
  apply_dropout(mask.data(), mask.size(), p, rng, uniforms);
}

void dense_forward(const DenseNetwork& net, const Eigen::MatrixXd& X, const DropoutMasks& masks, DenseCache& cache) {
  if (masks.input.size() > 0)
    cache.input = X.array() * masks.input;
  else
    cache.input = X;
  cache.hidden.noalias() = cache.input * net.W1();
  cache.hidden.rowwise() += net.b1();
  cache.hidden = cache.hidden.cwiseMax(0.0);
  if (masks.hidden.size() > 0) cache.hidden.array() *= masks.hidden;
  cache.output.noalias() = cache.hidden * net.W2();
  cache.output.rowwise() += net.b2();
}

void dense_backward(const DenseNetwork& net, const DenseCache& cache, const DropoutMasks& masks,
                    const Eigen::MatrixXd& d_output, Eigen::VectorXd& gradient, Eigen::MatrixXd* d_input) {
  const DenseShape& s = net.shape;
  gradient.resize(s.parameter_count());
  DenseNetwork::Matrix(gradient.data() + net.W2_offset(), s.hidden, s.outputs).noalias() =
      cache.hidden.transpose() * d_output;
  DenseNetwork::Row(gradient.data() + net.b2_offset(), s.outputs) = d_output.colwise().sum();
  // dLoss/d(pre-activation): through the output weights, the hidden mask and the rectifier (whose
  // derivative is 0 where the unit is off; a dropped unit has hidden == 0 too and mask 0).
  Eigen::MatrixXd d_pre = d_output * net.W2().transpose();
  if (masks.hidden.size() > 0) d_pre.array() *= masks.hidden;
  d_pre = (cache.hidden.array() > 0.0).select(d_pre, 0.0);
  DenseNetwork::Matrix(gradient.data(), s.inputs, s.hidden).noalias() = cache.input.transpose() * d_pre;
  DenseNetwork::Row(gradient.data() + net.b1_offset(), s.hidden) = d_pre.colwise().sum();
  if (d_input != nullptr) {
    d_input->noalias() = d_pre * net.W1().transpose();
    if (masks.input.size() > 0) d_input->array() *= masks.input;
  }
}

}  // namespace bnn
