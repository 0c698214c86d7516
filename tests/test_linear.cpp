// Exact Bayesian linear regression (methods/linear): the Normal-Gamma posterior, Student-t
// predictive and marginal likelihood against hand-written formulas and brute-force quadrature;
// type-II ML for alpha; large-sample consistency; option validation and the method registry.
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "methods/core/model.hpp"
#include "methods/core/normal.hpp"
#include "methods/core/predictive.hpp"
#include "methods/core/rng.hpp"
#include "methods/linear/linear.hpp"
#include "methods/registry.hpp"
#include "tests/support/errors.hpp"
#include "tests/support/fit_report.hpp"

namespace {

using Catch::Matchers::Contains;
using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The message of the std::invalid_argument thrown by f (other exceptions propagate).
using bnn::test::invalid_argument_message;

// Four points, one feature.
bnn::RegressionData tiny_data() {
  bnn::RegressionData d;
  d.X.resize(4, 1);
  d.X << -1.0, 0.5, 1.0, 2.0;
  d.y.resize(4);
  d.y << -0.8, 0.9, 1.1, 2.4;
  return d;
}

double log_gamma_density(double tau, double shape, double rate) {
  return shape * std::log(rate) - std::lgamma(shape) + (shape - 1.0) * std::log(tau) - rate * tau;
}

// Integral over tau in (0, inf) of exp(log_f(tau)), scaled by exp(-offset) for range safety;
// returns the log of the integral.
template <class F>
double log_integral_over_tau(F log_f, double offset) {
  static boost::math::quadrature::exp_sinh<double> integrator;
  const double value =
      integrator.integrate([&](double tau) { return std::exp(log_f(tau) - offset); }, 0.0, kInf, 1e-12);
  return offset + std::log(value);
}

// Hand-derived posterior of the no-bias model y_i = w x_i + e: Lambda_n = sum x^2 + alpha,
// m = sum x y / Lambda_n, a_n = a0 + n/2, b_n = b0 + (sum y^2 - m^2 Lambda_n) / 2.
struct ScalarPosterior {
  double precision, mean, shape, rate;
};

ScalarPosterior scalar_posterior(const bnn::RegressionData& d, double alpha, double a0, double b0) {
  double sxx = 0.0, sxy = 0.0, syy = 0.0;
  for (int i = 0; i < 4; ++i) {
    sxx += d.X(i, 0) * d.X(i, 0);
    sxy += d.X(i, 0) * d.y[i];
    syy += d.y[i] * d.y[i];
  }
  ScalarPosterior p{};
  p.precision = sxx + alpha;
  p.mean = sxy / p.precision;
  p.shape = a0 + 0.5 * 4;
  p.rate = b0 + 0.5 * (syy - p.mean * p.mean * p.precision);
  return p;
}

bnn::linear::Options no_bias_options() {
  bnn::linear::Options o;
  o.fit_bias = false;
  o.prior_precision = 2.0;
  o.noise_shape = 1.5;
  o.noise_rate = 0.7;
  return o;
}

bnn::linear::Options bias_options() {
  bnn::linear::Options o;
  o.fit_bias = true;
  o.prior_precision = 2.0;
  o.bias_precision = 0.5;
  o.noise_shape = 1.5;
  o.noise_rate = 0.7;
  return o;
}

// Data from y = bias + x'w + noise_sd * e with standard normal features and noise e.
bnn::RegressionData synthetic(bnn::Rng& rng, int n, const VectorXd& w, double bias, double noise_sd) {
  bnn::RegressionData d;
  d.X.resize(n, w.size());
  d.y.resize(n);
  for (int i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < w.size(); ++j) d.X(i, j) = bnn::standard_normal(rng);
    d.y[i] = bias + d.X.row(i).dot(w) + noise_sd * bnn::standard_normal(rng);
  }
  return d;
}

}  // namespace

