#include "covariance.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <stdexcept>

namespace bnn::ensemble {

Eigen::Index Parameterization::size() const {
  const Eigen::Index k = weights;
  switch (form) {
    case CovarianceForm::full:
      return k + k + k * (k - 1) / 2;
    case CovarianceForm::factor:
      return k + k + k * factors;
    case CovarianceForm::diagonal:
      return k + k;
  }
  return 0;
}

namespace {

// Upper-triangular R of the full form: exp of the log-diagonal, then the strict upper part row by row.
Eigen::MatrixXd cholesky_factor(const Eigen::VectorXd& theta, Eigen::Index k) {
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(k, k);
  Eigen::Index next = 2 * k;
  for (Eigen::Index a = 0; a < k; ++a) {
    R(a, a) = std::exp(theta[k + a]);
    for (Eigen::Index b = a + 1; b < k; ++b) R(a, b) = theta[next++];
  }
  return R;
}

}  // namespace

GaussianQ Parameterization::unpack(const Eigen::VectorXd& theta, double& log_det) const {
  const Eigen::Index k = weights;
  GaussianQ q;
  q.mean = theta.head(k);
  const auto log_sd = theta.segment(k, k);
  switch (form) {
    case CovarianceForm::full: {
      const Eigen::MatrixXd R = cholesky_factor(theta, k);
      q.covariance.noalias() = R.transpose() * R;
      log_det = 2.0 * log_sd.sum();
      break;
    }
    case CovarianceForm::factor: {
      const Eigen::Map<const Eigen::MatrixXd> S(theta.data() + 2 * k, k, factors);
      q.covariance.noalias() = S * S.transpose();
      q.covariance.diagonal() += (2.0 * log_sd.array()).exp().matrix();
      // log|C| = log|D^2| + log|I + S' D^-2 S| (matrix determinant lemma).
      const Eigen::MatrixXd scaled = (-log_sd.array()).exp().matrix().asDiagonal() * S;
      Eigen::MatrixXd inner = Eigen::MatrixXd::Identity(factors, factors);
      inner.noalias() += scaled.transpose() * scaled;
      const Eigen::LLT<Eigen::MatrixXd> llt(inner);
      log_det = 2.0 * log_sd.sum() + 2.0 * llt.matrixLLT().diagonal().array().log().sum();
      break;
    }
    case CovarianceForm::diagonal:
      q.variances = (2.0 * log_sd.array()).exp().matrix();
      log_det = 2.0 * log_sd.sum();
      break;
  }
  return q;
}

Eigen::VectorXd Parameterization::chain(const Eigen::VectorXd& theta, const GaussianQ& q, const Eigen::VectorXd& d_mean,
                                        const Eigen::MatrixXd& d_cov, const Eigen::VectorXd& d_variances,
                                        double log_det_weight) const {
  const Eigen::Index k = weights;
  Eigen::VectorXd gradient(size());
  gradient.head(k) = d_mean;
  const auto log_sd = theta.segment(k, k);
  switch (form) {
    case CovarianceForm::full: {
      // C = R'R: dJ/dR = 2 R G (upper part); R_aa = exp(theta): times R_aa; log|C| = 2 sum log R_aa.
      const Eigen::MatrixXd R = cholesky_factor(theta, k);
      const Eigen::MatrixXd RG = 2.0 * R * d_cov;
      Eigen::Index next = 2 * k;
      for (Eigen::Index a = 0; a < k; ++a) {
        gradient[k + a] = RG(a, a) * R(a, a) + 2.0 * log_det_weight;
        for (Eigen::Index b = a + 1; b < k; ++b) gradient[next++] = RG(a, b);
      }
      break;
    }
    case CovarianceForm::factor: {
      // C = D^2 + S S': dJ/dS = 2 G S, dJ/dlog d_a = 2 d_a^2 G_aa, with G including w C^-1 for w log|C|.
      Eigen::MatrixXd G = d_cov;
      if (log_det_weight != 0.0) {
        const Eigen::LLT<Eigen::MatrixXd> llt(q.covariance);
        G += log_det_weight * llt.solve(Eigen::MatrixXd::Identity(k, k));
      }
      const Eigen::Map<const Eigen::MatrixXd> S(theta.data() + 2 * k, k, factors);
      gradient.segment(k, k) = 2.0 * (2.0 * log_sd.array()).exp() * G.diagonal().array();
      Eigen::Map<Eigen::MatrixXd>(gradient.data() + 2 * k, k, factors).noalias() = 2.0 * G * S;
      break;
    }
    case CovarianceForm::diagonal:
      gradient.segment(k, k) =
          (2.0 * (2.0 * log_sd.array()).exp() * d_variances.array() + 2.0 * log_det_weight).matrix();
      break;
  }
  return gradient;
}

Eigen::VectorXd Parameterization::initial(const Eigen::VectorXd& mean, double variance, Rng& rng) const {
  const Eigen::Index k = weights;
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(size());
  theta.head(k) = mean;
  double diagonal_variance = variance;
  if (form == CovarianceForm::factor) {
    // Loadings of size 0.1 sqrt(variance / s), the rest of the variance on the diagonal.
    const double loading = 0.1 * std::sqrt(variance / factors);
    for (Eigen::Index i = 2 * k; i < size(); ++i) theta[i] = loading * standard_normal(rng);
    diagonal_variance = 0.99 * variance;
  }
  theta.segment(k, k).setConstant(0.5 * std::log(diagonal_variance));
  return theta;
}

}  // namespace bnn::ensemble
