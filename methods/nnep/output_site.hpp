#pragma once
// The output-weight likelihood site t_v,i(v) = exp(-(alpha_i' v)^2 / 2 + beta_i' v) of eq. (35):
// its cavity (40), its moment-matched parameters (55)-(56) and the damped rank-one update
// (57)-(59) of Appendix E.
#include <Eigen/Core>

namespace bnn::nnep {

// q_{-i}(v) = N(mean, covariance) from q(v) = N(mu_v, Sigma_v) without a fraction eta of the
// site (alpha, beta), eq. (40). `ok` is false when the cavity is improper (s <= 0).
struct OutputCavity {
  Eigen::VectorXd mean;
  Eigen::MatrixXd covariance;
  double s = 0.0;           // 1/eta - alpha' Sigma_v alpha
  Eigen::VectorXd shifted;  // a = mu_v - eta Sigma_v beta (Appendix I needs it)
  bool ok = true;
};
OutputCavity output_cavity(const Eigen::VectorXd& mu_v, const Eigen::MatrixXd& sigma_v, const Eigen::VectorXd& alpha,
                           const Eigen::VectorXd& beta, double eta);

// Undamped new site parameters by (55)-(56) from the expected activations m_g, the cavity and
// the scalars a_hat, b_hat of the tilted moments ((45) or (51)-(52)). `ok` is false when
// 1 - a_hat m_g' Sigma_-i m_g <= 0.
struct OutputSite {
  Eigen::VectorXd alpha, beta;
  bool ok = true;
};
OutputSite matched_output_site(const Eigen::VectorXd& expected_activation, const OutputCavity& cavity, double a_hat,
                               double b_hat, double residual, double eta);

// Damped update (57)-(59): the rank-two precision (1 - delta) a_old a_old' + delta a_new a_new'
// replaced by its leading rank-one part, and beta chosen so that the mean of q(v) equals the
// one the rank-two site would give.
OutputSite damped_output_site(const Eigen::VectorXd& alpha_old, const Eigen::VectorXd& beta_old,
                              const OutputSite& matched, const OutputCavity& cavity, double delta, double eta);

}  // namespace bnn::nnep
