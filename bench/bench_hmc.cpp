// NN-MC: one gradient of the log posterior (a forward and a backward pass over all training
// points) at the sizes of the EP-NN experiments: housing (455 x 13, 10 tanh units), crime
// (1793 x 102, 10 units) and kin40k (5000 x 100, 30 units); and the vectorized tanh alone.
#include <benchmark/benchmark.h>

#include "methods/core/mlp.hpp"
#include "methods/core/rng.hpp"
#include "methods/core/vector_math.hpp"

namespace {

void BM_MlpGradient(benchmark::State& state) {
  const Eigen::Index n = state.range(0), d = state.range(1);
  const int units = static_cast<int>(state.range(2));
  bnn::Rng rng(1);
  Eigen::MatrixXd X(n, d);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) X(i, j) = bnn::standard_normal(rng);
    y[i] = std::sin(X(i, 0)) + 0.1 * bnn::standard_normal(rng);
  }
  const bnn::MlpShape shape{d, {units}, bnn::Activation::tanh};
  Eigen::VectorXd theta(shape.parameter_count()), gradient;
  for (Eigen::Index i = 0; i < theta.size(); ++i) theta[i] = 0.3 * bnn::standard_normal(rng);
  bnn::MlpWorkspace ws;
  for (auto _ : state) {
    benchmark::DoNotOptimize(bnn::mlp_squared_error(shape, theta, X, y, ws, &gradient));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MlpGradient)
    ->Args({455, 13, 10})
    ->Args({1793, 102, 10})
    ->Args({5000, 100, 30})
    ->Unit(benchmark::kMicrosecond);

// The hidden units' tanh alone, for the 455 x 10 units of housing.
void BM_VectorTanh(benchmark::State& state) {
  bnn::Rng rng(2);
  Eigen::ArrayXd a(state.range(0)), h(state.range(0));
  for (Eigen::Index i = 0; i < a.size(); ++i) a[i] = 2.0 * bnn::standard_normal(rng);
  for (auto _ : state) {
    bnn::vector_math::tanh(a.data(), h.data(), static_cast<std::size_t>(a.size()));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_VectorTanh)->Arg(4550)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
