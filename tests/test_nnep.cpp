// NN-EP (Jylanki, Nummenmaa & Vehtari 2014): the output-weight site algebra of Appendix E,
// exactness on a model where EP is exact, fits, determinism and option validation.
#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numbers>

#include "datasets/src/synthetic.hpp"
#include "methods/core/rng.hpp"
#include "methods/nnep/lower_update.hpp"
#include "methods/nnep/nnep.hpp"
#include "methods/nnep/output_site.hpp"
#include "methods/registry.hpp"
#include "tests/support/errors.hpp"
#include "tests/support/fit_report.hpp"
#include "tests/support/random.hpp"

using namespace bnn;
using namespace bnn::nnep;
using bnn::test::random_vector;

namespace {

// sin(2x) on 60 evenly spaced points of [-2, 2], noise sd 0.1 (seed 9).
RegressionData noisy_sine() {
  Rng data_rng(9);
  RegressionData data;
  data.X = Eigen::MatrixXd(60, 1);
  data.y = Eigen::VectorXd(60);
  for (int i = 0; i < 60; ++i) {
    data.X(i, 0) = -2.0 + 4.0 * i / 59.0;
    data.y[i] = std::sin(2.0 * data.X(i, 0)) + 0.1 * standard_normal(data_rng);
  }
  return data;
}

Eigen::MatrixXd random_spd(Eigen::Index size, Rng& rng) { return test::random_spd(size, rng, 1.0, 0.3); }

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

TEST_CASE("output-weight site (55)-(56) with a_hat != b_hat matches the tilted moments (51)-(52)", "[nnep]") {
  // Learned noise gives a_hat != b_hat; any a_hat > 0 with 1 - a_hat m_g' Sigma_- m_g > 0 is representable.
  Rng rng(13);
  int checked = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Index size = 4;
    const double eta = trial % 2 ? 1.0 : 0.6;
    const Eigen::MatrixXd sigma_v = random_spd(size, rng);
    const Eigen::VectorXd mu_v = random_vector(size, rng);
    const OutputCavity cavity =
        output_cavity(mu_v, sigma_v, random_vector(size, rng, 0.15), random_vector(size, rng, 0.3), eta);
    REQUIRE(cavity.ok);
    const Eigen::VectorXd m_g = random_vector(size, rng, 0.5);
    const Eigen::VectorXd sigma_m = cavity.covariance * m_g;
    // a_hat in (0, 0.9 / m_g' Sigma_- m_g), b_hat independent of it and at least 0.3 away
    const double a_hat = (0.05 + 0.85 * uniform01(rng)) / m_g.dot(sigma_m);
    const double b_hat = a_hat + (trial % 3 == 0 ? -1.0 : 1.0) * (0.3 + 2.0 * uniform01(rng)) * a_hat;
    if (!(b_hat > 0.0)) continue;
    const double residual = standard_normal(rng);
    const OutputSite site = matched_output_site(m_g, cavity, a_hat, b_hat, residual, eta);
    REQUIRE(site.ok);
    const auto [mean, covariance] = combine(cavity, site.alpha * site.alpha.transpose(), site.beta, eta);
    const Eigen::MatrixXd tilted_covariance = cavity.covariance - a_hat * sigma_m * sigma_m.transpose();
    const Eigen::VectorXd tilted_mean = cavity.mean + sigma_m * (b_hat * residual);
    INFO("trial " << trial << ", a_hat " << a_hat << ", b_hat " << b_hat);
    CHECK((covariance - tilted_covariance).norm() < 1e-12 * tilted_covariance.norm());
    CHECK((mean - tilted_mean).norm() < 1e-12 * (1.0 + tilted_mean.norm()));
    ++checked;
  }
  CHECK(checked >= 10);
}

