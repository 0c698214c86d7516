// NN-EP (Jylanki, Nummenmaa & Vehtari 2014): the output-weight site algebra of Appendix E,
// exactness on a model where EP is exact, fits, determinism and option validation.
#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>

#include "methods/core/rng.hpp"
#include "methods/nnep/nnep.hpp"
#include "methods/nnep/output_site.hpp"
#include "methods/registry.hpp"
#include "test_helpers.hpp"

using namespace bnn;
using namespace bnn::nnep;

namespace {

Eigen::MatrixXd random_spd(Eigen::Index size, Rng& rng) {
  Eigen::MatrixXd a(size, size);
  for (Eigen::Index i = 0; i < a.size(); ++i) a.data()[i] = standard_normal(rng);
  return a * a.transpose() / static_cast<double>(size) + 0.3 * Eigen::MatrixXd::Identity(size, size);
}

Eigen::VectorXd random_vector(Eigen::Index size, Rng& rng, double scale = 1.0) {
  Eigen::VectorXd v(size);
  for (Eigen::Index i = 0; i < size; ++i) v[i] = scale * standard_normal(rng);
  return v;
}

// Mean and covariance of q(v) given the cavity and the site precision P and location b with
// fraction eta: (Sigma_-^-1 + eta P)^-1 (Sigma_-^-1 mu_- + eta b).
std::pair<Eigen::VectorXd, Eigen::MatrixXd> combine(const OutputCavity& cavity, const Eigen::MatrixXd& P,
                                                    const Eigen::VectorXd& b, double eta) {
  const Eigen::MatrixXd cavity_precision = cavity.covariance.inverse();
  const Eigen::MatrixXd precision = cavity_precision + eta * P;
  const Eigen::MatrixXd covariance = precision.inverse();
  return {covariance * (cavity_precision * cavity.mean + eta * b), covariance};
}

}  // namespace

TEST_CASE("output-weight site: cavity (40) and moment matching (55)-(56)", "[nnep]") {
  Rng rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Index size = 4;
    const double eta = trial % 2 ? 1.0 : 0.7;
    const Eigen::MatrixXd sigma_v = random_spd(size, rng);
    const Eigen::VectorXd mu_v = random_vector(size, rng);
    const Eigen::VectorXd alpha = random_vector(size, rng, 0.15), beta = random_vector(size, rng, 0.3);
    const OutputCavity cavity = output_cavity(mu_v, sigma_v, alpha, beta, eta);
    REQUIRE(cavity.ok);
    // removing a fraction eta of the site from q(v): precision Sigma_v^-1 - eta alpha alpha'
    const Eigen::MatrixXd precision = sigma_v.inverse() - eta * alpha * alpha.transpose();
    CHECK((cavity.covariance - precision.inverse()).norm() < 1e-9);
    const Eigen::VectorXd linear = sigma_v.inverse() * mu_v - eta * beta;
    CHECK((cavity.mean - precision.inverse() * linear).norm() < 1e-9);

    // (55)-(56) give the site whose fraction eta added to the cavity yields the tilted moments
    // (45): mean mu_- + Sigma_- m_g b_hat r, covariance Sigma_- - a_hat Sigma_- m_g m_g' Sigma_-.
    const Eigen::VectorXd m_g = random_vector(size, rng, 0.5);
    const double a_hat = 0.5 + std::abs(standard_normal(rng)), residual = standard_normal(rng);
    const double b_hat = a_hat;  // known noise: a_hat = b_hat = 1 / V_y
    const Eigen::VectorXd sigma_m = cavity.covariance * m_g;
    if (1.0 - a_hat * m_g.dot(sigma_m) <= 0.0) continue;
    const OutputSite site = matched_output_site(m_g, cavity, a_hat, b_hat, residual, eta);
    REQUIRE(site.ok);
    const auto [mean, covariance] = combine(cavity, site.alpha * site.alpha.transpose(), site.beta, eta);
    const Eigen::MatrixXd tilted_covariance = cavity.covariance - a_hat * sigma_m * sigma_m.transpose();
    const Eigen::VectorXd tilted_mean = cavity.mean + sigma_m * (b_hat * residual);
    CHECK((covariance - tilted_covariance).norm() < 1e-8);
    CHECK((mean - tilted_mean).norm() < 1e-8);
  }
}

TEST_CASE("damped output-weight site (57)-(59) keeps the mean of the rank-two site", "[nnep]") {
  Rng rng(12);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Index size = 5;
    const double eta = 0.95, delta = trial % 2 ? 0.2 : 0.6;
    const Eigen::MatrixXd sigma_v = random_spd(size, rng);
    const Eigen::VectorXd mu_v = random_vector(size, rng);
    const Eigen::VectorXd alpha_old = random_vector(size, rng, 0.15), beta_old = random_vector(size, rng, 0.3);
    const OutputCavity cavity = output_cavity(mu_v, sigma_v, alpha_old, beta_old, eta);
    REQUIRE(cavity.ok);
    OutputSite matched;
    matched.alpha = random_vector(size, rng, 0.3);
    matched.beta = random_vector(size, rng, 0.3);
    const OutputSite damped = damped_output_site(alpha_old, beta_old, matched, cavity, delta, eta);
    Eigen::MatrixXd A(size, 2);
    A << std::sqrt(1.0 - delta) * alpha_old, std::sqrt(delta) * matched.alpha;
    const Eigen::VectorXd b = (1.0 - delta) * beta_old + delta * matched.beta;
    const auto [mean_rank_two, covariance_rank_two] = combine(cavity, A * A.transpose(), b, eta);
    const auto [mean_damped, covariance_damped] =
        combine(cavity, damped.alpha * damped.alpha.transpose(), damped.beta, eta);
    CHECK((mean_damped - mean_rank_two).norm() < 1e-9 * (1.0 + mean_rank_two.norm()));
    // the rank-one precision is the leading part of A A': the trace drops by the smaller eigenvalue
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> eigen(A.transpose() * A);
    CHECK(damped.alpha.squaredNorm() == Approx(eigen.eigenvalues()[1]).epsilon(1e-10));
    // damping 1 returns the matched site
    const OutputSite undamped = damped_output_site(alpha_old, beta_old, matched, cavity, 1.0, eta);
    CHECK((undamped.alpha - matched.alpha).norm() == 0.0);
  }
}
