#pragma once
// Gaussian expectations of erf units, the integrals of Barber & Bishop (1998), Appendix A, for
// sigma(a) = erf(a / sqrt(2)) (their eq. 2). Everything is closed form except the expectation
// of a product of two units, which is a bivariate normal probability (a one-dimensional
// integral, Owen's T function, evaluated by Boost.Math; eq. (50) is the same integral).
// Derivatives of these expectations follow from Price's theorem: for z ~ N(mean, cov),
// d E[g(z)] / d mean = E[grad g] and d E[g(z)] / d cov = 0.5 E[Hessian of g] (symmetric
// convention: dE = grad' d mean + tr(Gcov d cov)).
#include <Eigen/Core>
#include <array>

namespace bnn::ensemble {

// Highest derivative of sigma that the gradient of <f^2> needs (two Stein steps for v_i v_j
// plus the second derivative of Price's theorem).
constexpr int kMaxOrder = 4;

// sigma^(order)(a) for order 0..kMaxOrder+1.
double erf_unit(double a, int order = 0);

// P(Z1 <= h, Z2 <= k) for standard normals with correlation rho; |rho| >= 1 gives the limits
// rho -> +-1 (a rho just beyond them by rounding is taken as +-1).
double bivariate_normal_cdf(double h, double k, double rho);

// E[sigma^(p)(a)] for a ~ N(mean, variance), p = 0..kMaxOrder+1.
using UnitTable = std::array<double, kMaxOrder + 2>;
UnitTable unit_table(double mean, double variance);

// E[sigma^(p)(a_i) sigma^(q)(a_j)] for bivariate normal (a_i, a_j), p + q <= kMaxOrder.
// Entries with p + q > kMaxOrder are not computed (zero).
struct PairTable {
  double value[kMaxOrder + 1][kMaxOrder + 1] = {};
};
PairTable pair_table(double mean_i, double mean_j, double variance_i, double variance_j, double covariance_ij);
// Tables where unit j (or both units) is the constant 1 of an output bias.
PairTable pair_table_with_constant(const UnitTable& unit_i);
PairTable pair_table_constants();

// E[v sigma(a)] for (v, a) ~ N(mean, cov), with its gradient (a term of <f>, eq. 21).
struct LinearTerm {
  double value = 0.0;
  Eigen::Vector2d d_mean = Eigen::Vector2d::Zero();
  Eigen::Matrix2d d_cov = Eigen::Matrix2d::Zero();
};
LinearTerm linear_term(const UnitTable& unit, const Eigen::Vector2d& mean, const Eigen::Matrix2d& cov,
                       bool with_gradient);

// E[v_i v_j sigma(a_i) sigma(a_j)] for z = (v_i, v_j, a_i, a_j) ~ N(mean, cov), with its gradient
// (a term of <f^2>, eqs. 22-23). The covariance may be singular: for i = j pass z = (v, v, a, a).
struct ProductTerm {
  double value = 0.0;
  Eigen::Vector4d d_mean = Eigen::Vector4d::Zero();
  Eigen::Matrix4d d_cov = Eigen::Matrix4d::Zero();
};
ProductTerm product_term(const PairTable& base, const Eigen::Vector4d& mean, const Eigen::Matrix4d& cov,
                         bool with_gradient);

}  // namespace bnn::ensemble
