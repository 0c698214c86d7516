// MC dropout at the sizes of the UCI grid search (naval: 8,594 fitting rows x 16 inputs, 50
// units; protein: 100 units): one training epoch (Adam, batch 128, masks on inputs and hidden
// units), 1,000 stochastic passes over a validation part, and the 95%-interval test of a
// 10,000-draw predictive by two quantile solves against one cdf, and the mask stream's uniforms.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "methods/core/draws_predictive.hpp"
#include "methods/core/rng.hpp"
#include "methods/mc_dropout/mc_dropout.hpp"

namespace {

bnn::RegressionData data(Eigen::Index n, Eigen::Index d) {
  bnn::Rng rng(1);
  bnn::RegressionData out;
  out.X.resize(n, d);
  out.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) out.X(i, j) = bnn::standard_normal(rng);
    out.y[i] = std::sin(out.X(i, 0)) + 0.3 * out.X(i, 1) + 0.1 * bnn::standard_normal(rng);
  }
  return out;
}

void BM_McDropoutEpoch(benchmark::State& state) {
  const bnn::RegressionData train = data(state.range(0), state.range(1));
  bnn::mc_dropout::Options options;
  options.hidden_units = static_cast<int>(state.range(2));
  options.epochs = 1;
  for (auto _ : state) {
    bnn::Rng rng(2);
    benchmark::DoNotOptimize(bnn::mc_dropout::train(train, options, {0.05, 1.0}, rng).theta.data());
  }
}
BENCHMARK(BM_McDropoutEpoch)->Args({8594, 16, 50})->Args({29267, 9, 100})->Unit(benchmark::kMillisecond);

void BM_McDropoutPasses(benchmark::State& state) {
  const bnn::RegressionData validation = data(state.range(0), state.range(1));
  bnn::Rng init(3);
  const auto net = bnn::DenseNetwork32::glorot_uniform({state.range(1), state.range(2), 1}, init);
  for (auto _ : state) {
    bnn::Rng rng(4);
    benchmark::DoNotOptimize(
        bnn::mc_dropout::mean_log_likelihood(net, validation.X, validation.y, 0.05, 0.1, 1000, rng));
  }
}
BENCHMARK(BM_McDropoutPasses)->Args({2148, 16, 50})->Args({7317, 9, 100})->Unit(benchmark::kMillisecond);

// The uniforms of one protein batch's hidden mask (128 x 100): range(0) = 0, the mask stream
// (eight xoshiro128** lanes); 1, the halves of a SplitMix64 stream, which masks came from before.
void BM_MaskUniforms(benchmark::State& state) {
  std::vector<std::uint32_t> u(128 * 100);
  std::uint64_t seed = 7;
  for (auto _ : state) {
    if (state.range(0) == 0) {
      bnn::fill_uniform32(u.data(), u.size(), seed);
    } else {
      for (std::size_t j = 0; j < u.size() / 2; ++j) {
        const std::uint64_t bits = bnn::splitmix64(seed + j * 0x9E3779B97F4A7C15ULL);
        u[2 * j] = static_cast<std::uint32_t>(bits);
        u[2 * j + 1] = static_cast<std::uint32_t>(bits >> 32);
      }
    }
    benchmark::DoNotOptimize(u.data());
    ++seed;
  }
}
BENCHMARK(BM_MaskUniforms)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// 100 test points of a 10,000-draw predictive; range(0) = 0: two quantiles, 1: one cdf.
void BM_DrawsInterval(benchmark::State& state) {
  bnn::Rng rng(5);
  bnn::DrawsPredictive::RowMajorMatrix draws(100, 10000);
  for (Eigen::Index k = 0; k < draws.size(); ++k) draws.data()[k] = static_cast<float>(bnn::standard_normal(rng));
  const bnn::DrawsPredictive predictive(std::move(draws), 0.1);
  const bool by_cdf = state.range(0) == 1;
  for (auto _ : state) {
    int covered = 0;
    for (Eigen::Index i = 0; i < predictive.size(); ++i) {
      const double y = 0.03 * static_cast<double>(i) - 1.5;
      covered += by_cdf ? predictive.between_quantiles(i, y, 0.025, 0.975)
                        : (y >= predictive.quantile(i, 0.025) && y <= predictive.quantile(i, 0.975));
    }
    benchmark::DoNotOptimize(covered);
  }
}
BENCHMARK(BM_DrawsInterval)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
