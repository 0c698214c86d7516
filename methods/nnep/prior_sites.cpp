#include "prior_sites.hpp"

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <limits>
#include <numbers>

#include "methods/core/normal.hpp"

namespace bnn::nnep {
namespace {

constexpr int kPhiHalfPoints = 60;  // trapezoid over +-7 cavity sd of phi: 121 points

// N(w | mean, V) restricted to w > 0: log mass, mean and variance.
void positive_part(double mean, double variance, double& log_mass, double& part_mean, double& part_variance) {
  const double sd = std::sqrt(variance), z = mean / sd;
  const double r = inverse_mills(z);
  log_mass = log_normal_cdf(z);
  part_mean = mean + sd * r;
  part_variance = std::max(variance * (1.0 - r * (z + r)), 0.0);
}

// Given phi: log Z(phi, eta) and the first two moments of w under p(w | phi)^eta N(w | m, V).
struct Conditional {
  double log_z, mean, second;
};

Conditional conditional_gaussian(double m, double V, double phi, double eta) {
  // N(w | 0, e^phi)^eta = (2 pi e^phi)^((1 - eta) / 2) eta^(-1/2) N(w | 0, e^phi / eta)
  const double prior_variance = std::exp(phi) / eta;
  Conditional c;
  c.log_z =
      0.5 * (1.0 - eta) * (kLog2Pi + phi) - 0.5 * std::log(eta) + normal_log_pdf_split(m, 0.0, V + prior_variance);
  const double precision = 1.0 / V + 1.0 / prior_variance;
  c.mean = (m / V) / precision;
  c.second = 1.0 / precision + c.mean * c.mean;
  return c;
}

Conditional conditional_laplace(double m, double V, double phi, double eta) {
  // Laplace(w | 0, b) with variance 2 b^2 = e^phi; its eta-th power is (2b)^-eta exp(-lambda |w|),
  // lambda = eta / b, and N(w | m, V) exp(-lambda |w|) splits into two truncated Gaussians.
  const double b = std::sqrt(0.5 * std::exp(phi));
  const double lambda = eta / b;
  double log_plus, mean_plus, var_plus, log_minus, mean_minus, var_minus;
  positive_part(m - lambda * V, V, log_plus, mean_plus, var_plus);
  positive_part(-(m + lambda * V), V, log_minus, mean_minus, var_minus);
  mean_minus = -mean_minus;
  log_plus += -lambda * m + 0.5 * lambda * lambda * V;
  log_minus += lambda * m + 0.5 * lambda * lambda * V;
  const double largest = std::max(log_plus, log_minus);
  const double weight_plus = std::exp(log_plus - largest), weight_minus = std::exp(log_minus - largest);
  const double total = weight_plus + weight_minus;
  Conditional c;
  c.log_z = -eta * std::log(2.0 * b) + largest + std::log(total);
  c.mean = (weight_plus * mean_plus + weight_minus * mean_minus) / total;
  c.second =
      (weight_plus * (var_plus + mean_plus * mean_plus) + weight_minus * (var_minus + mean_minus * mean_minus)) / total;
  return c;
}

}  // namespace

PriorTilted truncated_t_tilted(double cavity_mean, double cavity_variance, double dof, double scale2, double eta) {
  PriorTilted t;
  const double sd = std::sqrt(cavity_variance);
  const double log_t_constant = std::lgamma(0.5 * (dof + 1.0)) - std::lgamma(0.5 * dof) -
                                0.5 * std::log(dof * std::numbers::pi * scale2) + std::log(2.0);
  const auto log_integrand = [&](double v) {
    return eta * (log_t_constant - 0.5 * (dof + 1.0) * std::log1p(v * v / (dof * scale2))) +
           normal_log_pdf_split(v, cavity_mean, cavity_variance);
  };
  const double upper = std::max(cavity_mean, 0.0) + 12.0 * sd + 12.0 * std::sqrt(scale2);
  double shift = log_integrand(0.0);
  for (int p = 1; p <= 64; ++p) shift = std::max(shift, log_integrand(upper * p / 64.0));
  if (cavity_mean > 0.0) shift = std::max(shift, log_integrand(cavity_mean));
  using boost::math::quadrature::gauss_kronrod;
  const auto moment = [&](int power) {
    return gauss_kronrod<double, 31>::integrate(
        [&](double v) { return std::pow(v, power) * std::exp(log_integrand(v) - shift); }, 0.0, upper, 12, 1e-11);
  };
  const double mass = moment(0), first = moment(1), second = moment(2);
  if (!(mass > 0.0) || !std::isfinite(mass)) {
    t.ok = false;
    return t;
  }
  t.log_normalizer = shift + std::log(mass);
  t.mean = first / mass;
  t.variance = second / mass - t.mean * t.mean;
  t.ok = t.variance > 0.0;
  return t;
}

PriorTilted hierarchical_tilted(InputPrior prior, double w_mean, double w_variance, double phi_mean,
                                double phi_variance, double eta) {
  PriorTilted t;
  const double phi_sd = std::sqrt(phi_variance);
  const double step = 7.0 * phi_sd / kPhiHalfPoints;
  double log_values[2 * kPhiHalfPoints + 1];
  Conditional conditionals[2 * kPhiHalfPoints + 1];
  double largest = -std::numeric_limits<double>::infinity();
  for (int p = 0; p <= 2 * kPhiHalfPoints; ++p) {
    const double z = (p - kPhiHalfPoints) * step / phi_sd;
    const double phi = phi_mean + (p - kPhiHalfPoints) * step;
    conditionals[p] = prior == InputPrior::gaussian ? conditional_gaussian(w_mean, w_variance, phi, eta)
                                                    : conditional_laplace(w_mean, w_variance, phi, eta);
    log_values[p] = conditionals[p].log_z - 0.5 * z * z;
    largest = std::max(largest, log_values[p]);
  }
  if (!std::isfinite(largest)) {
    t.ok = false;
    return t;
  }
  double mass = 0.0, phi_first = 0.0, phi_second = 0.0, w_first = 0.0, w_second = 0.0;
  for (int p = 0; p <= 2 * kPhiHalfPoints; ++p) {
    const double offset = (p - kPhiHalfPoints) * step;
    const double weight = std::exp(log_values[p] - largest);
    mass += weight;
    phi_first += weight * offset;
    phi_second += weight * offset * offset;
    w_first += weight * conditionals[p].mean;
    w_second += weight * conditionals[p].second;
  }
  // eq. (27)-(28); the cavity density's normalization is 1 / (sqrt(2 pi) s) times the step
  t.log_normalizer = largest + std::log(mass * step) - 0.5 * kLog2Pi - std::log(phi_sd);
  const double phi_shift = phi_first / mass;
  t.phi_mean = phi_mean + phi_shift;
  t.phi_variance = phi_second / mass - phi_shift * phi_shift;
  t.mean = w_first / mass;
  t.variance = w_second / mass - t.mean * t.mean;
  t.ok = t.variance > 0.0 && t.phi_variance > 0.0 && std::isfinite(t.mean);
  return t;
}

}  // namespace bnn::nnep
