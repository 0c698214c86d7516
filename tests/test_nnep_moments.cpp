// NN-EP numerics against brute-force integration: the activation moments (Appendix B), the
// tilted moments of h_ik (49)/(54) and theta (50), and the prior-site tilted moments (27)-(28)
// and of the truncated Student-t prior (5).
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "methods/core/normal.hpp"
#include "methods/core/rng.hpp"
#include "methods/nnep/hidden_unit.hpp"
#include "methods/nnep/likelihood_tilted.hpp"
#include "methods/nnep/prior_sites.hpp"
#include "tests/support/normal_density.hpp"

using namespace bnn;
using namespace bnn::nnep;
using bnn::test::normal_density;
using boost::math::quadrature::gauss_kronrod;

namespace {

// int f(x) dx over [lo, hi] by adaptive Gauss-Kronrod, tight tolerance.
template <class F>
double integrate(F f, double lo, double hi) {
  return gauss_kronrod<double, 31>::integrate(f, lo, hi, 10, 1e-11);
}

struct Moments {
  double log_mass, mean, variance;
};
template <class LogDensity>
Moments brute_moments(LogDensity log_density, double lo, double hi, double shift) {
  const double mass = integrate([&](double x) { return std::exp(log_density(x) - shift); }, lo, hi);
  const double first = integrate([&](double x) { return x * std::exp(log_density(x) - shift); }, lo, hi) / mass;
  const double second = integrate([&](double x) { return x * x * std::exp(log_density(x) - shift); }, lo, hi) / mass;
  return {shift + std::log(mass), first, second - first * first};
}

}  // namespace

TEST_CASE("erf activation: E g and Var g equal quadrature and Monte Carlo", "[nnep]") {
  const HiddenUnit g{7, false};
  for (double m : {-4.0, -1.0, 0.0, 0.3, 2.5, 8.0})
    for (double v : {1e-6, 0.01, 0.5, 3.0, 40.0}) {
      const double sd = std::sqrt(v);
      const auto weight = [&](double h) { return normal_density(h, m, v); };
      const double mean = integrate([&](double h) { return g.value(h) * weight(h); }, m - 12 * sd, m + 12 * sd);
      const double second =
          integrate([&](double h) { return g.value(h) * g.value(h) * weight(h); }, m - 12 * sd, m + 12 * sd);
      CHECK(g.mean(m, v) == Approx(mean).margin(1e-12));
      CHECK(g.variance(m, v) == Approx(second - mean * mean).epsilon(1e-8).margin(1e-14));
    }
  // Monte Carlo z-test of the variance at one point
  Rng rng(5);
  const double m = 0.7, v = 1.8;
  const int draws = 400000;
  double sum = 0.0, sum2 = 0.0, sum4 = 0.0;
  const double mean = g.mean(m, v);
  for (int i = 0; i < draws; ++i) {
    const double c = g.value(m + std::sqrt(v) * standard_normal(rng)) - mean;
    sum += c;
    sum2 += c * c;
    sum4 += c * c * c * c;
  }
  const double variance = sum2 / draws;
  const double se = std::sqrt((sum4 / draws - variance * variance) / draws);
  CHECK(std::abs(variance - g.variance(m, v)) < 4.0 * se);
  const HiddenUnit identity{3, true};
  CHECK(identity.mean(0.4, 2.0) == 0.4);
  CHECK(identity.variance(0.4, 2.0) == 2.0);
}