// ------------------------------------------------------------------------------ (a)
TEST_CASE("linear posterior without bias matches the hand-derived update", "[linear]") {
  const auto d = tiny_data();
  const auto o = no_bias_options();
  const auto post = bnn::linear::posterior(d, o, o.prior_precision);
  // sum x^2 = 6.25, sum x y = 7.15, sum y^2 = 8.42.
  const double precision = 6.25 + 2.0;
  const double mean = 7.15 / precision;
  const double rate = 0.7 + 0.5 * (8.42 - mean * mean * precision);
  REQUIRE(post.mean.size() == 1);
  REQUIRE(post.precision.rows() == 1);
  CHECK(post.precision(0, 0) == Approx(precision).epsilon(1e-14));
  CHECK(post.mean[0] == Approx(mean).epsilon(1e-14));
  CHECK(post.shape == Approx(1.5 + 2.0).epsilon(1e-15));
  CHECK(post.rate == Approx(rate).epsilon(1e-13));
  CHECK(post.prior_precision == 2.0);
  const auto s = scalar_posterior(d, 2.0, 1.5, 0.7);
  CHECK(post.rate == Approx(s.rate).epsilon(1e-13));
}

TEST_CASE("linear posterior with bias matches the hand-derived 2x2 update", "[linear]") {
  const auto d = tiny_data();
  const auto o = bias_options();
  const auto post = bnn::linear::posterior(d, o, o.prior_precision);
  // Design [1 x]; Lambda_n = [[n + beta, sum x], [sum x, sum x^2 + alpha]].
  const double n = 4.0, sx = 2.5, sxx = 6.25, sy = 3.6, sxy = 7.15, syy = 8.42;
  const double beta = 0.5, alpha = 2.0;
  const double l00 = n + beta, l01 = sx, l11 = sxx + alpha;
  const double det = l00 * l11 - l01 * l01;
  // m = Lambda_n^{-1} [sum y, sum x y] with the explicit inverse [[l11, -l01], [-l01, l00]] / det.
  const double m0 = (l11 * sy - l01 * sxy) / det;
  const double m1 = (-l01 * sy + l00 * sxy) / det;
  const double quad = l00 * m0 * m0 + 2.0 * l01 * m0 * m1 + l11 * m1 * m1;  // m' Lambda_n m
  const double rate = 0.7 + 0.5 * (syy - quad);
  REQUIRE(post.mean.size() == 2);
  CHECK(post.precision(0, 0) == Approx(l00).epsilon(1e-14));
  CHECK(post.precision(0, 1) == Approx(l01).epsilon(1e-14));
  CHECK(post.precision(1, 0) == Approx(l01).epsilon(1e-14));
  CHECK(post.precision(1, 1) == Approx(l11).epsilon(1e-14));
  CHECK(post.mean[0] == Approx(m0).epsilon(1e-13));
  CHECK(post.mean[1] == Approx(m1).epsilon(1e-13));
  CHECK(post.shape == Approx(3.5).epsilon(1e-15));
  CHECK(post.rate == Approx(rate).epsilon(1e-12));

  // The alpha argument, not options.prior_precision, is the one used.
  const auto other = bnn::linear::posterior(d, o, 5.0);
  CHECK(other.precision(1, 1) == Approx(sxx + 5.0).epsilon(1e-14));
  CHECK(other.precision(0, 0) == Approx(l00).epsilon(1e-14));
  CHECK(other.prior_precision == 5.0);
}

TEST_CASE("linear predictive location, scale and dof follow the posterior", "[linear]") {
  const auto d = tiny_data();
  const auto o = bias_options();
  bnn::Rng rng(1);
  const auto model = bnn::linear::fit(d, o, rng);
  const auto& post = model.posterior();
  MatrixXd Xs(3, 1);
  Xs << -2.0, 0.3, 4.0;
  const auto pred = model.predict(Xs);
  REQUIRE(pred->size() == 3);
  CHECK(pred->kind() == "student-t");
  const auto& t = dynamic_cast<const bnn::StudentTPredictive&>(*pred);
  CHECK(t.dof() == Approx(2.0 * post.shape).epsilon(1e-15));
  const MatrixXd cov = post.precision.inverse();
  for (int i = 0; i < 3; ++i) {
    VectorXd x(2);
    x << 1.0, Xs(i, 0);
    const double leverage = x.dot(cov * x);
    CHECK(pred->mean(i) == Approx(x.dot(post.mean)).epsilon(1e-13));
    // Variance of a t with scale^2 = (b/a)(1 + lev) and dof 2a is b (1 + lev) / (a - 1).
    CHECK(pred->variance(i) == Approx(post.rate * (1.0 + leverage) / (post.shape - 1.0)).epsilon(1e-12));
  }
  // Farther from the data means more uncertainty.
  CHECK(pred->variance(2) > pred->variance(1));
  CHECK(model.report().status == bnn::FitStatus::ok);
}

