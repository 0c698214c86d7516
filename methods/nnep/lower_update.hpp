#pragma once
// The sequential likelihood sweep's work on q(w_k) (Algorithm 1, lines 3-5): after site i the
// covariance takes a rank-one update, and site i + 1 needs its product with x_{i+1}. Both are
// done in one pass over the lower triangle (the upper one is left stale until mirror_lower):
// half the memory traffic of a full update followed by a full matrix-vector product.
#include <Eigen/Core>

namespace bnn::nnep {

// cov -= scale * a a' on the lower triangle, then product = cov x read from the lower triangle.
// scale = 0 leaves cov as it is and only multiplies.
void lower_update_times(Eigen::MatrixXd& cov, const double* a, double scale, const double* x, double* product);

// Copies the lower triangle of cov onto its upper one.
void mirror_lower(Eigen::MatrixXd& cov);

}  // namespace bnn::nnep
