#pragma once
// The state of NN-EP's Algorithm 1 (internal to methods/nnep): every site in natural form and
// the approximation q they define (eqs. (16)-(20), (36)-(37)), with the updates shared by the
// likelihood and prior sweeps.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "hidden_unit.hpp"
#include "nnep.hpp"

namespace bnn::nnep {

// Site parameters in natural form (Appendix I, footnote 5).
struct Sites {
  Eigen::MatrixXd tau, nu;              // likelihood sites of h_ik (n x K), eq. (35)
  Eigen::MatrixXd alpha, beta;          // likelihood sites of v (n x (K + 1)), eq. (35)
  Eigen::VectorXd theta_tau, theta_nu;  // likelihood sites of theta (n), eq. (12)
  Eigen::MatrixXd w_tau, w_nu;          // prior sites of w_j (K x d), eq. (14)
  Eigen::MatrixXd phi_tau, phi_nu;      // prior sites of phi_{l_j} (K x d), eq. (14)
  Eigen::VectorXd v_tau, v_nu;          // prior sites of v_k (K), eq. (13)
};

// The approximation q: moment form for the weights, natural form for theta and phi.
struct Approximation {
  std::vector<Eigen::MatrixXd> w_cov;
  std::vector<Eigen::VectorXd> w_mean;
  Eigen::MatrixXd v_cov;
  Eigen::VectorXd v_mean;
  double theta_tau = 0.0, theta_nu = 0.0;
  Eigen::VectorXd phi_tau, phi_nu;
};

// Weight (k, j) of hidden unit k and input j (bias last) sits at k * d + j; the scale group l of
// each weight under `scheme` (common, input, unit or weight).
std::vector<int> make_scale_groups(ScaleGroups scheme, int units, int inputs);
// Unit k < linear_units is linear, the others erf units scaled by 1/sqrt(units).
std::vector<HiddenUnit> make_activations(int units, int linear_units);

// Eq. (36): q(w_k) from its likelihood and prior sites. False if the precision is not positive definite.
bool recompute_input_weights(const Eigen::MatrixXd& X, const Sites& sites, int k, Approximation& q);
// Eq. (37): q(v) from the output-weight likelihood sites, the prior sites and p(v_0).
bool recompute_output_weights(const Sites& sites, double output_bias_variance, Approximation& q);
// Sherman-Morrison update of N(mean, cov) after adding delta_tau (x'w)^2/2 - delta_nu x'w to
// the negative log density; `cov_x` = cov x and `variance` = x' cov x before the update.
void rank_one_update(Eigen::MatrixXd& cov, Eigen::VectorXd& mean, const Eigen::VectorXd& cov_x, double variance,
                     double current_mean, double delta_tau, double delta_nu);
// Its mean part alone: updates `mean` and returns the c of cov -= c cov_x cov_x' (the likelihood
// sweep applies that to the lower triangle later, lower_update.hpp).
double rank_one_update_mean(Eigen::VectorXd& mean, const Eigen::Ref<const Eigen::VectorXd>& cov_x, double variance,
                            double current_mean, double delta_tau, double delta_nu);
// Cavity of a one-dimensional site with fraction eta: false if improper.
bool scalar_cavity(double mean, double variance, double site_tau, double site_nu, double eta, double& cavity_mean,
                   double& cavity_variance);

// The hierarchical prior site of input weight (k, j) in scale group l: the marginals q(w_kj) and
// q(phi_l), and the cavities of both with fraction eta (Appendix F step 1); ok is false if
// either cavity is improper.
struct InputPriorCavity {
  double mean = 0.0, variance = 0.0;          // q(w_kj)
  double phi_mean = 0.0, phi_variance = 0.0;  // q(phi_l)
  double w_cavity_mean = 0.0, w_cavity_variance = 0.0;
  double phi_cavity_mean = 0.0, phi_cavity_variance = 0.0;
  bool ok = false;
};
InputPriorCavity input_prior_cavity(const Sites& sites, const Approximation& q, int k, Eigen::Index j, int l,
                                    double eta);

}  // namespace bnn::nnep
