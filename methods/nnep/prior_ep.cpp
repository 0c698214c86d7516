#include "prior_ep.hpp"

#include <algorithm>
#include <cmath>

#include "prior_sites.hpp"

namespace bnn::nnep {
namespace {

// Appendix F step 3 with the tau_min constraint of Appendix G: the damped change of a prior
// site (tau, nu) from the marginal q and the tilted moments; false if nothing is to be done.
bool prior_site_step(double marginal_mean, double marginal_variance, const PriorTilted& tilted, double site_tau,
                     double delta, double eta, double tau_min, double& delta_tau, double& delta_nu) {
  double tilted_precision = 1.0 / tilted.variance;
  delta_tau = delta / eta * (tilted_precision - 1.0 / marginal_variance);
  if (site_tau + delta_tau < tau_min) {
    tilted_precision = 1.0 / marginal_variance + eta / delta * (tau_min - site_tau);
    delta_tau = tau_min - site_tau;
  }
  delta_nu = delta / eta * (tilted.mean * tilted_precision - marginal_mean / marginal_variance);
  return std::isfinite(delta_tau) && std::isfinite(delta_nu) && 1.0 + delta_tau * marginal_variance > 1e-6;
}

}  // namespace

double output_prior_ep(const Options& o, int sweeps, Sites& sites, Approximation& q) {
  const int K = o.hidden_units;
  const double eta = o.prior_eta;
  double largest_change = 0.0;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    largest_change = 0.0;
    for (int k = 0; k < K; ++k) {
      const double mean = q.v_mean[k], variance = q.v_cov(k, k);
      double cavity_mean, cavity_variance;
      if (!scalar_cavity(mean, variance, sites.v_tau[k], sites.v_nu[k], eta, cavity_mean, cavity_variance)) continue;
      const PriorTilted tilted =
          truncated_t_tilted(cavity_mean, cavity_variance, o.output_weight_dof, o.output_weight_scale, eta);
      double delta_tau, delta_nu;
      if (!tilted.ok || !prior_site_step(mean, variance, tilted, sites.v_tau[k], o.damping_prior, eta, o.tau_min,
                                         delta_tau, delta_nu))
        continue;
      sites.v_tau[k] += delta_tau;
      sites.v_nu[k] += delta_nu;
      const Eigen::VectorXd column = q.v_cov.col(k);
      rank_one_update(q.v_cov, q.v_mean, column, variance, mean, delta_tau, delta_nu);
      largest_change = std::max(largest_change, std::abs(q.v_mean[k] - mean) / std::sqrt(variance));
    }
    if (largest_change < 1e-4) break;
  }
  return largest_change;
}

double input_prior_ep(const std::vector<int>& group, const Options& o, int sweeps, Sites& sites, Approximation& q) {
  const int K = o.hidden_units;
  const Eigen::Index d = sites.w_tau.cols();
  const double eta = o.prior_eta;
  const InputPrior family = o.prior;
  double largest_change = 0.0;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    largest_change = 0.0;
    for (int k = 0; k < K; ++k)
      for (Eigen::Index j = 0; j < d; ++j) {
        const int l = group[static_cast<std::size_t>(k) * d + j];
        const InputPriorCavity c = input_prior_cavity(sites, q, k, j, l, eta);
        if (!c.ok) continue;
        const double mean = c.mean, variance = c.variance;
        const PriorTilted tilted = hierarchical_tilted(family, c.w_cavity_mean, c.w_cavity_variance, c.phi_cavity_mean,
                                                       c.phi_cavity_variance, eta);
        double delta_tau, delta_nu;
        if (!tilted.ok || !prior_site_step(mean, variance, tilted, sites.w_tau(k, j), o.damping_prior, eta, o.tau_min,
                                           delta_tau, delta_nu))
          continue;
        // Appendix F step 3 for the scale site; q(phi_l) must stay proper
        const double phi_delta_tau = o.damping_prior / eta * (1.0 / tilted.phi_variance - q.phi_tau[l]);
        const double phi_delta_nu = o.damping_prior / eta * (tilted.phi_mean / tilted.phi_variance - q.phi_nu[l]);
        if (q.phi_tau[l] + phi_delta_tau > 0.0 && std::isfinite(phi_delta_nu)) {
          sites.phi_tau(k, j) += phi_delta_tau;
          sites.phi_nu(k, j) += phi_delta_nu;
          q.phi_tau[l] += phi_delta_tau;
          q.phi_nu[l] += phi_delta_nu;
        }
        sites.w_tau(k, j) += delta_tau;
        sites.w_nu(k, j) += delta_nu;
        const Eigen::VectorXd column = q.w_cov[k].col(j);
        rank_one_update(q.w_cov[k], q.w_mean[k], column, variance, mean, delta_tau, delta_nu);  // eq. (66)
        largest_change = std::max(largest_change, std::abs(q.w_mean[k][j] - mean) / std::sqrt(variance));
      }
    if (largest_change < 1e-4) break;
  }
  return largest_change;
}

}  // namespace bnn::nnep
