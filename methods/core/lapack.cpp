#include "lapack.hpp"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string_view>

extern "C" {
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dpotri_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void openblas_set_num_threads(int threads);
char* openblas_get_corename();
}

namespace bnn::lapack {
namespace {
// One OpenBLAS thread per call, set on first use: the harness runs its jobs on the cores.
void hold_openblas_to_one_thread() {
  static const bool held = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)held;
}

int checked_size(const Eigen::MatrixXd& A) {
  if (A.rows() != A.cols()) throw std::invalid_argument("lapack: matrix is not square");
  if (A.rows() > 2147483647) throw std::invalid_argument("lapack: matrix too large");
  return static_cast<int>(A.rows());
}
}  // namespace

bool pin_kernels(char** argv) {
  const char* current = std::getenv("OPENBLAS_CORETYPE");
  if (current != nullptr && std::string_view(current) == kKernelSet) return true;
  if (setenv("OPENBLAS_CORETYPE", kKernelSet, 1) != 0) return false;
  execv("/proc/self/exe", argv);
  return false;
}

std::string kernel_set() { return openblas_get_corename(); }

bool cholesky_lower(Eigen::MatrixXd& A) {
  hold_openblas_to_one_thread();
  const int n = checked_size(A);
  if (n == 0) return true;
  int info = 0;
  dpotrf_("L", &n, A.data(), &n, &info);
  return info == 0;
}

void inverse_from_cholesky(Eigen::MatrixXd& A) {
  hold_openblas_to_one_thread();
  const int n = checked_size(A);
  if (n == 0) return;
  int info = 0;
  dpotri_("L", &n, A.data(), &n, &info);
  if (info != 0) throw std::runtime_error("lapack: dpotri failed (singular factor)");
  A.triangularView<Eigen::StrictlyUpper>() = A.transpose();
}

}  // namespace bnn::lapack