TEST_CASE("likelihood site: tilted moments of h and theta equal brute-force integration", "[nnep]") {
  Rng rng(21);
  const int K = 3;
  std::vector<HiddenUnit> activations{{K, true}, {K, false}, {K, false}};
  LikelihoodWorkspace workspace(K);
  for (int trial = 0; trial < 30; ++trial) {
    const bool learn_theta = trial % 2 == 1;
    const double eta = trial % 3 == 0 ? 1.0 : 0.8;
    Eigen::VectorXd h_mean(K), h_var(K);
    for (int k = 0; k < K; ++k) {
      h_mean[k] = 1.5 * standard_normal(rng);
      h_var[k] = std::exp(1.5 * standard_normal(rng));
    }
    if (trial % 5 == 0) h_var[2] = 400.0;  // a wide cavity: most mass where erf has saturated
    if (trial % 5 == 1) h_mean[1] = 12.0;  // a cavity centred in the saturated region
    OutputCavity cavity;
    cavity.mean = Eigen::VectorXd(K + 1);
    for (int k = 0; k <= K; ++k) cavity.mean[k] = k < K ? 0.5 + std::abs(standard_normal(rng)) : 0.3;
    Eigen::MatrixXd a = Eigen::MatrixXd::Random(K + 1, K + 1) * 0.3;
    cavity.covariance = a * a.transpose() + 0.05 * Eigen::MatrixXd::Identity(K + 1, K + 1);
    const double y = 2.0 * standard_normal(rng);
    const double theta_mean = std::log(0.1) + 0.5 * standard_normal(rng), theta_variance = learn_theta ? 0.3 : 0.0;
    const TiltedMoments t = site_tilted_moments(activations, h_mean, h_var, cavity, theta_mean, theta_variance,
                                                learn_theta, y, eta, workspace);
    REQUIRE(t.ok);
    // f moments by eq. (46), written out directly from m_g and V_g
    const auto f_moments = [&](const Eigen::VectorXd& m_g, const Eigen::VectorXd& v_g) {
      const double mean = cavity.mean.dot(m_g);
      double variance = m_g.dot(cavity.covariance * m_g);
      for (int k = 0; k <= K; ++k) variance += v_g[k] * (cavity.covariance(k, k) + cavity.mean[k] * cavity.mean[k]);
      return std::pair{mean, variance};
    };
    Eigen::VectorXd m_g(K + 1), v_g(K + 1);
    for (int k = 0; k < K; ++k) {
      m_g[k] = activations[k].mean(h_mean[k], h_var[k]);
      v_g[k] = activations[k].variance(h_mean[k], h_var[k]);
    }
    m_g[K] = 1.0;
    v_g[K] = 0.0;
    const auto [f_mean, f_var] = f_moments(m_g, v_g);
    CHECK(t.latent_mean == Approx(f_mean).epsilon(1e-12));
    CHECK(t.latent_variance == Approx(f_var).epsilon(1e-12));
    double theta_for_h = theta_mean;
    if (learn_theta) {
      // eq. (50): Z(theta) N(y | m_f, V_f + e^theta / eta) q_-(theta)
      const auto log_density = [&](double theta) {
        return log_fractional_normal(y, f_mean, f_var, theta, eta) + normal_log_pdf(theta, theta_mean, theta_variance);
      };
      const double sd = std::sqrt(theta_variance);
      const Moments brute =
          brute_moments(log_density, theta_mean - 12 * sd, theta_mean + 12 * sd, log_density(theta_mean));
      CHECK(t.log_normalizer == Approx(brute.log_mass).margin(1e-7));
      CHECK(t.theta_mean == Approx(brute.mean).margin(1e-7));
      CHECK(t.theta_variance == Approx(brute.variance).epsilon(1e-5));
      theta_for_h = t.theta_mean;  // eq. (54)
    } else {
      CHECK(t.log_normalizer == Approx(log_fractional_normal(y, f_mean, f_var, theta_mean, eta)).epsilon(1e-14));
    }
    // eq. (49)/(54) for each unit: the cavity of h_k times N(y | m_f(h), V_f(h) + e^theta / eta)
    for (int k = 0; k < K; ++k) {
      const auto log_density = [&](double h) {
        Eigen::VectorXd mg = m_g, vg = v_g;
        mg[k] = activations[k].value(h);
        vg[k] = 0.0;
        const auto [mean, variance] = f_moments(mg, vg);
        const double total = variance + std::exp(theta_for_h) / eta;
        return -0.5 * (y - mean) * (y - mean) / total - 0.5 * std::log(total) -
               0.5 * (h - h_mean[k]) * (h - h_mean[k]) / h_var[k];
      };
      const double sd = std::sqrt(h_var[k]);
      const Moments brute =
          brute_moments(log_density, h_mean[k] - 12 * sd, h_mean[k] + 12 * sd, log_density(h_mean[k]));
      CHECK(t.h_mean[k] == Approx(brute.mean).margin(2e-6 * sd));
      CHECK(t.h_variance[k] == Approx(brute.variance).epsilon(2e-5));
    }
  }
}

