// GP with the neural-network covariance: one log-marginal-likelihood-and-gradient
// evaluation (the optimizer's unit of work) at the sizes of the EP-NN paper's data sets:
// housing folds (455 x 13), crime folds (1794 x 102) and kin40k (5000 x 100).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include "methods/core/lapack.hpp"
#include "methods/core/rng.hpp"
#include "methods/gp/gp.hpp"

namespace {

void BM_GpEvidenceAndGradient(benchmark::State& state) {
  const Eigen::Index n = state.range(0), d = state.range(1);
  const bool ard = state.range(2) != 0;
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
  for (auto _ : state) benchmark::DoNotOptimize(bnn::gp::log_marginal_likelihood(X, y, theta, ard, true, workspace));
  // Cholesky n^3/3, inverse 2n^3/3 (triangular inverse + product), kernel and contraction 4 n^2 d.
  const double nn = static_cast<double>(n), dd = static_cast<double>(d);
  const double flops = nn * nn * nn + 4.0 * nn * nn * dd;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GpEvidenceAndGradient)
    ->Args({455, 13, 1})
    ->Args({1794, 102, 1})
    ->Args({5000, 100, 1})
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
