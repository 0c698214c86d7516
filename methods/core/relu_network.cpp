#include "relu_network.hpp"

#include <cmath>

namespace bnn {

MlpShape relu_network_shape(Eigen::Index inputs, const std::vector<int>& hidden) {
  return {inputs, hidden, Activation::relu, BiasLayout::in_rows};
}

ReluNetwork ReluNetwork::random(Eigen::Index inputs, const std::vector<int>& hidden, double sd, Rng& rng) {
  const MlpShape shape = relu_network_shape(inputs, hidden);
  ReluNetwork net;
  for (std::size_t l = 0; l <= hidden.size(); ++l) {
    RowMatrix W(shape.layer_units(l), shape.layer_fan_in(l));
    for (Eigen::Index i = 0; i < W.rows(); ++i)
      for (Eigen::Index j = 0; j < W.cols(); ++j) W(i, j) = sd * standard_normal(rng);
    net.weights.push_back(std::move(W));
  }
  return net;
}

std::size_t ReluNetwork::parameter_count() const {
  std::size_t n = 0;
  for (const auto& W : weights) n += static_cast<std::size_t>(W.size());
  return n;
}

double relu_forward(const std::vector<RowMatrix>& weights, const Eigen::Ref<const Eigen::VectorXd>& x,
                    ReluCache& cache) {
  const std::size_t L = weights.size();
  cache.z.resize(L);
  cache.a.resize(L);
  cache.z[0].resize(x.size() + 1);
  cache.z[0].head(x.size()) = x;
  cache.z[0][x.size()] = 1.0;
  for (std::size_t l = 0; l < L; ++l) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(weights[l].cols()));
    cache.a[l].noalias() = scale * (weights[l] * cache.z[l]);
    if (l + 1 == L) break;
    const Eigen::Index units = cache.a[l].size();
    cache.z[l + 1].resize(units + 1);
    cache.z[l + 1].head(units) = cache.a[l].cwiseMax(0.0);
    cache.z[l + 1][units] = 1.0;
  }
  return cache.a[L - 1][0];
}

void relu_backward(const std::vector<RowMatrix>& weights, const ReluCache& cache, double d_output,
                   std::vector<RowMatrix>& gradients, ReluDeltas& scratch) {
  relu_backward_pass(weights, cache, d_output, scratch, [&](std::size_t l, double scale, const Eigen::VectorXd& delta) {
    gradients[l].noalias() += scale * delta * cache.z[l].transpose();
  });
}

}  // namespace bnn
