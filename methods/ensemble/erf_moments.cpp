#include "erf_moments.hpp"

#include <algorithm>
#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/special_functions/owens_t.hpp>
#include <cmath>
#include <numbers>

#include "methods/core/normal.hpp"

namespace bnn::ensemble {
namespace {

constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)

// Probabilists' Hermite polynomial He_n(x): d^n/dx^n exp(-x^2/2) = (-1)^n He_n(x) exp(-x^2/2).
double hermite(int n, double x) {
  double previous = 1.0, current = x;
  if (n == 0) return previous;
  for (int m = 1; m < n; ++m) {
    const double next = x * current - m * previous;
    previous = current;
    current = next;
  }
  return current;
}

// Owen's T(h, a) with the limits a -> +-infinity needed at h = 0 (T(0, +-inf) = +-1/4).
double owens_t_term(double h, double numerator, double denominator) {
  if (h == 0.0) return numerator > 0.0 ? 0.25 : (numerator < 0.0 ? -0.25 : 0.0);
  return boost::math::owens_t(h, numerator / (h * denominator));
}

}  // namespace

double erf_unit(double a, int order) {
  if (order == 0) return std::erf(a / std::numbers::sqrt2);
  // sigma'(a) = sqrt(2/pi) exp(-a^2/2), and each further derivative adds a Hermite factor.
  const int m = order - 1;
  return kSqrt2OverPi * std::exp(-0.5 * a * a) * ((m % 2) ? -1.0 : 1.0) * hermite(m, a);
}

double bivariate_normal_cdf(double h, double k, double rho) {
  // |rho| = 1 (or beyond it by rounding, as when pre-activations have huge variances): the
  // degenerate limits.
  if (rho >= 1.0) return normal_cdf(std::min(h, k));
  if (rho <= -1.0) return std::max(0.0, normal_cdf(h) + normal_cdf(k) - 1.0);
  if (std::abs(rho) <= 0.925) {
    // Phi2 = Phi(h) Phi(k) + 1/(2 pi) int_0^asin(rho) exp(-(h^2 + k^2 - 2 h k sin t) / (2 cos^2 t)) dt,
    // by Gauss-Legendre with 6, 12 or 20 nodes as |rho| grows (the choice of Genz 2004).
    const auto integrand = [h, k](double t) {
      const double sin_t = std::sin(t);
      return std::exp(-(h * h + k * k - 2.0 * h * k * sin_t) / (2.0 * (1.0 - sin_t * sin_t)));
    };
    const double upper = std::asin(rho);
    using boost::math::quadrature::gauss;
    const double integral = std::abs(rho) < 0.3    ? gauss<double, 6>::integrate(integrand, 0.0, upper)
                            : std::abs(rho) < 0.75 ? gauss<double, 12>::integrate(integrand, 0.0, upper)
                                                   : gauss<double, 20>::integrate(integrand, 0.0, upper);
    return normal_cdf(h) * normal_cdf(k) + integral / (2.0 * std::numbers::pi);
  }
  if (h == 0.0 && k == 0.0) return 0.25 + std::asin(rho) / (2.0 * std::numbers::pi);
  const double r = std::sqrt((1.0 - rho) * (1.0 + rho));
  // Near |rho| = 1 the integrand above is peaked; Owen (1956) instead:
  // Phi2 = (Phi(h) + Phi(k))/2 - T(h, a_h) - T(k, a_k) - beta.
  const double t_h = owens_t_term(h, k - rho * h, r);
  const double t_k = owens_t_term(k, h - rho * k, r);
  const double beta = (h * k > 0.0 || (h * k == 0.0 && h + k >= 0.0)) ? 0.0 : 0.5;
  return 0.5 * (normal_cdf(h) + normal_cdf(k)) - t_h - t_k - beta;
}