TEST_CASE("truncated Student-t prior site: tilted moments equal brute-force integration", "[nnep]") {
  for (double m : {-30.0, -3.0, -0.2, 0.0, 0.7, 4.0})
    for (double v : {0.01, 0.3, 5.0})
      for (double eta : {1.0, 0.8, 0.5}) {
        const double dof = 4.0, scale2 = 1.0;
        const PriorTilted t = truncated_t_tilted(m, v, dof, scale2, eta);
        REQUIRE(t.ok);
        const auto log_density = [&](double x) {
          const double log_t = std::lgamma(2.5) - std::lgamma(2.0) - 0.5 * std::log(dof * std::numbers::pi * scale2) -
                               2.5 * std::log1p(x * x / (dof * scale2)) + std::log(2.0);
          return eta * log_t + normal_log_pdf(x, m, v);
        };
        const double shift = log_density(std::max(m, 0.0));
        boost::math::quadrature::exp_sinh<double> half_line;
        const auto moment = [&](int p) {
          return half_line.integrate([&](double x) { return std::pow(x, p) * std::exp(log_density(x) - shift); });
        };
        const double mass = moment(0), mean = moment(1) / mass, variance = moment(2) / mass - mean * mean;
        CHECK(t.log_normalizer == Approx(shift + std::log(mass)).margin(1e-8));
        CHECK(t.mean == Approx(mean).epsilon(1e-7));
        CHECK(t.variance == Approx(variance).epsilon(1e-6));
      }
}

TEST_CASE("hierarchical input-weight prior site: tilted moments equal nested quadrature", "[nnep]") {
  Rng rng(31);
  for (InputPrior prior : {InputPrior::laplace, InputPrior::gaussian})
    for (int trial = 0; trial < 12; ++trial) {
      const double m = 0.8 * standard_normal(rng), V = std::exp(standard_normal(rng) - 1.0);
      const double mu = 2.0 * std::log(0.1) + 2.0 * standard_normal(rng), s2 = std::exp(standard_normal(rng));
      const double eta = trial % 2 ? 0.8 : 1.0;
      const PriorTilted t = hierarchical_tilted(prior, m, V, mu, s2, eta);
      REQUIRE(t.ok);
      // p(w | phi)^eta N(w | m, V) N(phi | mu, s2), integrated over w (inner) and phi (outer)
      const auto log_prior = [&](double w, double phi) {
        if (prior == InputPrior::gaussian)
          return -0.5 * (std::log(2.0 * std::numbers::pi) + phi + w * w * std::exp(-phi));
        const double b = std::sqrt(0.5 * std::exp(phi));
        return -std::log(2.0 * b) - std::abs(w) / b;
      };
      const double w_sd = std::sqrt(V), phi_sd = std::sqrt(s2);
      const auto inner = [&](double phi, int w_power) {
        const auto f = [&](double w) {
          return std::pow(w, w_power) * std::exp(eta * log_prior(w, phi)) * normal_density(w, m, V);
        };
        // split at 0, where the Laplace density has its kink
        const double lo = m - 12 * w_sd, hi = m + 12 * w_sd;
        if (lo < 0.0 && hi > 0.0) return integrate(f, lo, 0.0) + integrate(f, 0.0, hi);
        return integrate(f, lo, hi);
      };
      const auto outer = [&](int w_power, int phi_power) {
        return integrate(
            [&](double phi) { return std::pow(phi, phi_power) * inner(phi, w_power) * normal_density(phi, mu, s2); },
            mu - 9 * phi_sd, mu + 9 * phi_sd);
      };
      const double mass = outer(0, 0);
      const double w_mean = outer(1, 0) / mass, w_var = outer(2, 0) / mass - w_mean * w_mean;
      const double phi_mean = outer(0, 1) / mass, phi_var = outer(0, 2) / mass - phi_mean * phi_mean;
      CHECK(t.log_normalizer == Approx(std::log(mass)).margin(1e-6));
      CHECK(t.mean == Approx(w_mean).margin(1e-6 * w_sd));
      CHECK(t.variance == Approx(w_var).epsilon(1e-5));
      CHECK(t.phi_mean == Approx(phi_mean).margin(1e-6));
      CHECK(t.phi_variance == Approx(phi_var).epsilon(1e-5));
    }
  CHECK(log_normal_cdf(-25.0) == Approx(std::log(0.5 * std::erfc(25.0 / std::numbers::sqrt2))).epsilon(1e-12));
  CHECK(log_normal_cdf(-40.0) == Approx(-804.6084420137538).epsilon(1e-12));
}
