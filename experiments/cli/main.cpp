// bnnbench: reruns published experiments on Bayesian neural networks for regression and
// writes the papers' tables with the papers' numbers beside ours.
#include <malloc.h>
#include <signal.h>

#include <Eigen/Core>
#include <boost/program_options/errors.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "common.hpp"
#include "datasets/src/data_error.hpp"
#include "datasets/src/fetch.hpp"
#include "experiments/src/run/runner.hpp"
#include "methods/core/lapack.hpp"
#include "methods/core/product_blocking.hpp"
#include "methods/core/vector_math.hpp"

namespace {

constexpr const char* kUsage = R"(bnnbench — rerun published Bayesian neural network regression experiments

usage: bnnbench COMMAND [options]

commands:
  run EXPERIMENT         run an experiment (a paper table or figure) and print its report
  report EXPERIMENT      print the report of finished jobs (md, csv, latex; a figure experiment's grid or svg)
  datasets list          list the registry's data sets and whether they are present and verified
  datasets fetch [NAME...]  download data sets (or copy them from a mirror with --from)
  list experiments|methods|datasets   what is available
  fit METHOD --train FILE --test FILE   one-off run of a method on your own files
  merge --results OUT IN...             combine results stores (e.g. from --shard runs)
  verify EXPERIMENT      rerun a store's finished jobs and check that every number comes out the same
  slurm EXPERIMENT --time HH:MM:SS [--nodes N ...] [--submit]   write (and submit) a Slurm job of a run
  version                print the code version (and the pinned OpenBLAS kernels, Eigen blocking, vector math)

Every command takes --help, --data-dir DIR and --registry FILE.
Examples:
  bnnbench run quickstart
  bnnbench datasets fetch --from ../shared/datasets
  bnnbench run pbp-table1 --methods linear --threads 2
  mpirun -n 4 bnnbench run pbp-table1 --threads 1
  bnnbench slurm pbp-table1 --nodes 4 --ntasks-per-node 32 --time 02:00:00 --submit
  bnnbench report pbp-table1 --format latex
  bnnbench report pbp-toy --format svg -o toy.svg)";

}  // namespace

int main(int argc, char** argv) {
  // The same LAPACK bits on every machine (see methods/core/lapack.hpp); re-executes once.
  if (!bnn::lapack::pin_kernels(argv))
    std::cerr << "bnnbench: warning: could not run with OPENBLAS_CORETYPE=" << bnn::lapack::kKernelSet
              << "; GP results may differ in the last digits from other machines\n";
  // ... and the same order of the sums in Eigen's matrix products (product_blocking.hpp).
  bnn::product_blocking::pin();
  // Methods allocate and free many matrices of the same large size: keep them in the heap
  // instead of mapping fresh pages each time. (This holds for the main thread's arena; the
  // arenas of other threads, where jobs run, map and drop 64 MB heaps as blocks come and go,
  // so a method keeps its largest per-step matrices in a workspace: gp::EvidenceWorkspace.)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // A file-size limit (ulimit -f) makes a write fail with EFBIG, which the store reports as a
  // failed write (what a full disk gives), instead of SIGXFSZ ending the run without a word.
  signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string command_line = "bnnbench";
  for (const auto& a : args) command_line += " " + a;
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage << "\n";
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (command == "run") return bnn::cli::cmd_run(rest, command_line);
    if (command == "report") return bnn::cli::cmd_report(rest);
    if (command == "datasets") return bnn::cli::cmd_datasets(rest);
    if (command == "list") return bnn::cli::cmd_list(rest);
    if (command == "fit") return bnn::cli::cmd_fit(rest);
    if (command == "merge") return bnn::cli::cmd_merge(rest);
    if (command == "verify") return bnn::cli::cmd_verify(rest);
    if (command == "slurm") return bnn::cli::cmd_slurm(rest);
    if (command == "version" || command == "--version") {
      std::cout << "bnnbench " << bnn::exp::code_version() << " (OpenBLAS " << bnn::lapack::kernel_set()
                << " kernels, Eigen products blocked for a " << Eigen::l1CacheSize() / 1024 << " KiB L1, "
                << (bnn::vector_math::vectorized() ? "erf/erfc/exp/sin/cos from glibc's AVX2 libmvec"
                                                   : "scalar erf/erfc/exp/sin/cos")
                << ")\n";
      return 0;
    }
    std::cerr << "bnnbench: unknown command '" << command << "'; see bnnbench --help\n";
    return 2;
  } catch (const boost::program_options::error& e) {
    std::cerr << "bnnbench " << command << ": " << e.what() << " (see bnnbench " << command << " --help)\n";
    return 2;
  } catch (const bnn::data::DataError& e) {
    std::cerr << "bnnbench " << command << ": error: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "bnnbench " << command << ": error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "bnnbench " << command << ": error: " << e.what() << "\n";
    return 1;
  }
}
