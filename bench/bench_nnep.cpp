// NN-EP: sweeps over the likelihood sites (Algorithm 1, lines 2-7) at the sizes of housing
// (n = 455, d = 13 + bias, K = 10) and kin40k (n = 5000, d = 100 + bias, K = 30). A fit limited
// to S sweeps with fixed noise and priors is timed (below); the counter compares the
// time with the flop count of the sequential rank-one updates, 4 d^2 per site and unit
// (Sigma_k x_i, then Sigma_k -= c a a'), i.e. O(n K d^2) per sweep. The fused kernel of
// lower_update.hpp does 3 d^2 of them, on the lower triangle; the counter keeps the plain count.
// Run: build/bench/bench_nnep
#include <benchmark/benchmark.h>

#include <chrono>

#include "methods/core/rng.hpp"
#include "methods/nnep/nnep.hpp"

namespace {

bnn::RegressionData random_problem(long n, long inputs) {
  bnn::Rng rng(3);
  bnn::RegressionData data;
  data.X = Eigen::MatrixXd(n, inputs);
  data.y = Eigen::VectorXd(n);
  for (long i = 0; i < n; ++i) {
    double f = 0.0;
    for (long j = 0; j < inputs; ++j) {
      data.X(i, j) = bnn::standard_normal(rng);
      if (j < 8) f += std::sin(data.X(i, j));
    }
    data.y[i] = f / 2.0 + 0.1 * bnn::standard_normal(rng);
  }
  return data;
}

// A fit of `sweeps` sweeps with the noise fixed and the priors not yet learned; its seconds.
double timed_fit(const bnn::RegressionData& data, int units, int sweeps) {
  bnn::nnep::Options options;
  options.hidden_units = units;
  options.initial_iterations = options.prior_start = options.max_iterations = sweeps;
  bnn::Rng rng(1);
  const auto start = std::chrono::steady_clock::now();
  benchmark::DoNotOptimize(bnn::nnep::fit(data, options, rng));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The time of one sweep: the difference of a 5-sweep and a 2-sweep fit, divided by 3, so that
// the setup and the marginal likelihood at the end cancel.
void BM_NnepSweep(benchmark::State& state) {
  const long n = state.range(0), inputs = state.range(1);
  const int units = static_cast<int>(state.range(2));
  constexpr int kShort = 2, kLong = 5;
  const bnn::RegressionData data = random_problem(n, inputs);
  for (auto _ : state) {
    const double seconds = (timed_fit(data, units, kLong) - timed_fit(data, units, kShort)) / (kLong - kShort);
    state.SetIterationTime(seconds);
  }
  const double d = static_cast<double>(inputs + 1);
  const double flops = 4.0 * d * d * static_cast<double>(n) * units;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * static_cast<double>(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_NnepSweep)
    ->Args({455, 13, 10})
    ->Args({1793, 102, 10})
    ->Args({5000, 100, 30})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
