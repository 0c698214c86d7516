#pragma once
// Dense symmetric factorizations through LAPACK (OpenBLAS's pthread build held to one thread),
// for the O(n^3) kernels of GP-type methods. Single-threaded: parallelism lives in the harness,
// and a fixed thread count keeps results bit-identical. Safe to call from several threads at
// once (Debian's serial OpenBLAS is not: built without locking, concurrent calls at n ~ 128
// return wrong factors).
#include <Eigen/Core>
#include <string>

namespace bnn::lapack {

// OpenBLAS picks its kernels for the CPU it finds (Debian builds it with DYNAMIC_ARCH), and the
// kernel sets round differently: GP-ARD's fitted optimum on a housing fold moves by ~1e-3
// relative between the Haswell and the Cooper Lake (AVX-512) kernels. The harness is built for
// x86-64-v3, so every machine it runs on can use the Haswell kernels, and with them the bits are
// the same on every machine.
inline constexpr const char* kKernelSet = "Haswell";

// OpenBLAS reads OPENBLAS_CORETYPE when it is loaded, before main. Called first in main: if the
// variable does not name kKernelSet, sets it and re-executes the program with the same
// arguments. Returns only when it already did (true) or the re-execution failed (false).
bool pin_kernels(char** argv);

// The kernel set OpenBLAS runs with, e.g. "Haswell".
std::string kernel_set();

// In-place Cholesky A = L L' (dpotrf); the lower triangle of A becomes L, the strict upper
// triangle is left as it was. Returns false if A is not positive definite.
bool cholesky_lower(Eigen::MatrixXd& A);

// Given L in the lower triangle of A (from cholesky_lower), overwrites the lower triangle of A
// with that of (L L')^{-1} (dpotri); with mirror, the upper triangle too.
void inverse_from_cholesky(Eigen::MatrixXd& A, bool mirror = true);

// A column-major block of a larger matrix, for the single-threaded BLAS and LAPACK calls of a
// tiled algorithm (each call on one tile; the tiles' order is the caller's).
struct Block {
  double* data;
  int rows, cols, stride;
};
// A matrix's block at (row, col) of size rows x cols.
Block block(Eigen::MatrixXd& A, Eigen::Index row, Eigen::Index col, Eigen::Index rows, Eigen::Index cols);

bool cholesky_lower(Block a);                           // dpotrf: a = L L', L into the lower triangle
void invert_lower(Block a);                             // dtrtri: L -> L^{-1} in the lower triangle
void lower_gram(Block a);                               // dlauum: L -> lower triangle of L'L
void solve_right_lower_transposed(Block l, Block b);    // dtrsm: b <- b L^{-T}
void solve_left_lower(Block l, Block b, double alpha);  // dtrsm: b <- alpha L^{-1} b
void multiply_right_lower(Block l, Block b);            // dtrmm: b <- b L
void multiply_left_lower_transposed(Block l, Block b);  // dtrmm: b <- L' b
void gemm(bool transpose_a, bool transpose_b, double alpha, Block a, Block b, double beta,
          Block c);  // c <- alpha op(a) op(b) + beta c
void syrk_lower(bool transpose, double alpha, Block a, double beta,
                Block c);  // lower(c) <- alpha a a' (or a'a) + beta c

}  // namespace bnn::lapack
