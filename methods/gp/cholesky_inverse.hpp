#pragma once
// The inverse of a symmetric positive definite matrix from its Cholesky factor, lower triangle
// only: what the GP's marginal likelihood gradient needs, W = (alpha alpha' - C^{-1}) / 2.
#include <Eigen/Core>

namespace bnn::gp {

// Given L (C = L L') in the lower triangle of A, overwrites the lower triangle of A with that
// of C^{-1} = L^{-T} L^{-1}; the strict upper triangle becomes unspecified.
void inverse_from_cholesky_lower(Eigen::MatrixXd& A);

}  // namespace bnn::gp