TEST_CASE("output-weight site (55) with a_hat < 0: the rank-one site cannot widen q(v)", "[nnep]") {
  // With a_hat < 0 the tilted covariance Sigma_- + |a_hat| Sigma_- m_g m_g' Sigma_- is wider than the
  // cavity, which needs a negative site precision. (55) takes sign(a_hat) |a_hat|^(1/2), but the
  // site precision of (35) is alpha alpha', positive semidefinite whatever the sign of alpha: the
  // combined q(v) is narrower than the cavity, not wider. This documents the paper's formula; fits
  // count these updates in the diagnostic `negative_a_sites`.
  Rng rng(14);
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::Index size = 4;
    const double eta = trial % 2 ? 1.0 : 0.8;
    const Eigen::MatrixXd sigma_v = random_spd(size, rng);
    const OutputCavity cavity = output_cavity(random_vector(size, rng), sigma_v, random_vector(size, rng, 0.15),
                                              random_vector(size, rng, 0.3), eta);
    REQUIRE(cavity.ok);
    const Eigen::VectorXd m_g = random_vector(size, rng, 0.5);
    const Eigen::VectorXd sigma_m = cavity.covariance * m_g;
    const double a_hat = -(0.1 + uniform01(rng)) / m_g.dot(sigma_m), b_hat = 0.5, residual = standard_normal(rng);
    const OutputSite site = matched_output_site(m_g, cavity, a_hat, b_hat, residual, eta);
    REQUIRE(site.ok);  // c = 1 - a_hat m_g' Sigma_- m_g > 1
    const Eigen::MatrixXd site_precision = site.alpha * site.alpha.transpose();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(site_precision);
    CHECK(eigen.eigenvalues().minCoeff() > -1e-12 * site_precision.norm());
    CHECK(site_precision.norm() > 0.0);
    const Eigen::MatrixXd covariance = combine(cavity, site_precision, site.beta, eta).second;
    const Eigen::MatrixXd tilted_covariance = cavity.covariance - a_hat * sigma_m * sigma_m.transpose();
    const double combined_spread = m_g.dot(covariance * m_g), cavity_spread = m_g.dot(sigma_m);
    const double tilted_spread = m_g.dot(tilted_covariance * m_g);
    INFO("trial " << trial << ": m'Sm combined " << combined_spread << ", cavity " << cavity_spread << ", tilted "
                  << tilted_spread);
    CHECK(combined_spread < cavity_spread);
    CHECK(cavity_spread < tilted_spread);
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

TEST_CASE("the sweep's fused rank-one update and product on the lower triangle equal the full ones", "[nnep]") {
  Rng rng(17);
  for (const Eigen::Index size : {1, 3, 4, 5, 8, 14, 101}) {
    const Eigen::MatrixXd cov = random_spd(size, rng);
    const Eigen::VectorXd a = random_vector(size, rng), x = random_vector(size, rng);
    const double scale = 0.37;
    const Eigen::MatrixXd expected = cov - scale * a * a.transpose();
    const Eigen::VectorXd expected_product = expected * x;
    Eigen::MatrixXd updated = cov;
    Eigen::VectorXd product(size);
    lower_update_times(updated, a.data(), scale, x.data(), product.data());
    const Eigen::MatrixXd lower = updated.triangularView<Eigen::Lower>();
    CHECK((lower - Eigen::MatrixXd(expected.triangularView<Eigen::Lower>())).norm() < 1e-14 * expected.norm());
    CHECK(Eigen::MatrixXd(updated.triangularView<Eigen::StrictlyUpper>()) ==
          Eigen::MatrixXd(cov.triangularView<Eigen::StrictlyUpper>()));  // left for mirror_lower
    CHECK((product - expected_product).norm() < 1e-13 * expected.norm() * x.norm());
    mirror_lower(updated);
    CHECK(updated == updated.transpose());
    CHECK((updated - expected).norm() < 1e-14 * expected.norm());
    // scale 0: a product only, the matrix bit for bit as it was
    Eigen::MatrixXd unchanged = updated;
    lower_update_times(unchanged, a.data(), 0.0, x.data(), product.data());
    CHECK(unchanged == updated);
    CHECK((product - updated * x).norm() < 1e-13 * updated.norm() * x.norm());
  }
}

TEST_CASE("a linear unit with known output weight and noise: EP equals the exact Gaussian posterior", "[nnep]") {
  // f = 1 * (w' x), Gaussian prior N(0, 0.5) (bias N(0, 4)), noise 0.3^2 known: the likelihood
  // is Gaussian in w, so EP with eta = 1 and no damping must reach the exact posterior.
  Rng rng(41);
  const Eigen::Index n = 30, p = 2;
  RegressionData data;
  data.X = Eigen::MatrixXd(n, p);
  data.y = Eigen::VectorXd(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < p; ++j) data.X(i, j) = standard_normal(rng);
    data.y[i] = 0.7 * data.X(i, 0) - 0.4 * data.X(i, 1) + 0.2 + 0.3 * standard_normal(rng);
  }
  Options o;
  o.hidden_units = 1;
  o.linear_units = 1;
  o.learn_noise = false;
  o.truncated_output_prior = false;
  o.initial_output_low = o.initial_output_high = 1.0;
  o.initial_output_variance = 1e-8;
  o.output_bias_variance = 1e-8;
  o.eta = 1.0;
  o.damping_w = o.damping_v = 1.0;
  o.initial_iterations = 0;
  o.max_iterations = 60;
  o.prior_start = 60;  // no EP on the input-weight priors: the initial Gaussian sites are the prior
  o.tolerance = 1e-12;
  const nnep::Model model = fit(data, o, rng);
  Eigen::MatrixXd X(n, p + 1);
  X << data.X, Eigen::VectorXd::Ones(n);
  Eigen::MatrixXd precision = X.transpose() * X / 0.09;
  precision.diagonal() += Eigen::Vector3d(2.0, 2.0, 0.25);
  const Eigen::MatrixXd covariance = precision.inverse();
  const Eigen::VectorXd mean = covariance * X.transpose() * data.y / 0.09;
  const Posterior& q = model.posterior();
  CHECK((q.input_mean[0] - mean).norm() < 1e-6);
  CHECK((q.input_covariance[0] - covariance).norm() < 1e-6 * covariance.norm());
  CHECK(q.output_mean[0] == Approx(1.0).margin(1e-6));
  // Appendix I's log Z_EP is then the exact log evidence log N(y | 0, X Sigma_0 X' + sigma^2 I)
  Eigen::MatrixXd marginal = X * Eigen::Vector3d(0.5, 0.5, 4.0).asDiagonal() * X.transpose();
  marginal.diagonal().array() += 0.09;
  const Eigen::LLT<Eigen::MatrixXd> llt(marginal);
  const double log_det = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
  const double exact = -0.5 * (data.y.dot(llt.solve(data.y)) + log_det + n * std::log(2.0 * std::numbers::pi));
  CHECK(test::diagnostic(model.report(), "log_z_ep") == Approx(exact).epsilon(1e-6));
}