// ------------------------------------------------------------------------------ (b)
TEST_CASE("linear predictive density equals the tau-mixture of Gaussians", "[linear]") {
  const auto d = tiny_data();
  bnn::Rng rng(1);
  SECTION("no bias") {
    const auto o = no_bias_options();
    const auto s = scalar_posterior(d, o.prior_precision, o.noise_shape, o.noise_rate);
    const auto model = bnn::linear::fit(d, o, rng);
    const double xs = 1.7;
    const auto pred = model.predict(MatrixXd::Constant(1, 1, xs));
    const double loc = xs * s.mean, factor = 1.0 + xs * xs / s.precision;
    for (double y : {-3.0, 0.0, loc, 2.0, 6.0}) {
      INFO("y = " << y);
      const double brute = log_integral_over_tau(
          [&](double tau) {
            return bnn::normal_log_pdf(y, loc, factor / tau) + log_gamma_density(tau, s.shape, s.rate);
          },
          0.0);
      CHECK(pred->log_density(0, y) == Approx(brute).epsilon(1e-9));
    }
  }
  SECTION("with bias") {
    const auto o = bias_options();
    const auto model = bnn::linear::fit(d, o, rng);
    const auto& post = model.posterior();  // checked by hand in the test above
    const double xs = -0.6;
    VectorXd x(2);
    x << 1.0, xs;
    const auto pred = model.predict(MatrixXd::Constant(1, 1, xs));
    const double loc = x.dot(post.mean);
    const double factor = 1.0 + x.dot(post.precision.inverse() * x);
    for (double y : {-4.0, -0.5, loc, 1.0, 3.0}) {
      INFO("y = " << y);
      const double brute = log_integral_over_tau(
          [&](double tau) {
            return bnn::normal_log_pdf(y, loc, factor / tau) + log_gamma_density(tau, post.shape, post.rate);
          },
          0.0);
      CHECK(pred->log_density(0, y) == Approx(brute).epsilon(1e-9));
    }
  }
}

// ------------------------------------------------------------------------------ (c)
// log p(y) = log int N(y; 0, C / tau) Gamma(tau; a0, b0) dtau with C = I + D Lambda0^-1 D'.
double log_evidence_by_tau_quadrature(const MatrixXd& D, const VectorXd& prior_diag, const VectorXd& y, double a0,
                                      double b0) {
  const auto n = static_cast<double>(y.size());
  const MatrixXd C =
      MatrixXd::Identity(y.size(), y.size()) + D * prior_diag.cwiseInverse().asDiagonal() * D.transpose();
  const Eigen::LDLT<MatrixXd> ldlt(C);
  const double log_det = ldlt.vectorD().array().log().sum();
  const double q = y.dot(ldlt.solve(y));
  const auto log_f = [&](double tau) {
    return -0.5 * n * std::log(2.0 * std::numbers::pi / tau) - 0.5 * log_det - 0.5 * tau * q +
           log_gamma_density(tau, a0, b0);
  };
  // Offset: the value at tau = a0 / b0 keeps exp() in range.
  return log_integral_over_tau(log_f, log_f(a0 / b0));
}

TEST_CASE("linear log evidence equals the tau integral of the Gaussian marginal", "[linear]") {
  const auto d = tiny_data();
  for (double alpha : {0.05, 2.0, 40.0}) {
    INFO("alpha = " << alpha);
    const auto o = no_bias_options();
    CHECK(bnn::linear::posterior(d, o, alpha).log_evidence ==
          Approx(log_evidence_by_tau_quadrature(d.X, VectorXd::Constant(1, alpha), d.y, o.noise_shape, o.noise_rate))
              .epsilon(1e-9));
    const auto ob = bias_options();
    MatrixXd D(4, 2);
    D.col(0).setOnes();
    D.col(1) = d.X.col(0);
    VectorXd prior(2);
    prior << ob.bias_precision, alpha;
    CHECK(bnn::linear::posterior(d, ob, alpha).log_evidence ==
          Approx(log_evidence_by_tau_quadrature(D, prior, d.y, ob.noise_shape, ob.noise_rate)).epsilon(1e-9));
  }
}

