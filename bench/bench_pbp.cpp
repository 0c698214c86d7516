// PBP: one epoch (ADF pass over every training point) at the size of a protein split
// (41,157 points, 9 inputs, 100 hidden units) and of a boston split (455 x 13, 50 units).
// The counter GFLOP/s divides a plain count of the epoch's floating-point work by its time:
// per weight and point about 7 flops forward (mean and variance of a_l), 8 backward
// (gradients to the layer's inputs, hidden layers only) and 14 for the update (6)-(7).
#include <benchmark/benchmark.h>

#include "methods/core/rng.hpp"
#include "methods/pbp/pbp.hpp"

namespace {

void BM_PbpEpoch(benchmark::State& state) {
  const Eigen::Index n = state.range(0), d = state.range(1);
  const int units = static_cast<int>(state.range(2));
  bnn::Rng rng(1);
  Eigen::MatrixXd X(d, n);  // one column per point
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) X(j, i) = bnn::standard_normal(rng);
    y[i] = std::sin(X(0, i)) + 0.3 * X(1, i) + 0.1 * bnn::standard_normal(rng);
  }
  bnn::pbp::Options options;
  options.hidden_layers = {units};
  bnn::pbp::Network net = bnn::pbp::initial_network(d, options, rng);
  bnn::pbp::PassWorkspace workspace;
  for (auto _ : state)
    for (Eigen::Index i = 0; i < n; ++i) bnn::pbp::adf_update(net, X.col(i), y[i], workspace);
  const double first = static_cast<double>(units) * static_cast<double>(d + 1);
  const double second = static_cast<double>(units + 1);
  const double flops = static_cast<double>(n) * (first * (7.0 + 14.0) + second * (7.0 + 8.0 + 14.0));
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["us_per_point"] = benchmark::Counter(
      static_cast<double>(n) * 1e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_PbpEpoch)->Args({41157, 9, 100})->Args({455, 13, 50})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
