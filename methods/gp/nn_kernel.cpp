#include "nn_kernel.hpp"

#include <cmath>
#include <numbers>

#include "vectorized_asin.hpp"

namespace bnn::gp {
namespace {
constexpr double kTwoOverPi = 2.0 / std::numbers::pi;

// 1 / sqrt(1 + 2 u'S u) per row.
Eigen::VectorXd inverse_root_b(const Eigen::MatrixXd& X, const NnKernelParams& p) {
  const Eigen::VectorXd quad = X.array().square().matrix() * p.input_variances;
  return (1.0 + 2.0 * (p.bias_variance + quad.array())).rsqrt();
}

// 2 u_i'S u_j for all pairs.
Eigen::MatrixXd cross_quadratic(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const NnKernelParams& p) {
  const Eigen::MatrixXd As = A * p.input_variances.asDiagonal();
  Eigen::MatrixXd out = 2.0 * (As * B.transpose());
  out.array() += 2.0 * p.bias_variance;
  return out;
}
}  // namespace

NnKernelTerms nn_kernel_terms(const Eigen::MatrixXd& X, const NnKernelParams& p) {
  NnKernelTerms t;
  nn_kernel_terms(X, p, t);
  return t;
}

void nn_kernel_terms(const Eigen::MatrixXd& X, const NnKernelParams& p, NnKernelTerms& t) {
  t.r = inverse_root_b(X, p);
  // 2 u_i'S u_j as one symmetric rank-d update of the lower triangle.
  const Eigen::Index n = X.rows();
  const Eigen::MatrixXd Xs = X * p.input_variances.cwiseSqrt().asDiagonal();
  t.z.setConstant(n, n, 2.0 * p.bias_variance);
  t.z.selfadjointView<Eigen::Lower>().rankUpdate(Xs, 2.0);
  t.kernel.resize(n, n);
  const double scale = p.signal_variance * kTwoOverPi;
  for (Eigen::Index j = 0; j < n; ++j) {
    auto z = t.z.col(j).tail(n - j).array();
    z = (z * t.r.tail(n - j).array() * t.r[j]).cwiseMax(-1.0).cwiseMin(1.0);
    t.kernel.col(j).tail(n - j) = scale * z.unaryExpr(VectorizedAsin{}).matrix();
  }
}

Eigen::MatrixXd nn_kernel_cross(const Eigen::MatrixXd& X_test, const Eigen::MatrixXd& X_train,
                                const NnKernelParams& p) {
  const Eigen::VectorXd r_test = inverse_root_b(X_test, p);
  const Eigen::VectorXd r_train = inverse_root_b(X_train, p);
  Eigen::MatrixXd z = cross_quadratic(X_test, X_train, p);
  z.array().colwise() *= r_test.array();
  z.array().rowwise() *= r_train.transpose().array();
  return (p.signal_variance * kTwoOverPi) * z.cwiseMax(-1.0).cwiseMin(1.0).unaryExpr(VectorizedAsin{});
}

Eigen::VectorXd nn_kernel_diagonal(const Eigen::MatrixXd& X, const NnKernelParams& p) {
  const Eigen::VectorXd r = inverse_root_b(X, p);
  // z_ii = (b_i - 1) / b_i = 1 - r_i^2.
  return (p.signal_variance * kTwoOverPi) * (1.0 - r.array().square()).unaryExpr(VectorizedAsin{}).matrix();
}

NnKernelGradient nn_kernel_contract(const Eigen::MatrixXd& X, const NnKernelParams& p, const NnKernelTerms& t,
                                    Eigen::MatrixXd& W) {
  NnKernelGradient g;
  // dk/dz = sf2 (2/pi) / sqrt(1 - z^2); dz_ij/dS_kk = 2 x_ik x_jk r_i r_j - z_ij (x_ik^2 r_i^2 + x_jk^2 r_j^2).
  // One pass over the lower triangle: G = W o dk/dz, v = (G o Z) 1 (G o Z is symmetric: a
  // strict-lower entry adds to the sums of its row and of its column), and W becomes H = G o r r'.
  const Eigen::Index n = W.rows();
  const double scale = p.signal_variance * kTwoOverPi;
  Eigen::VectorXd v = Eigen::VectorXd::Zero(n);
  double h_sum = 0.0;  // 1'H1
  for (Eigen::Index j = 0; j < n; ++j) {
    const Eigen::Index m = n - j;
    auto w = W.col(j).tail(m).array();
    const auto z = t.z.col(j).tail(m).array();
    w *= scale * (1.0 - z.square()).max(1e-300).rsqrt();
    v[j] += (w * z).sum();
    v.tail(m - 1).array() += (w * z).tail(m - 1);
    w *= t.r.tail(m).array() * t.r[j];
    h_sum += 2.0 * w.sum() - w[0];
  }
  const Eigen::VectorXd r2v = t.r.array().square() * v.array();
  // Bias (u_0 = 1): 2 1'H1 - 2 sum_i r_i^2 v_i.
  g.log_bias_variance = p.bias_variance * (2.0 * h_sum - 2.0 * r2v.sum());
  const Eigen::MatrixXd M = W.selfadjointView<Eigen::Lower>() * X;  // H X, n x d
  const Eigen::VectorXd first = 2.0 * (X.array() * M.array()).colwise().sum().transpose();
  const Eigen::VectorXd second = 2.0 * (X.array().square().matrix().transpose() * r2v);
  g.log_input_variances = p.input_variances.array() * (first - second).array();
  return g;
}

}  // namespace bnn::gp
