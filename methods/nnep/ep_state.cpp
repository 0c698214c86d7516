#include "ep_state.hpp"

#include <Eigen/Cholesky>

namespace bnn::nnep {

std::vector<int> make_scale_groups(ScaleGroups scheme, int units, int inputs) {
  std::vector<int> group(static_cast<std::size_t>(units) * inputs);
  for (int k = 0; k < units; ++k)
    for (int j = 0; j < inputs; ++j) {
      const std::size_t index = static_cast<std::size_t>(k) * inputs + j;
      group[index] = scheme == ScaleGroups::common  ? 0
                     : scheme == ScaleGroups::input ? j
                     : scheme == ScaleGroups::unit  ? k
                                                    : static_cast<int>(index);
    }
  return group;
}

std::vector<HiddenUnit> make_activations(int units, int linear_units) {
  std::vector<HiddenUnit> activations(units);
  for (int k = 0; k < units; ++k) activations[k] = HiddenUnit{units, k < linear_units};
  return activations;
}

bool recompute_input_weights(const Eigen::MatrixXd& X, const Sites& sites, int k, Approximation& q) {
  const Eigen::Index d = X.cols();
  Eigen::MatrixXd precision = X.transpose() * sites.tau.col(k).asDiagonal() * X;
  precision.diagonal() += sites.w_tau.row(k).transpose();
  const Eigen::VectorXd linear = X.transpose() * sites.nu.col(k) + sites.w_nu.row(k).transpose();
  Eigen::LLT<Eigen::MatrixXd> llt(precision);
  if (llt.info() != Eigen::Success) return false;
  q.w_cov[k] = llt.solve(Eigen::MatrixXd::Identity(d, d));
  q.w_mean[k] = llt.solve(linear);
  return true;
}

bool recompute_output_weights(const Sites& sites, double output_bias_variance, Approximation& q) {
  const Eigen::Index size = sites.alpha.cols();
  Eigen::MatrixXd precision = sites.alpha.transpose() * sites.alpha;
  Eigen::VectorXd linear = sites.beta.colwise().sum().transpose();
  precision.diagonal().head(size - 1) += sites.v_tau;
  precision(size - 1, size - 1) += 1.0 / output_bias_variance;
  linear.head(size - 1) += sites.v_nu;
  Eigen::LLT<Eigen::MatrixXd> llt(precision);
  if (llt.info() != Eigen::Success) return false;
  q.v_cov = llt.solve(Eigen::MatrixXd::Identity(size, size));
  q.v_mean = llt.solve(linear);
  return true;
}

double rank_one_update_mean(Eigen::VectorXd& mean, const Eigen::Ref<const Eigen::VectorXd>& cov_x, double variance,
                            double current_mean, double delta_tau, double delta_nu) {
  const double s = 1.0 + delta_tau * variance;
  mean += cov_x * ((delta_nu - delta_tau * current_mean) / s);
  return delta_tau / s;
}

void rank_one_update(Eigen::MatrixXd& cov, Eigen::VectorXd& mean, const Eigen::VectorXd& cov_x, double variance,
                     double current_mean, double delta_tau, double delta_nu) {
  const double scale = rank_one_update_mean(mean, cov_x, variance, current_mean, delta_tau, delta_nu);
  cov.noalias() -= scale * cov_x * cov_x.transpose();
}

bool scalar_cavity(double mean, double variance, double site_tau, double site_nu, double eta, double& cavity_mean,
                   double& cavity_variance) {
  const double precision = 1.0 / variance - eta * site_tau;
  if (!(precision > 0.0)) return false;
  cavity_variance = 1.0 / precision;
  cavity_mean = cavity_variance * (mean / variance - eta * site_nu);
  return true;
}

InputPriorCavity input_prior_cavity(const Sites& sites, const Approximation& q, int k, Eigen::Index j, int l,
                                    double eta) {
  InputPriorCavity c;
  c.mean = q.w_mean[k][j];
  c.variance = q.w_cov[k](j, j);
  c.phi_variance = 1.0 / q.phi_tau[l];
  c.phi_mean = q.phi_nu[l] / q.phi_tau[l];
  c.ok = scalar_cavity(c.mean, c.variance, sites.w_tau(k, j), sites.w_nu(k, j), eta, c.w_cavity_mean,
                       c.w_cavity_variance) &&
         scalar_cavity(c.phi_mean, c.phi_variance, sites.phi_tau(k, j), sites.phi_nu(k, j), eta, c.phi_cavity_mean,
                       c.phi_cavity_variance);
  return c;
}

}  // namespace bnn::nnep