TEST_CASE("nn-ep-ard on case 2: the irrelevant input is pruned, linear scales grow with the slope", "[nnep]") {
  const bnn::data::Dataset data = bnn::data::generate_synthetic("epnn-case2", {"epnn-case2", 200, 3});
  RegressionData train{data.X, data.y};
  // normalize as the harness does
  for (Eigen::Index j = 0; j < train.X.cols(); ++j) {
    const double mean = train.X.col(j).mean();
    const double sd = std::sqrt((train.X.col(j).array() - mean).square().mean());
    train.X.col(j) = (train.X.col(j).array() - mean) / sd;
  }
  const double y_mean = train.y.mean();
  const double y_sd = std::sqrt((train.y.array() - y_mean).square().mean());
  train.y = (train.y.array() - y_mean) / y_sd;
  Options o = ard_defaults();
  o.theta_prior_mean = 2.0 * std::log(0.05);
  Rng rng(3);
  const nnep::Model model = fit(train, o, rng);
  const Posterior& q = model.posterior();
  REQUIRE(q.scale_mean.size() == 11);  // 10 inputs and the bias
  const Eigen::VectorXd phi = q.scale_mean;
  INFO("phi means " << phi.transpose());
  // The irrelevant input 1 gets the smallest scale and the linear effects 2-5 (slopes 0.1-0.4)
  // scales that grow with the slope, as in the paper's Figure 4(b).
  for (int j = 1; j < 10; ++j) CHECK(phi[0] < phi[j]);
  for (int j = 1; j < 4; ++j) CHECK(phi[j] < phi[j + 1]);
  // Nonlinear effects: the strongest scale belongs to one of inputs 6-10. (Here the two fastest
  // sines, inputs 9 and 10, end pruned: EP from the zero start settles in a poorer fixed point;
  // see the issue notes.)
  Eigen::Index strongest;
  phi.head(10).maxCoeff(&strongest);
  CHECK(strongest >= 5);
  // the weights of input 1 are zero at the 95% level in every unit
  for (int k = 0; k < o.hidden_units; ++k)
    CHECK(std::abs(q.input_mean[k][0]) < 1.96 * std::sqrt(q.input_covariance[k](0, 0)));
  CHECK(model.report().status != FitStatus::numerical_error);
  // the LOO history: one entry per 25 sweeps, finite
  int history = 0;
  for (const auto& [key, value] : model.report().diagnostics)
    if (key.starts_with("log_z_loo_sweep_")) {
      ++history;
      CHECK(key == "log_z_loo_sweep_" + std::to_string(25 * history));
      CHECK(std::isfinite(value));
    }
  CHECK(history == model.report().iterations / 25);
  CHECK(history >= 1);
  // the count of units with an effect is reported and agrees with q(v)
  const double reported = test::diagnostic(model.report(), "units_with_effect");
  CHECK(reported == units_with_effect(q));
  CHECK(reported >= 1.0);
  CHECK(reported <= o.hidden_units);
}

