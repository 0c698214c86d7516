// GP with the neural-network covariance: one log-marginal-likelihood-and-gradient
// evaluation (the optimizer's unit of work) at the sizes of the EP-NN paper's data sets:
// housing folds (455 x 13), crime folds (1794 x 102) and kin40k (5000 x 100, whose Cholesky
// factor and inverse may go by tiles that several threads share); and that factor and inverse alone.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <omp.h>

#include "methods/core/lapack.hpp"
#include "methods/core/rng.hpp"
#include "methods/gp/cholesky_inverse.hpp"
#include "methods/gp/gp.hpp"

namespace {

void BM_GpEvidenceAndGradient(benchmark::State& state) {
  const Eigen::Index n = state.range(0), d = state.range(1);
  const bool ard = state.range(2) != 0;
  const bool tiled = state.range(3) != 0;  // Cholesky factor and inverse by tiles (tiled_from_rows = n)
  const int threads = static_cast<int>(state.range(4));
  bnn::Rng rng(1);
  Eigen::MatrixXd X(n, d);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) X(i, j) = bnn::standard_normal(rng);
    y[i] = std::sin(X(i, 0)) + 0.1 * bnn::standard_normal(rng);
  }
  bnn::gp::Hyperparameters h;
  h.kernel.input_variances = Eigen::VectorXd::Constant(d, 0.5);
  const Eigen::VectorXd theta = bnn::gp::to_log_vector(h, ard);
  bnn::gp::EvidenceWorkspace workspace;  // as the optimizer keeps it
  workspace.tiled_from_rows = tiled ? n : 0;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  for (auto _ : state) benchmark::DoNotOptimize(bnn::gp::log_marginal_likelihood(X, y, theta, ard, true, workspace));
  omp_set_num_threads(saved);
  // Cholesky n^3/3, inverse 2n^3/3 (triangular inverse + product), kernel and contraction 4 n^2 d.
  const double nn = static_cast<double>(n), dd = static_cast<double>(d);
  const double flops = nn * nn * nn + 4.0 * nn * nn * dd;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GpEvidenceAndGradient)
    ->ArgNames({"n", "d", "ard", "tiled", "threads"})
    ->Args({455, 13, 1, 0, 1})
    ->Args({1794, 102, 1, 0, 1})
    ->Args({5000, 100, 1, 0, 1})
    ->Args({5000, 100, 1, 1, 1})
    ->Args({5000, 100, 1, 1, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The evaluation's O(n^3) part alone: Cholesky factor and inverse of an n x n covariance, by
// LAPACK's whole-matrix calls (tiled = 0) or by tiles on `threads` threads (tiled = 1).
void BM_GpCholeskyAndInverse(benchmark::State& state) {
  const Eigen::Index n = state.range(0);
  const bool tiled = state.range(1) != 0;
  const int threads = static_cast<int>(state.range(2));
  const Eigen::Index tile = state.range(3);
  bnn::Rng rng(2);
  Eigen::MatrixXd G(n, 64);
  for (Eigen::Index i = 0; i < G.size(); ++i) G.data()[i] = bnn::standard_normal(rng);
  Eigen::MatrixXd C0 = G * G.transpose();
  C0.diagonal().array() += 1.0;
  Eigen::MatrixXd C, scratch;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  for (auto _ : state) {
    C = C0;
    if (tiled) {
      bnn::gp::tiled_cholesky_lower(C, tile);
      bnn::gp::tiled_inverse_from_cholesky_lower(C, scratch, tile);
    } else {
      bnn::lapack::cholesky_lower(C);
      bnn::gp::inverse_from_cholesky_lower(C);
    }
    benchmark::DoNotOptimize(C.data());
  }
  omp_set_num_threads(saved);
  const double nn = static_cast<double>(n);
  state.counters["GFLOP/s"] = benchmark::Counter(nn * nn * nn * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GpCholeskyAndInverse)
    ->ArgNames({"n", "tiled", "threads", "tile"})
    ->Args({5000, 0, 1, 0})
    ->Args({5000, 1, 1, bnn::gp::kTile})
    ->Args({5000, 1, 2, bnn::gp::kTile})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  bnn::lapack::pin_kernels(argv);       // the kernels every run uses (lapack.hpp)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // as bnnbench does
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
