// The external-method protocol's cost per job (methods/external), against the built-in linear:
//   BM_ProcessStart       fork + exec + wait of /bin/true: starting any program
//   BM_PythonStart        python3 -c pass, and with numpy imported: the interpreter's own start-up
//   BM_HelperImport       python3 importing numpy and the helper (bnnbench_method)
//   BM_ExternalLinear     a whole job of examples/linear.py on a boston-sized split (455 x 13, 51
//                         test points) through the registry, against BM_BuiltinLinear
//   BM_ExternalEcho       a program that answers N(0, 1) at once (external_echo.py): the protocol
//                         alone, on boston's and on protein's sizes (41,157 x 9 training rows and
//                         the whole set's 45,730 x 9 as points to predict)
//   BM_HarnessTransfer    the harness's side of the transfer alone, in process: writing the
//                         request's arrays and reading a Gaussian answer back
// The overhead beyond the interpreter is ExternalLinear - HelperImport; the transfer on protein
// is ExternalEcho(protein) - ExternalEcho(boston) plus what boston's own transfer takes.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "methods/core/rng.hpp"
#include "methods/external/child_process.hpp"
#include "methods/external/external.hpp"
#include "methods/external/npy.hpp"
#include "methods/external/response.hpp"
#include "methods/external/scratch_folder.hpp"
#include "methods/registry.hpp"

namespace {

using namespace bnn;

const bool python_on_path = [] { return ::setenv("PATH", BNNBENCH_TEST_PATH, 1) == 0; }();

RegressionData problem(Eigen::Index n, Eigen::Index d) {
  Rng rng(1);
  RegressionData data{Eigen::MatrixXd(n, d), Eigen::VectorXd(n)};
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) data.X(i, j) = standard_normal(rng);
    data.y[i] = std::sin(data.X(i, 0)) + 0.1 * standard_normal(rng);
  }
  return data;
}

void run_program(benchmark::State& state, std::vector<std::string> argv) {
  const external::ScratchFolder folder;
  external::ChildRun run;
  run.argv = std::move(argv);
  run.environment_overrides = {"PYTHONPATH=" BNNBENCH_SOURCE_DIR "/methods/external/python"};
  run.working_folder = folder.path();
  run.stdout_file = folder.file("out");
  run.stderr_file = folder.file("err");
  for (auto _ : state)
    if (external::run_child(run).exit_status != 0) state.SkipWithError("the program failed");
}

void BM_ProcessStart(benchmark::State& state) { run_program(state, {"/bin/true"}); }
BENCHMARK(BM_ProcessStart)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PythonStart(benchmark::State& state) {
  run_program(state, state.range(0) ? std::vector<std::string>{"python3", "-c", "import numpy"}
                                    : std::vector<std::string>{"python3", "-c", "pass"});
}
BENCHMARK(BM_PythonStart)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_HelperImport(benchmark::State& state) {
  run_program(state, {"python3", "-c", "import numpy, bnnbench_method"});
}
BENCHMARK(BM_HelperImport)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BuiltinLinear(benchmark::State& state) {
  const RegressionData train = problem(455, 13), test = problem(51, 13);
  const MethodEntry& linear = find_method("linear");
  for (auto _ : state) {
    Rng rng(2);
    benchmark::DoNotOptimize(linear.fit(train, {}, rng)->predict(test.X));
  }
}
BENCHMARK(BM_BuiltinLinear)->Unit(benchmark::kMillisecond)->UseRealTime();

void external_job(benchmark::State& state, const std::string& script, Eigen::Index n, Eigen::Index m, Eigen::Index d) {
  const RegressionData train = problem(n, d), test = problem(m, d);
  const MethodEntry& entry = find_method("external");
  const ParamMap options{{"command", "[\"python3\", \"" + script + "\"]"}};
  for (auto _ : state) {
    Rng rng(2);
    benchmark::DoNotOptimize(entry.fit_for_points(train, options, rng, {&test.X})->predict(test.X));
  }
}

void BM_ExternalLinear(benchmark::State& state) {
  external_job(state, BNNBENCH_SOURCE_DIR "/methods/external/examples/linear.py", 455, 51, 13);
}
BENCHMARK(BM_ExternalLinear)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ExternalEcho(benchmark::State& state) {
  const bool protein = state.range(0) == 1;
  external_job(state, BNNBENCH_SOURCE_DIR "/bench/external_echo.py", protein ? 41157 : 455, protein ? 45730 : 51,
               protein ? 9 : 13);
}
BENCHMARK(BM_ExternalEcho)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_HarnessTransfer(benchmark::State& state) {
  const RegressionData train = problem(41157, 9), test = problem(45730, 9);
  const external::ScratchFolder folder;
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(test.X.rows());
  for (auto _ : state) {
    external::write_npy(folder.file("train_X.npy"), train.X);
    external::write_npy(folder.file("train_y.npy"),
                        Eigen::Map<const external::NpyMatrix>(train.y.data(), train.y.size(), 1), true);
    external::write_npy(folder.file("predict_0_X.npy"), test.X);
    external::write_npy(folder.file("mean.npy"), Eigen::Map<const external::NpyMatrix>(ones.data(), ones.size(), 1),
                        true);
    external::write_npy(folder.file("variance.npy"), Eigen::Map<const external::NpyMatrix>(ones.data(), ones.size(), 1),
                        true);
    {
      std::ofstream(folder.file("response.json"))
          << R"({"protocol": 1, "status": "ok", "predictions": [{"form": "gaussian", "mean": "mean.npy", "variance": "variance.npy"}]})";
    }
    benchmark::DoNotOptimize(external::read_response(folder.path(), {test.X.rows()}));
  }
}
BENCHMARK(BM_HarnessTransfer)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
