#pragma once
// The neural-network covariance of Williams (1998) for erf hidden units:
//   k(x, x') = sf2 (2/pi) asin( 2 u'S u' / sqrt((1 + 2 u'S u)(1 + 2 u''S u')) ),  u = (1, x),
// S = diag(bias_variance, input variances). The inputs share one variance (GP) or have one
// each (GP-ARD). It is the covariance of a one-hidden-layer erf network in the limit of
// infinitely many hidden units with N(0, S) input weights (the EP-NN paper's GP baseline).
#include <Eigen/Core>

namespace bnn::gp {

struct NnKernelParams {
  double signal_variance = 1.0;     // sf2: variance of the output weights (scaled)
  double bias_variance = 1.0;       // S_00
  Eigen::VectorXd input_variances;  // S_kk, k = 1..d (all equal for the shared-scale GP)
};

// Pieces of the kernel reused by the gradient: Z (the argument of asin) and r = 1/sqrt(b).
// Both n x n matrices are symmetric and only their lower triangles are computed: the strict
// upper triangles are unspecified (use selfadjointView<Eigen::Lower>() for the full matrix).
struct NnKernelTerms {
  Eigen::MatrixXd z;       // n x n, lower triangle
  Eigen::VectorXd r;       // 1 / sqrt(1 + 2 u_i'S u_i)
  Eigen::MatrixXd kernel;  // sf2 (2/pi) asin(z), lower triangle
};

NnKernelTerms nn_kernel_terms(const Eigen::MatrixXd& X, const NnKernelParams& p);
// The same into `terms`, reusing its matrices when they have the size already (an optimizer
// evaluating many parameter values allocates its n x n matrices once).
void nn_kernel_terms(const Eigen::MatrixXd& X, const NnKernelParams& p, NnKernelTerms& terms);
Eigen::MatrixXd nn_kernel_cross(const Eigen::MatrixXd& X_test, const Eigen::MatrixXd& X_train, const NnKernelParams& p);
Eigen::VectorXd nn_kernel_diagonal(const Eigen::MatrixXd& X, const NnKernelParams& p);

// Gradients of sum_ij W_ij k(x_i, x_j) with respect to log(bias_variance) and
// log(input_variances[k]) for a symmetric weight matrix W given by its lower triangle (the
// contraction the marginal likelihood gradient needs), in O(n^2 d). The lower triangle of W is
// overwritten. (The signal variance's gradient is sum_ij W_ij k_ij, which callers usually know
// in closed form.)
struct NnKernelGradient {
  double log_bias_variance = 0.0;
  Eigen::VectorXd log_input_variances;
};
NnKernelGradient nn_kernel_contract(const Eigen::MatrixXd& X, const NnKernelParams& p, const NnKernelTerms& terms,
                                    Eigen::MatrixXd& W);

}  // namespace bnn::gp
