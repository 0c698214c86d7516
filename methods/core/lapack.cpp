#include "lapack.hpp"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string_view>

extern "C" {
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dpotri_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dtrtri_(const char* uplo, const char* diag, const int* n, double* a, const int* lda, int* info);
void dlauum_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb);
void dtrmm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc);
void dsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const double* a,
            const int* lda, const double* beta, double* c, const int* ldc);
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

void inverse_from_cholesky(Eigen::MatrixXd& A, bool mirror) {
  hold_openblas_to_one_thread();
  const int n = checked_size(A);
  if (n == 0) return;
  int info = 0;
  dpotri_("L", &n, A.data(), &n, &info);
  if (info != 0) throw std::runtime_error("lapack: dpotri failed (singular factor)");
  if (mirror) A.triangularView<Eigen::StrictlyUpper>() = A.transpose();
}

Block block(Eigen::MatrixXd& A, Eigen::Index row, Eigen::Index col, Eigen::Index rows, Eigen::Index cols) {
  checked_size(A);
  return {A.data() + row + col * A.rows(), static_cast<int>(rows), static_cast<int>(cols), static_cast<int>(A.rows())};
}

bool cholesky_lower(Block a) {
  hold_openblas_to_one_thread();
  int info = 0;
  dpotrf_("L", &a.rows, a.data, &a.stride, &info);
  return info == 0;
}

void invert_lower(Block a) {
  hold_openblas_to_one_thread();
  int info = 0;
  dtrtri_("L", "N", &a.rows, a.data, &a.stride, &info);
  if (info != 0) throw std::runtime_error("lapack: dtrtri failed (singular factor)");
}

void lower_gram(Block a) {
  hold_openblas_to_one_thread();
  int info = 0;
  dlauum_("L", &a.rows, a.data, &a.stride, &info);
}

void solve_right_lower_transposed(Block l, Block b) {
  hold_openblas_to_one_thread();
  const double one = 1.0;
  dtrsm_("R", "L", "T", "N", &b.rows, &b.cols, &one, l.data, &l.stride, b.data, &b.stride);
}

void solve_left_lower(Block l, Block b, double alpha) {
  hold_openblas_to_one_thread();
  dtrsm_("L", "L", "N", "N", &b.rows, &b.cols, &alpha, l.data, &l.stride, b.data, &b.stride);
}

void multiply_right_lower(Block l, Block b) {
  hold_openblas_to_one_thread();
  const double one = 1.0;
  dtrmm_("R", "L", "N", "N", &b.rows, &b.cols, &one, l.data, &l.stride, b.data, &b.stride);
}

void multiply_left_lower_transposed(Block l, Block b) {
  hold_openblas_to_one_thread();
  const double one = 1.0;
  dtrmm_("L", "L", "T", "N", &b.rows, &b.cols, &one, l.data, &l.stride, b.data, &b.stride);
}

void gemm(bool transpose_a, bool transpose_b, double alpha, Block a, Block b, double beta, Block c) {
  hold_openblas_to_one_thread();
  const int k = transpose_a ? a.rows : a.cols;
  dgemm_(transpose_a ? "T" : "N", transpose_b ? "T" : "N", &c.rows, &c.cols, &k, &alpha, a.data, &a.stride, b.data,
         &b.stride, &beta, c.data, &c.stride);
}

void syrk_lower(bool transpose, double alpha, Block a, double beta, Block c) {
  hold_openblas_to_one_thread();
  const int k = transpose ? a.rows : a.cols;
  dsyrk_("L", transpose ? "T" : "N", &c.rows, &k, &alpha, a.data, &a.stride, &beta, c.data, &c.stride);
}

}  // namespace bnn::lapack