TEST_CASE("linear log evidence equals a 2-D integral over weight and noise precision", "[linear]") {
  // p(y) = int int prod_i N(y_i; w x_i, 1/tau) N(w; 0, 1/(alpha tau)) Gamma(tau; a0, b0) dw dtau.
  const auto d = tiny_data();
  const auto o = no_bias_options();
  const double alpha = o.prior_precision;
  const auto s = scalar_posterior(d, alpha, o.noise_shape, o.noise_rate);
  const auto log_joint = [&](double w, double tau) {
    double value =
        bnn::normal_log_pdf(w, 0.0, 1.0 / (alpha * tau)) + log_gamma_density(tau, o.noise_shape, o.noise_rate);
    for (int i = 0; i < 4; ++i) value += bnn::normal_log_pdf(d.y[i], w * d.X(i, 0), 1.0 / tau);
    return value;
  };
  const double offset = log_joint(s.mean, s.shape / s.rate);
  const auto over_w = [&](double tau) {
    const double half_width = 30.0 / std::sqrt(tau * s.precision);
    return boost::math::quadrature::gauss_kronrod<double, 31>::integrate(
        [&](double w) { return std::exp(log_joint(w, tau) - offset); }, s.mean - half_width, s.mean + half_width, 10,
        1e-12);
  };
  static boost::math::quadrature::exp_sinh<double> integrator;
  const double brute = offset + std::log(integrator.integrate(over_w, 0.0, kInf, 1e-10));
  CHECK(bnn::linear::posterior(d, o, alpha).log_evidence == Approx(brute).epsilon(1e-8));
}

// ------------------------------------------------------------------------------ (d)
TEST_CASE("optimize_prior_precision maximizes the evidence", "[linear]") {
  bnn::Rng rng(42);
  VectorXd w(3);
  w << 0.5, -0.3, 0.2;
  const auto d = synthetic(rng, 30, w, 1.0, 0.5);
  bnn::linear::Options o;
  o.optimize_prior_precision = true;
  const auto model = bnn::linear::fit(d, o, rng);
  const double alpha = model.posterior().prior_precision;
  INFO("alpha = " << alpha);
  REQUIRE(alpha > 1e-6);
  REQUIRE(alpha < 1e6);
  const auto evidence = [&](double a) { return bnn::linear::posterior(d, o, a).log_evidence; };
  const double best = evidence(alpha);
  CHECK(best >= evidence(alpha * 1.1));
  CHECK(best >= evidence(alpha / 1.1));
  // No point of a fine grid over 10 decades does better (up to the optimizer tolerance).
  for (double la = -5.0; la <= 5.0; la += 0.01)
    if (evidence(std::pow(10.0, la)) > best + 1e-9) FAIL("alpha = 10^" << la << " beats the optimum");
  // The model and its report use that alpha.
  CHECK(model.posterior().log_evidence == Approx(best).epsilon(1e-14));
  CHECK(bnn::test::diagnostic(model.report(), "prior_precision") == alpha);
  CHECK(bnn::test::diagnostic(model.report(), "log_evidence") == Approx(best).epsilon(1e-14));
  CHECK(model.report().iterations > 0);
  // Without the flag alpha stays at prior_precision.
  o.optimize_prior_precision = false;
  o.prior_precision = 3.0;
  CHECK(bnn::linear::fit(d, o, rng).posterior().prior_precision == 3.0);
}

