#pragma once
// Approximate tilted moments of one likelihood site (Appendices B-D): given the cavities of
// h_ik (39), v (40) and theta (41), the moments of v by the joint-Gaussian (UKF-style)
// approximation (45)/(51)-(52), of each h_ik by one-dimensional quadrature of (49)/(54), of theta
// by quadrature of (50), and log Z_i.
#include <Eigen/Core>
#include <vector>

#include "gauss_hermite.hpp"
#include "hidden_unit.hpp"
#include "output_site.hpp"

namespace bnn::nnep {

struct TiltedMoments {
  Eigen::VectorXd expected_activation;            // m_g = E g(h_i) under the cavity, last entry 1 (v_0)
  Eigen::VectorXd activation_variance;            // V_g, last entry 0
  double latent_mean = 0.0;                       // m_f, eq. (46)
  double latent_variance = 0.0;                   // V_f, eq. (46)
  double a_hat = 0.0, b_hat = 0.0;                // the scalars of (55)-(56)
  Eigen::VectorXd h_mean, h_variance;             // tilted moments of h_ik, eq. (49) or (54)
  double theta_mean = 0.0, theta_variance = 0.0;  // tilted moments of theta, eq. (50)
  double log_normalizer = 0.0;                    // log Z_i
  bool ok = true;
};

class LikelihoodWorkspace {
 public:
  explicit LikelihoodWorkspace(int units);
  TiltedMoments result;
  HermiteRule theta_rule;
  std::vector<double> offsets, activations, exponents, scales;  // quadrature buffers
};

// `theta_variance` = 0 with `learn_theta` false means theta = theta_mean is known.
const TiltedMoments& site_tilted_moments(const std::vector<HiddenUnit>& activations,
                                         const Eigen::VectorXd& cavity_h_mean, const Eigen::VectorXd& cavity_h_variance,
                                         const OutputCavity& v_cavity, double theta_mean, double theta_variance,
                                         bool learn_theta, double y, double eta, LikelihoodWorkspace& workspace);

// log of Z(theta) N(y | m, V + exp(theta) / eta), the fraction eta of N(y | f, exp(theta))
// integrated against N(f | m, V) (eq. (49)-(50)).
double log_fractional_normal(double y, double mean, double variance, double theta, double eta);

}  // namespace bnn::nnep