UnitTable unit_table(double mean, double variance) {
  // E[sigma(a)] = sigma(mean / s) with s^2 = 1 + variance (eq. 49); derivatives in the mean
  // give E[sigma^(p)(a)] = s^-p sigma^(p)(mean / s).
  const double s = std::sqrt(1.0 + variance);
  UnitTable table{};
  for (int p = 0; p < static_cast<int>(table.size()); ++p) table[p] = erf_unit(mean / s, p) / std::pow(s, p);
  return table;
}

namespace {

// sigma^(m)(t) for m = 0..kMaxOrder: erf, then sqrt(2/pi) e^{-t^2/2} (-1)^(m-1) He_(m-1)(t).
void erf_unit_derivatives(double t, double* out) {
  out[0] = std::erf(t / std::numbers::sqrt2);
  const double g = kSqrt2OverPi * std::exp(-0.5 * t * t);
  double previous = 1.0, current = t;  // He_0, He_1
  out[1] = g;
  for (int m = 2; m <= kMaxOrder; ++m) {
    out[m] = ((m % 2) ? g : -g) * current;
    const double next = t * current - (m - 1) * previous;
    previous = current;
    current = next;
  }
}

// Entries B[p][q], p >= 1, from the side of unit "own": B = d^(p-1)/dmean_own^(p-1) d^q/dmean_other^q
// of Z_own(mean_own) sigma(t) (see pair_table). `sigma_t` holds sigma^(m)(t).
void fill_from_side(double h, double s, const double* sigma_t, double dt_own, double dt_other, bool transpose,
                    PairTable& table) {
  static constexpr double kBinomial[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 2, 1, 0}, {1, 3, 3, 1}};
  const double z = kSqrt2OverPi * std::exp(-0.5 * h * h) / s;
  // d^m Z / dmean^m = Z (-1)^m He_m(h) / s^m.
  double gaussian_factor[kMaxOrder];
  double previous = 1.0, current = h, inverse_s_power = 1.0;
  for (int m = 0; m < kMaxOrder; ++m) {
    const double he = m == 0 ? 1.0 : current;
    gaussian_factor[m] = ((m % 2) ? -he : he) * inverse_s_power;
    if (m >= 1) {
      const double next = h * current - m * previous;
      previous = current;
      current = next;
    }
    inverse_s_power /= s;
  }
  double own_power[kMaxOrder], other_power[kMaxOrder + 1];
  own_power[0] = other_power[0] = 1.0;
  for (int m = 1; m < kMaxOrder; ++m) own_power[m] = own_power[m - 1] * dt_own;
  for (int m = 1; m <= kMaxOrder; ++m) other_power[m] = other_power[m - 1] * dt_other;
  for (int p = 1; p <= kMaxOrder; ++p)
    for (int q = 0; p + q <= kMaxOrder; ++q) {
      double sum = 0.0;
      for (int l = 0; l <= p - 1; ++l)
        sum += kBinomial[p - 1][l] * gaussian_factor[p - 1 - l] * own_power[l] * sigma_t[q + l];
      (transpose ? table.value[q][p] : table.value[p][q]) = z * sum * other_power[q];
    }
}

}  // namespace

PairTable pair_table(double mean_i, double mean_j, double variance_i, double variance_j, double covariance_ij) {
  const double s_i = std::sqrt(1.0 + variance_i), s_j = std::sqrt(1.0 + variance_j);
  const double h = mean_i / s_i, k = mean_j / s_j;
  // |rho| can reach 1 by rounding when the variances are huge (inputs far outside the training
  // range); kept just inside it, the derivatives below stay finite.
  constexpr double kMaxCorrelation = 1.0 - 1e-15;
  const double rho = std::clamp(covariance_ij / (s_i * s_j), -kMaxCorrelation, kMaxCorrelation);
  const double r = std::sqrt((1.0 - rho) * (1.0 + rho));
  PairTable table;
  // E[sigma(a_i) sigma(a_j)] with sigma = 2 Phi - 1 and E[Phi(a_i) Phi(a_j)] = Phi2(h, k; rho).
  table.value[0][0] = 4.0 * bivariate_normal_cdf(h, k, rho) - 2.0 * normal_cdf(h) - 2.0 * normal_cdf(k) + 1.0;
  // d/dmean_i of the above is Z_i(mean_i) sigma(t), t = (k - rho h) / r, Z_i = sqrt(2/pi) e^{-h^2/2} / s_i;
  // every other entry is a mixed derivative of that product (Leibniz rule; t is linear in the means).
  double sigma_t[kMaxOrder + 1];
  erf_unit_derivatives((k - rho * h) / r, sigma_t);
  fill_from_side(h, s_i, sigma_t, -rho / (r * s_i), 1.0 / (r * s_j), false, table);
  // Entries B[0][q], q >= 1, from the side of unit j (p = 0 there).
  erf_unit_derivatives((h - rho * k) / r, sigma_t);
  PairTable from_j;
  fill_from_side(k, s_j, sigma_t, -rho / (r * s_j), 1.0 / (r * s_i), true, from_j);
  for (int q = 1; q <= kMaxOrder; ++q) table.value[0][q] = from_j.value[0][q];
  return table;
}

