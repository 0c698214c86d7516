// Catch2's runner, started with OpenBLAS's kernel set and Eigen's product blocking pinned as
// bnnbench does (lapack.hpp, product_blocking.hpp), so that the tests see the same bits on every
// machine, and with the python3 that has numpy first on PATH (external methods' examples).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>

#include "methods/core/lapack.hpp"
#include "methods/core/product_blocking.hpp"

int main(int argc, char** argv) {
  if (!bnn::lapack::pin_kernels(argv))
    std::cerr << "bnnbench_tests: warning: could not run with OPENBLAS_CORETYPE=" << bnn::lapack::kKernelSet << "\n";
  bnn::product_blocking::pin();
  ::setenv("PATH", BNNBENCH_TEST_PATH, 1);
  return Catch::Session().run(argc, argv);
}
