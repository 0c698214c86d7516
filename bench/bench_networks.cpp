// The deterministic networks of BP, VI and Laplace / ensemble learning: one SGD epoch of BP and
// of VI (per-example forward and backward passes of the ReLU network, 455 x 13 like a boston
// split, 50 units; for BP also 4 layers of 100 units on 9 inputs, like protein in pbp-layers),
// and the two-layer erf network's error gradient and exact Hessian at Laplace's size (455 x 13,
// 4 and 10 units).
#include <benchmark/benchmark.h>

#include "methods/bp/bp.hpp"
#include "methods/core/rng.hpp"
#include "methods/core/two_layer_network.hpp"
#include "methods/vi/vi.hpp"

namespace {

void data(Eigen::Index n, Eigen::Index d, Eigen::MatrixXd& X, Eigen::VectorXd& y) {
  bnn::Rng rng(1);
  X.resize(n, d);
  y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) X(i, j) = bnn::standard_normal(rng);
    y[i] = std::sin(X(i, 0)) + 0.3 * X(i, 1) + 0.1 * bnn::standard_normal(rng);
  }
}

void BM_BpEpoch(benchmark::State& state) {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  data(state.range(0), state.range(1), X, y);
  const std::vector<int> hidden(static_cast<std::size_t>(state.range(3)), static_cast<int>(state.range(2)));
  for (auto _ : state) {
    bnn::Rng rng(2);
    bnn::ReluNetwork net = bnn::ReluNetwork::random(X.cols(), hidden, 1.0, rng);
    benchmark::DoNotOptimize(bnn::bp::train(net, X, y, 1, {1e-3, 0.9, 1e-5}, rng));
  }
}
// {points, inputs, units, hidden layers}: boston's one layer, and protein's four (pbp-layers' bp-4)
BENCHMARK(BM_BpEpoch)->Args({455, 13, 50, 1})->Args({2000, 9, 100, 4})->Unit(benchmark::kMillisecond);

void BM_ViEpoch(benchmark::State& state) {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  data(state.range(0), state.range(1), X, y);
  bnn::vi::Options options;
  options.hidden_layers = {static_cast<int>(state.range(2))};
  options.epochs = 1;
  for (auto _ : state) {
    bnn::Rng rng(2);
    const bnn::ReluNetwork net = bnn::ReluNetwork::random(X.cols(), options.hidden_layers, 1.0, rng);
    bnn::vi::Posterior q;
    for (const auto& W : net.weights) {
      q.mean.push_back(W);
      q.rho.push_back(bnn::RowMatrix::Constant(W.rows(), W.cols(), -4.6));
    }
    benchmark::DoNotOptimize(bnn::vi::train(q, X, y, options, 1e-3, 0.9, rng));
  }
}
BENCHMARK(BM_ViEpoch)->Args({455, 13, 50})->Unit(benchmark::kMillisecond);

bnn::MlpShape two_layer(Eigen::Index d, Eigen::Index units) {
  return bnn::two_layer_shape(d, units, bnn::Activation::erf, true, false);
}

void BM_TwoLayerGradient(benchmark::State& state) {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  data(state.range(0), state.range(1), X, y);
  const bnn::MlpShape shape = two_layer(X.cols(), state.range(2));
  bnn::Rng rng(3);
  Eigen::VectorXd w(shape.parameter_count()), gradient;
  for (Eigen::Index i = 0; i < w.size(); ++i) w[i] = 0.3 * bnn::standard_normal(rng);
  for (auto _ : state) benchmark::DoNotOptimize(bnn::squared_error(shape, w, X, y, &gradient));
}
BENCHMARK(BM_TwoLayerGradient)->Args({455, 13, 4})->Args({455, 13, 10})->Unit(benchmark::kMicrosecond);

void BM_TwoLayerHessian(benchmark::State& state) {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  data(state.range(0), state.range(1), X, y);
  const bnn::MlpShape shape = two_layer(X.cols(), state.range(2));
  bnn::Rng rng(3);
  Eigen::VectorXd w(shape.parameter_count());
  for (Eigen::Index i = 0; i < w.size(); ++i) w[i] = 0.3 * bnn::standard_normal(rng);
  for (auto _ : state) benchmark::DoNotOptimize(bnn::squared_error_hessian(shape, w, X, y));
}
BENCHMARK(BM_TwoLayerHessian)->Args({455, 13, 4})->Args({455, 13, 10})->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