TEST_CASE("nn-ep units_with_effect counts output weights above zero at the 95% level", "[nnep]") {
  Posterior posterior;
  posterior.output_mean = Eigen::Vector4d(1.0, 0.15, 0.017, 3.0);  // v_1..v_3, then the bias v_0
  posterior.output_covariance = Eigen::Vector4d(0.01, 0.01, 0.0001, 0.01).asDiagonal();
  // 1 - 1.96 * 0.1 > 0; 0.15 - 0.196 < 0; 0.017 - 0.0196 < 0; the bias is not a unit
  CHECK(units_with_effect(posterior) == 1);
  posterior.output_mean[2] = 0.03;  // 0.03 - 0.0196 > 0
  CHECK(units_with_effect(posterior) == 2);
}

TEST_CASE("nn-ep registry entries: defaults, validation and determinism", "[nnep]") {
  const MethodEntry& la = find_method("nn-ep-la");
  const MethodEntry& ard = find_method("nn-ep-ard");
  CHECK(la.canonical_config({}).find("prior=laplace;scale_groups=common") != std::string::npos);
  CHECK(ard.canonical_config({}).find("prior=gaussian;scale_groups=input") != std::string::npos);
  CHECK(test::invalid_argument_message([&] {
          la.canonical_config({{"eta", "0"}});
        }) == "nn-ep-la: eta is 0, but must be in (0, 1]");
  CHECK(test::invalid_argument_message([&] {
          ard.canonical_config({{"hidden_units", "0"}});
        }) == "nn-ep-ard: hidden_units is 0, but must be >= 1");
  CHECK(test::invalid_argument_message([&] {
          la.canonical_config({{"scale_groups", "rows"}});
        }).find("scale_groups is 'rows'") != std::string::npos);
  const RegressionData data = noisy_sine();
  Rng rng_a(1), rng_b(1);
  const auto first = la.fit(data, {{"max_iterations", "40"}}, rng_a);
  const auto second = la.fit(data, {{"max_iterations", "40"}}, rng_b);
  const auto p1 = first->predict(data.X), p2 = second->predict(data.X);
  double error = 0.0;
  for (Eigen::Index i = 0; i < p1->size(); ++i) {
    CHECK(p1->mean(i) == p2->mean(i));
    CHECK(p1->log_density(i, data.y[i]) == p2->log_density(i, data.y[i]));
    error += std::pow(p1->mean(i) - std::sin(2.0 * data.X(i, 0)), 2);
  }
  CHECK(error / 60.0 < 0.01);  // the smooth function is recovered
  CHECK(first->report().warnings.empty());
}

TEST_CASE("nn-ep: a fit that broke down is a numerical error, not a convergence", "[nnep]") {
  FitReport report;
  report.status = FitStatus::ok;
  check_breakdown(4, 455, true, 0.3, 1.0, report);  // 4 of 455 sites skipped, noise sd 0.3: fine
  CHECK(report.status == FitStatus::ok);
  check_breakdown(5, 500, true, 9.9, 1.0, report);  // 1% skipped, noise just under 10 sd: fine
  CHECK(report.status == FitStatus::ok);
  check_breakdown(6, 500, true, 0.3, 1.0, report);
  CHECK(report.status == FitStatus::numerical_error);
  CHECK(report.message ==
        "EP broke down: 6 of 500 likelihood sites were skipped in the last sweep "
        "(improper cavity or tilted moments)");
  report = FitReport{};
  report.status = FitStatus::not_converged;  // the noise of the kin40k run with parallel updates, damping 0.1
  check_breakdown(0, 5000, true, 86.6, 1.0, report);
  CHECK(report.status == FitStatus::numerical_error);
  CHECK(report.message == "EP diverged: the noise sd grew to 86.6, more than 10 times the targets' sd 1");
  report = FitReport{};
  check_breakdown(0, 5000, true, std::numeric_limits<double>::quiet_NaN(), 1.0, report);
  CHECK(report.status == FitStatus::numerical_error);
  report = FitReport{};
  check_breakdown(0, 5000, false, 86.6, 1.0, report);  // a fixed noise is the user's choice
  CHECK(report.status == FitStatus::ok);
  report.status = FitStatus::numerical_error;
  report.message = "earlier";
  check_breakdown(4000, 5000, true, 86.6, 1.0, report);  // the first diagnosis is kept
  CHECK(report.message == "earlier");
}