// ------------------------------------------------------------------------------ (e)
TEST_CASE("linear posterior concentrates on the truth with lots of data", "[linear]") {
  bnn::Rng rng(2024);
  VectorXd w(3);
  w << 0.8, -1.2, 0.3;
  const double bias = 10.0, noise_sd = 0.3;
  const auto d = synthetic(rng, 5000, w, bias, noise_sd);
  const auto model = bnn::linear::fit(d, bnn::linear::Options{}, rng);
  const auto& post = model.posterior();
  REQUIRE(post.mean.size() == 4);
  VectorXd truth(4);
  truth << bias, w;
  // Marginal posterior of each weight: t with dof 2 a_n and scale^2 (b_n/a_n) [Lambda_n^-1]_jj.
  const MatrixXd cov = post.precision.inverse() * (post.rate / post.shape);
  for (int j = 0; j < 4; ++j) {
    const double se = std::sqrt(cov(j, j));
    INFO("weight " << j << ": mean " << post.mean[j] << ", truth " << truth[j] << ", se " << se);
    CHECK(se < 0.01);
    CHECK(std::abs(post.mean[j] - truth[j]) < 5.0 * se);
  }
  // The predictive variance approaches the noise variance (relative sampling error ~ 2%).
  MatrixXd Xs(3, 3);
  Xs << 0.0, 0.0, 0.0, 1.0, -1.0, 0.5, -2.0, 0.3, 1.1;
  const auto pred = model.predict(Xs);
  for (int i = 0; i < 3; ++i) {
    INFO("test point " << i);
    CHECK(pred->variance(i) == Approx(noise_sd * noise_sd).epsilon(0.08));
    const double truth_mean = bias + Xs.row(i).dot(w);
    CHECK(std::abs(pred->mean(i) - truth_mean) < 0.05);
  }
  CHECK(bnn::test::diagnostic(model.report(), "noise_variance_mean") == Approx(noise_sd * noise_sd).epsilon(0.08));
}

// ------------------------------------------------------------------------------ (f)
TEST_CASE("linear options validation names the bad option", "[linear]") {
  CHECK_NOTHROW(bnn::linear::Options{}.validate());
  const auto message_for = [](auto set) {
    bnn::linear::Options o;
    set(o);
    return invalid_argument_message([&] { o.validate(); });
  };
  for (double bad : {0.0, -1.0, kNaN, kInf}) {
    INFO("value " << bad);
    CHECK_THAT(message_for([&](auto& o) { o.prior_precision = bad; }), Contains("linear: prior_precision"));
    CHECK_THAT(message_for([&](auto& o) { o.bias_precision = bad; }), Contains("linear: bias_precision"));
    CHECK_THAT(message_for([&](auto& o) { o.noise_shape = bad; }), Contains("linear: noise_shape"));
    CHECK_THAT(message_for([&](auto& o) { o.noise_rate = bad; }), Contains("linear: noise_rate"));
  }
  CHECK(message_for([](auto& o) { o.prior_precision = -2.5; }) ==
        "linear: prior_precision is -2.5, but must be finite and > 0");
  // fit() validates too.
  bnn::linear::Options o;
  o.noise_rate = 0.0;
  bnn::Rng rng(1);
  CHECK_THAT(invalid_argument_message([&] { bnn::linear::fit(tiny_data(), o, rng); }), Contains("linear: noise_rate"));
}

TEST_CASE("linear fit rejects malformed training data", "[linear]") {
  bnn::Rng rng(1);
  const bnn::linear::Options o;
  auto d = tiny_data();
  d.y.conservativeResize(3);
  CHECK_THAT(invalid_argument_message([&] { bnn::linear::fit(d, o, rng); }), Contains("linear"));
  d = tiny_data();
  d.X(2, 0) = kNaN;
  CHECK_THAT(invalid_argument_message([&] { bnn::linear::fit(d, o, rng); }), Contains("linear"));
  d = tiny_data();
  d.y[1] = kInf;
  CHECK_THAT(invalid_argument_message([&] { bnn::linear::fit(d, o, rng); }), Contains("NaN or Inf"));
  bnn::RegressionData empty;
  empty.X.resize(0, 2);
  CHECK_THAT(invalid_argument_message([&] { bnn::linear::fit(empty, o, rng); }), Contains("empty"));
}

