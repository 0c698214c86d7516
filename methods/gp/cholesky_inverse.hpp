#pragma once
// The inverse of a symmetric positive definite matrix from its Cholesky factor, lower triangle
// only: what the GP's marginal likelihood gradient needs, W = (alpha alpha' - C^{-1}) / 2; and,
// for large matrices, the factor and the inverse by tiles that several threads share.
// (One file for both: a new source file would regroup the unity build's batches, and with them
// the compiler's inlining and multiply-add fusion elsewhere: NN-EP's results moved in the 12th
// digit when this code was a file of its own.)
#include <Eigen/Core>

namespace bnn::gp {

// Given L (C = L L') in the lower triangle of A, overwrites the lower triangle of A with that
// of C^{-1} = L^{-T} L^{-1}; the strict upper triangle becomes unspecified.
void inverse_from_cholesky_lower(Eigen::MatrixXd& A);

// Cholesky factor and inverse of a large symmetric positive definite matrix by square tiles.
// Each step's tiles are independent and run as parallel pieces (run_pieces) on the threads the
// harness has idle. Every tile goes through the same single-threaded BLAS and LAPACK calls in
// the same order on any number of threads, so the result is the same to the bit on 1 thread or
// 64 (it is not the bits of dpotrf/dpotri on the whole matrix: their blocking differs).

// Tiles of about this many rows (equal sizes, a multiple of 8). On two cores of this Xeon, at
// n = 5000: 384 -> 1.8x over one thread, 512 -> 1.7x, 256 -> 1.2x (bench_gp).
inline constexpr Eigen::Index kTile = 384;

// A = L L' with L into the lower triangle of A (the strict upper triangle is left as it was).
// Returns false if A is not positive definite. `tile` is the target tile size.
bool tiled_cholesky_lower(Eigen::MatrixXd& A, Eigen::Index tile = kTile);

// Given L in the lower triangle of A, overwrites the lower triangle of A with that of
// (L L')^{-1} = L^{-T} L^{-1}; the strict upper triangle becomes unspecified. `scratch` receives
// L^{-1} (allocated if its size differs).
void tiled_inverse_from_cholesky_lower(Eigen::MatrixXd& A, Eigen::MatrixXd& scratch, Eigen::Index tile = kTile);

}  // namespace bnn::gp