PairTable pair_table_with_constant(const UnitTable& unit_i) {
  PairTable table;
  for (int p = 0; p <= kMaxOrder; ++p) table.value[p][0] = unit_i[p];
  return table;
}

PairTable pair_table_constants() {
  PairTable table;
  table.value[0][0] = 1.0;
  return table;
}

LinearTerm linear_term(const UnitTable& unit, const Eigen::Vector2d& mean, const Eigen::Matrix2d& cov,
                       bool with_gradient) {
  // Stein's lemma: E[v h(a)] = m_v E[h(a)] + cov(v, a) E[h'(a)].
  auto v_times = [&](int p) { return mean[0] * unit[p] + cov(0, 1) * unit[p + 1]; };
  LinearTerm term;
  term.value = v_times(0);
  if (!with_gradient) return term;
  term.d_mean << unit[0], v_times(1);
  term.d_cov(0, 1) = term.d_cov(1, 0) = 0.5 * unit[1];
  term.d_cov(1, 1) = 0.5 * v_times(2);
  return term;
}

ProductTerm product_term(const PairTable& base, const Eigen::Vector4d& mean, const Eigen::Matrix4d& cov,
                         bool with_gradient) {
  // z = (v_i, v_j, a_i, a_j). Stein's lemma removes one v at a time:
  // E[v_k s_p(a_i) s_q(a_j)] = m_k B[p][q] + cov(k, a_i) B[p+1][q] + cov(k, a_j) B[p][q+1].
  const auto& b = base.value;
  auto one_v = [&](int k, int p, int q) {
    return mean[k] * b[p][q] + cov(k, 2) * b[p + 1][q] + cov(k, 3) * b[p][q + 1];
  };
  auto two_v = [&](int p, int q) {
    return mean[0] * one_v(1, p, q) + cov(0, 1) * b[p][q] + cov(0, 2) * one_v(1, p + 1, q) +
           cov(0, 3) * one_v(1, p, q + 1);
  };
  ProductTerm term;
  term.value = two_v(0, 0);
  if (!with_gradient) return term;
  term.d_mean << one_v(1, 0, 0), one_v(0, 0, 0), two_v(1, 0), two_v(0, 1);
  // Hessian of v_i v_j sigma(a_i) sigma(a_j), averaged; d_cov is half of it.
  Eigen::Matrix4d hessian = Eigen::Matrix4d::Zero();
  hessian(0, 1) = b[0][0];
  hessian(0, 2) = one_v(1, 1, 0);
  hessian(0, 3) = one_v(1, 0, 1);
  hessian(1, 2) = one_v(0, 1, 0);
  hessian(1, 3) = one_v(0, 0, 1);
  hessian(2, 3) = two_v(1, 1);
  hessian = (hessian + hessian.transpose()).eval();
  hessian(2, 2) = two_v(2, 0);
  hessian(3, 3) = two_v(0, 2);
  term.d_cov = 0.5 * hessian;
  return term;
}

}  // namespace bnn::ensemble
