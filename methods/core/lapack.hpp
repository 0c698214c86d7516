#pragma once
// Dense symmetric factorizations through LAPACK (OpenBLAS's pthread build held to one thread),
// for the O(n^3) kernels of GP-type methods. Single-threaded: parallelism lives in the harness,
// and a fixed thread count keeps results bit-identical. Safe to call from several threads at
// once (Debian's serial OpenBLAS is not: built without locking, concurrent calls at n ~ 128
// return wrong factors).
#include <Eigen/Core>

namespace bnn::lapack {

// In-place Cholesky A = L L' (dpotrf); the lower triangle of A becomes L, the strict upper
// triangle is left as it was. Returns false if A is not positive definite.
bool cholesky_lower(Eigen::MatrixXd& A);

// Given L in the lower triangle of A (from cholesky_lower), overwrites A with the full
// symmetric inverse (L L')^{-1} (dpotri, then the upper triangle mirrored).
void inverse_from_cholesky(Eigen::MatrixXd& A);

}  // namespace bnn::lapack
