// Benchmarks of the harness core: parsing, hashing, the linear method, scoring test points
// (log density, CRPS and 95% interval per point) for each predictive kind, and the vector erf
// and exp against the scalar ones (the nodes of one NN-EP quadrature of (49)).
// Run: build/bench/bench_core  (add --benchmark_filter=... to pick some)
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <vector>

#include "datasets/src/fetch.hpp"
#include "datasets/src/text_table.hpp"
#include "experiments/src/metrics/metrics.hpp"
#include "methods/core/rng.hpp"
#include "methods/core/vector_math.hpp"
#include "methods/linear/linear.hpp"

namespace {

std::string table_text(long rows, long cols) {
  bnn::Rng rng(1);
  std::ostringstream out;
  out.precision(10);
  for (long i = 0; i < rows; ++i) {
    for (long j = 0; j < cols; ++j) out << (j ? " " : "") << bnn::standard_normal(rng) * 100.0;
    out << "\n";
  }
  return out.str();
}

// A protein-sized table (45,730 x 10).
void BM_ParseTable(benchmark::State& state) {
  const std::string text = table_text(state.range(0), 10);
  for (auto _ : state) benchmark::DoNotOptimize(bnn::data::parse_numeric_table(text, "bench"));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseTable)->Arg(45730)->Unit(benchmark::kMillisecond);

void BM_Sha256(benchmark::State& state) {
  const std::string bytes(static_cast<std::size_t>(state.range(0)), 'x');
  for (auto _ : state) benchmark::DoNotOptimize(bnn::data::sha256_hex(bytes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha256)->Arg(1 << 24)->Unit(benchmark::kMillisecond);

bnn::RegressionData regression(long n, long d) {
  bnn::Rng rng(2);
  bnn::RegressionData data{Eigen::MatrixXd(n, d), Eigen::VectorXd(n)};
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < d; ++j) data.X(i, j) = bnn::standard_normal(rng);
    data.y[i] = data.X(i, 0) + 0.1 * bnn::standard_normal(rng);
  }
  return data;
}

void BM_LinearFitPredict(benchmark::State& state) {
  const auto data = regression(state.range(0), state.range(1));
  bnn::Rng rng(3);
  for (auto _ : state) {
    const auto model = bnn::linear::fit(data, {}, rng);
    benchmark::DoNotOptimize(model.predict(data.X));
  }
}
BENCHMARK(BM_LinearFitPredict)->Args({41157, 9})->Args({5000, 100})->Unit(benchmark::kMillisecond);

// Scoring cost per test point, by predictive kind.
void score(benchmark::State& state, const bnn::Predictive& p, const Eigen::VectorXd& y) {
  for (auto _ : state) benchmark::DoNotOptimize(bnn::exp::score_points(p, y));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * y.size());
}

void BM_ScoreGaussian(benchmark::State& state) {
  const long n = 4573;
  const Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(n, -3, 3);
  score(state, bnn::GaussianPredictive(Eigen::VectorXd::Zero(n), Eigen::VectorXd::Ones(n)), y);
}
BENCHMARK(BM_ScoreGaussian)->Unit(benchmark::kMicrosecond);

void BM_ScoreStudentT(benchmark::State& state) {
  const long n = 4573;
  const Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(n, -3, 3);
  score(
      state,
      bnn::StudentTPredictive(Eigen::VectorXd::Zero(n), Eigen::VectorXd::Ones(n), static_cast<double>(state.range(0))),
      y);
}
BENCHMARK(BM_ScoreStudentT)->Arg(10)->Arg(80000)->Unit(benchmark::kMicrosecond);

void BM_ScoreMixture(benchmark::State& state) {
  const long n = 200, components = state.range(0);
  bnn::Rng rng(4);
  Eigen::MatrixXd means(n, components), vars(n, components);
  for (long i = 0; i < n; ++i)
    for (long c = 0; c < components; ++c) {
      means(i, c) = 0.3 * bnn::standard_normal(rng);
      vars(i, c) = 0.5 + bnn::uniform01(rng);
    }
  score(state, bnn::GaussianMixturePredictive(means, vars), Eigen::VectorXd::LinSpaced(n, -3, 3));
}
BENCHMARK(BM_ScoreMixture)->Arg(100)->Arg(500)->Arg(1600)->Unit(benchmark::kMillisecond);

// erf over 72 points of [-6, 6] (the nodes of (49), h / sqrt 2 for |h| <= 8.5) and exp over
// 72 log masses in [-40, 0]: 4-wide (vector_math.hpp) against std:: one at a time.
// Arg 1: vector, 0: scalar.
using ArrayFunction = void (*)(const double*, double*, std::size_t);

void BM_Elementwise(benchmark::State& state, ArrayFunction vector, double (*scalar)(double), double lo, double hi) {
  std::vector<double> x(72), out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = lo + (hi - lo) * static_cast<double>(i) / 71.0;
  for (auto _ : state) {
    if (state.range(0) == 1)
      vector(x.data(), out.data(), x.size());
    else
      for (std::size_t i = 0; i < x.size(); ++i) out[i] = scalar(x[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(x.size()));
}
double scalar_erf(double x) { return std::erf(x); }
double scalar_exp(double x) { return std::exp(x); }
BENCHMARK_CAPTURE(BM_Elementwise, Erf, bnn::vector_math::erf, scalar_erf, -6.0, 6.0)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_Elementwise, Exp, bnn::vector_math::exp, scalar_exp, -40.0, 0.0)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
