#include "output_site.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <cmath>

namespace bnn::nnep {

OutputCavity output_cavity(const Eigen::VectorXd& mu_v, const Eigen::MatrixXd& sigma_v, const Eigen::VectorXd& alpha,
                           const Eigen::VectorXd& beta, double eta) {
  OutputCavity cavity;
  const Eigen::VectorXd sigma_alpha = sigma_v * alpha;
  cavity.s = 1.0 / eta - alpha.dot(sigma_alpha);
  cavity.shifted = mu_v - eta * (sigma_v * beta);
  if (!(cavity.s > 0.0)) {
    cavity.ok = false;
    return cavity;
  }
  // eq. (40)
  cavity.covariance = sigma_v + sigma_alpha * sigma_alpha.transpose() / cavity.s;
  cavity.mean = cavity.shifted + sigma_alpha * (alpha.dot(cavity.shifted) / cavity.s);
  return cavity;
}

OutputSite matched_output_site(const Eigen::VectorXd& expected_activation, const OutputCavity& cavity, double a_hat,
                               double b_hat, double residual, double eta) {
  OutputSite site;
  const Eigen::VectorXd& m_g = expected_activation;
  const double c = 1.0 - a_hat * m_g.dot(cavity.covariance * m_g);
  if (!(c > 0.0)) {
    site.ok = false;
    return site;
  }
  // eq. (55)
  const double root = (a_hat < 0.0 ? -1.0 : 1.0) * std::sqrt(std::abs(a_hat) / (c * eta));
  site.alpha = m_g * root;
  // eq. (56)
  site.beta = m_g * ((a_hat * m_g.dot(cavity.mean) + b_hat * residual) / (c * eta));
  return site;
}

OutputSite damped_output_site(const Eigen::VectorXd& alpha_old, const Eigen::VectorXd& beta_old,
                              const OutputSite& matched, const OutputCavity& cavity, double delta, double eta) {
  OutputSite site;
  if (delta >= 1.0) return matched;
  const Eigen::Index size = alpha_old.size();
  Eigen::MatrixXd A(size, 2);
  A.col(0) = std::sqrt(1.0 - delta) * alpha_old;
  A.col(1) = std::sqrt(delta) * matched.alpha;
  const Eigen::Matrix2d gram = A.transpose() * A;
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> eigen(gram);
  const Eigen::Vector2d leading = eigen.eigenvectors().col(1);  // eigenvalues ascend
  site.alpha = A * leading;                                     // eq. (57)
  const Eigen::VectorXd b = (1.0 - delta) * beta_old + delta * matched.beta;
  // eq. (59)
  const Eigen::Matrix2d projector = leading * leading.transpose() - Eigen::Matrix2d::Identity();
  const Eigen::Matrix2d inner = A.transpose() * cavity.covariance * A + Eigen::Matrix2d::Identity() / eta;
  const Eigen::Vector2d right = A.transpose() * (cavity.mean + eta * (cavity.covariance * b));
  site.beta = b + A * (projector * inner.inverse() * right) / eta;
  return site;
}

}  // namespace bnn::nnep