// ------------------------------------------------------------------------------ (g)
TEST_CASE("linear via the registry equals a direct fit", "[linear]") {
  bnn::Rng data_rng(5);
  VectorXd w(2);
  w << 1.0, -0.5;
  const auto d = synthetic(data_rng, 40, w, 0.3, 0.4);
  MatrixXd Xs(4, 2);
  Xs << 0.0, 0.0, 1.0, 2.0, -1.5, 0.5, 3.0, -3.0;

  const auto& entry = bnn::find_method("linear");
  CHECK(entry.name == "linear");
  bnn::Rng rng_a(9), rng_b(9);
  const auto via_registry = entry.fit(d, {{"prior_precision", "2"}}, rng_a);
  bnn::linear::Options o;
  o.prior_precision = 2.0;
  const auto direct = bnn::linear::fit(d, o, rng_b);
  const auto p1 = via_registry->predict(Xs);
  const auto p2 = direct.predict(Xs);
  // A different alpha gives visibly different predictions, so the comparison is informative.
  const auto p_default = bnn::linear::fit(d, bnn::linear::Options{}, rng_b).predict(Xs);
  for (int i = 0; i < 4; ++i) {
    CHECK(p1->mean(i) == p2->mean(i));
    CHECK(p1->variance(i) == p2->variance(i));
    CHECK(p1->log_density(i, 0.7) == p2->log_density(i, 0.7));
    CHECK(p1->quantile(i, 0.9) == p2->quantile(i, 0.9));
  }
  CHECK(p1->mean(3) != p_default->mean(3));

  // Several options at once, including a bool.
  const auto registry_opt =
      entry.fit(d, {{"optimize_prior_precision", "true"}, {"noise_shape", "2.5"}, {"fit_bias", "false"}}, rng_a);
  o = bnn::linear::Options{};
  o.optimize_prior_precision = true;
  o.noise_shape = 2.5;
  o.fit_bias = false;
  const auto direct_opt = bnn::linear::fit(d, o, rng_b);
  const auto q1 = registry_opt->predict(Xs);
  const auto q2 = direct_opt.predict(Xs);
  for (int i = 0; i < 4; ++i) CHECK(q1->log_density(i, -0.2) == q2->log_density(i, -0.2));
}

TEST_CASE("registry rejects unknown methods, unknown options and bad values", "[linear]") {
  bnn::Rng rng(1);
  const auto d = tiny_data();
  const auto& entry = bnn::find_method("linear");
  CHECK_THAT(invalid_argument_message([&] {
               entry.fit(d, {{"prior_precison", "2"}}, rng);
             }),
             Contains("prior_precison") && Contains("linear"));
  CHECK_THAT(invalid_argument_message([&] {
               entry.fit(d, {{"prior_precision", "abc"}}, rng);
             }),
             Contains("linear: option prior_precision is 'abc', but must be"));
  CHECK_THAT(invalid_argument_message([&] {
               entry.fit(d, {{"fit_bias", "yes"}}, rng);
             }),
             Contains("linear: option fit_bias is 'yes'"));
  CHECK_THAT(invalid_argument_message([&] {
               entry.fit(d, {{"prior_precision", "-1"}}, rng);
             }),
             Contains("linear: prior_precision"));
  CHECK_THAT(invalid_argument_message([] { bnn::find_method("nope"); }), Contains("nope") && Contains("linear"));
  CHECK_THROWS_AS(bnn::find_method(""), std::invalid_argument);
  CHECK_THROWS_AS(bnn::find_method("Linear"), std::invalid_argument);
}

TEST_CASE("registry describes linear options and canonical configurations", "[linear]") {
  const auto& entry = bnn::find_method("linear");
  REQUIRE(entry.options.size() == 6);
  CHECK(entry.options[0].name == "prior_precision");
  CHECK(entry.options[0].type == "real");
  CHECK(entry.options[0].default_value == "1");
  CHECK(entry.options[1].default_value == "1e-06");
  CHECK(entry.options[4].name == "fit_bias");
  CHECK(entry.options[4].type == "bool");
  CHECK(entry.options[4].default_value == "true");
  CHECK(entry.canonical_config({}) ==
        "prior_precision=1;bias_precision=1e-06;noise_shape=1;noise_rate=1;fit_bias=true;"
        "optimize_prior_precision=false");
  CHECK(entry.canonical_config({{"prior_precision", " 2.50 "}, {"fit_bias", "0"}}) ==
        "prior_precision=2.5;bias_precision=1e-06;noise_shape=1;noise_rate=1;fit_bias=false;"
        "optimize_prior_precision=false");
  CHECK_THAT(invalid_argument_message([&] {
               entry.canonical_config({{"noise_rate", "0"}});
             }),
             Contains("linear: noise_rate"));
  CHECK_THAT(invalid_argument_message([&] { entry.canonical_config({{"bogus", "1"}}); }), Contains("bogus"));
}