TEST_CASE("nn-ep: predictions that run away from the training targets are a numerical error", "[nnep]") {
  // sin(3x) over 2.4 periods, 150 points, the noise fixed at its true sd 0.05 from the first
  // sweep (the paper's schedule starts at 0.3 and learns it): the sweeps run away (predictive
  // means far off targets of sd 0.7) without any site being skipped. From sweep 17 on the
  // run-away sweeps skip sites too (the other check); 16 sweeps catch the first.
  Rng data_rng(17);
  RegressionData data{Eigen::MatrixXd(150, 1), Eigen::VectorXd(150)};
  for (Eigen::Index i = 0; i < 150; ++i) {
    data.X(i, 0) = -2.5 + 5.0 * uniform01(data_rng);
    data.y[i] = std::sin(3.0 * data.X(i, 0)) + 0.05 * standard_normal(data_rng);
  }
  Options o = ard_defaults();
  o.hidden_units = 8;
  o.learn_noise = false;
  o.initial_noise_sd = 0.05;
  o.max_iterations = 16;
  o.prior_start = o.max_iterations;
  Rng rng(5);
  const nnep::Model model = nnep::fit(data, o, rng);
  CHECK(model.report().status == FitStatus::numerical_error);
  CHECK_THAT(model.report().message,
             Catch::StartsWith("EP diverged: the predictive mean misses the training targets by an RMS of"));
  // With the noise held at 0.3 the same fit stays sane, and the check leaves it alone.
  o.initial_noise_sd = 0.3;
  Rng rng2(5);
  const nnep::Model sane = nnep::fit(data, o, rng2);
  CHECK(sane.report().status != FitStatus::numerical_error);
}

TEST_CASE("nn-ep unit_schedule: units join the updates one at a time (section 3.5.3)", "[nnep]") {
  CHECK(test::invalid_argument_message([] {
          find_method("nn-ep-la").canonical_config({{"unit_schedule", "-1"}});
        }) == "nn-ep-la: unit_schedule is -1, but must be >= 0");
  const RegressionData data = noisy_sine();
  Options o = laplace_defaults();
  o.hidden_units = 3;
  o.max_iterations = 20;
  o.prior_start = 20;  // no input-prior EP: a unit that never joined keeps its prior sites
  for (const int schedule : {0, 8, 100}) {
    o.unit_schedule = schedule;
    Rng rng(1);
    const nnep::Model model = nnep::fit(data, o, rng);
    // schedule 8: units 1-3 join at sweeps 1, 9, 17; schedule 100: only unit 1 within 20 sweeps
    const int joined = schedule == 0 ? 3 : schedule == 8 ? 3 : 1;
    for (int k = 0; k < 3; ++k) {
      INFO("schedule " << schedule << ", unit " << k + 1);
      CHECK((model.posterior().input_mean[k].norm() > 1e-3) == (k < joined));
    }
  }
}

TEST_CASE("nn-ep warns when every hidden unit ends at the zero fixed point", "[nnep]") {
  // Targets independent of the inputs: EP prunes every unit (section 2.3) and says so.
  Rng data_rng(17);
  RegressionData data;
  data.X = Eigen::MatrixXd(80, 2);
  data.y = Eigen::VectorXd(80);
  for (int i = 0; i < 80; ++i) {
    data.X(i, 0) = standard_normal(data_rng);
    data.X(i, 1) = standard_normal(data_rng);
    data.y[i] = standard_normal(data_rng);
  }
  Rng rng(1);
  const auto model = find_method("nn-ep-ard").fit(data, {{"hidden_units", "4"}, {"max_iterations", "60"}}, rng);
  CHECK(test::diagnostic(model->report(), "units_with_effect") == 0.0);
  REQUIRE(model->report().warnings.size() == 1);
  CHECK(model->report().warnings[0].find("no hidden unit has an effect") == 0);
}
