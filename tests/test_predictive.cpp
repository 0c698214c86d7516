// Numerical checks of the predictive distributions in methods/core/predictive.hpp: every
// closed form (density, moments, cdf, quantile, CRPS) is compared with an independent
// computation by quadrature over the density or by Monte Carlo.
#include <algorithm>
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "methods/core/expected_abs_normal.hpp"
#include "methods/core/normal.hpp"
#include "methods/core/predictive.hpp"
#include "methods/core/rng.hpp"
#include "tests/support/normal_density.hpp"

namespace {

using bnn::AffinePredictive;
using bnn::GaussianMixturePredictive;
using bnn::GaussianPredictive;
using bnn::Predictive;
using bnn::StudentTPredictive;
using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Integral of f over the real line: adaptive Gauss-Kronrod between consecutive breakpoints
// (placed where f has its mass) and exp-sinh on the two tails beyond them.
double integrate_line(const std::function<double(double)>& f, std::vector<double> breaks, double tol = 1e-13) {
  static boost::math::quadrature::exp_sinh<double> tail;
  std::sort(breaks.begin(), breaks.end());
  breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
  const double lo = breaks.front(), hi = breaks.back();
  double total = tail.integrate([&](double t) { return f(lo - t); }, 0.0, kInf, 10 * tol);
  for (std::size_t k = 0; k + 1 < breaks.size(); ++k)
    total += boost::math::quadrature::gauss_kronrod<double, 31>::integrate(f, breaks[k], breaks[k + 1], 12, tol);
  total += tail.integrate([&](double t) { return f(hi + t); }, 0.0, kInf, 10 * tol);
  return total;
}

// Integral of f over (-inf, y].
double integrate_below(const std::function<double(double)>& f, std::vector<double> breaks, double y) {
  static boost::math::quadrature::exp_sinh<double> tail;
  std::erase_if(breaks, [&](double b) { return b >= y; });
  breaks.push_back(y);
  std::sort(breaks.begin(), breaks.end());
  double total = tail.integrate([&](double t) { return f(breaks.front() - t); }, 0.0, kInf, 1e-12);
  for (std::size_t k = 0; k + 1 < breaks.size(); ++k)
    total += boost::math::quadrature::gauss_kronrod<double, 61>::integrate(f, breaks[k], breaks[k + 1], 12, 1e-13);
  return total;
}

// A distribution under test with points placed where its density has mass (for quadrature)
// and whether its variance is finite.
struct Case {
  std::string name;
  std::unique_ptr<Predictive> dist;
  std::vector<std::vector<double>> breaks;  // per test point
  bool finite_mean = true;
  bool finite_variance = true;
};

std::vector<double> around(double center, double spread, std::initializer_list<double> offsets) {
  std::vector<double> out;
  for (double o : offsets) out.push_back(center + spread * o);
  return out;
}

Case gaussian_case() {
  VectorXd m(3), v(3);
  m << 0.3, -2.0, 5.0;
  v << 1.0, 0.04, 9.0;
  Case c{"gaussian", std::make_unique<GaussianPredictive>(m, v), {}};
  for (Index i = 0; i < m.size(); ++i) c.breaks.push_back(around(m[i], std::sqrt(v[i]), {-8, -3, -1, 0, 1, 3, 8}));
  return c;
}

Case student_case(double dof) {
  VectorXd loc(2), sc(2);
  loc << 0.5, -3.0;
  sc << 1.0, 0.2;
  Case c{"student-t dof " + std::to_string(dof), std::make_unique<StudentTPredictive>(loc, sc, dof), {}};
  for (Index i = 0; i < loc.size(); ++i) c.breaks.push_back(around(loc[i], sc[i], {-10, -3, -1, 0, 1, 3, 10}));
  c.finite_mean = dof > 1.0;
  c.finite_variance = dof > 2.0;
  return c;
}

// Two points, five components with random means, variances and unequal weights.
struct MixtureParameters {
  MatrixXd means, variances;  // point x component
  VectorXd weights;
};
MixtureParameters mixture_parameters() {
  bnn::Rng rng(20240611);
  const Index points = 2, comps = 5;
  MixtureParameters p{MatrixXd(points, comps), MatrixXd(points, comps), VectorXd(comps)};
  for (Index i = 0; i < points; ++i)
    for (Index k = 0; k < comps; ++k) {
      p.means(i, k) = bnn::uniform(rng, -3.0, 3.0);
      p.variances(i, k) = std::exp(bnn::uniform(rng, std::log(0.05), std::log(2.0)));
    }
  p.weights << 0.05, 0.4, 0.1, 0.3, 0.15;
  return p;
}

Case mixture_case() {
  const auto [m, v, w] = mixture_parameters();
  Case c{"mixture", std::make_unique<GaussianMixturePredictive>(m, v, w), {}};
  for (Index i = 0; i < m.rows(); ++i) {
    std::vector<double> b;
    for (Index k = 0; k < m.cols(); ++k)
      for (double o : {-8.0, -3.0, 0.0, 3.0, 8.0}) b.push_back(m(i, k) + o * std::sqrt(v(i, k)));
    c.breaks.push_back(b);
  }
  return c;
}

Case affine(Case base, double shift, double scale) {
  Case c{"affine(" + base.name + ")", std::make_unique<AffinePredictive>(std::move(base.dist), shift, scale), {}};
  c.breaks.resize(base.breaks.size());
  for (std::size_t i = 0; i < base.breaks.size(); ++i)
    for (double x : base.breaks[i]) c.breaks[i].push_back(shift + scale * x);
  c.finite_mean = base.finite_mean;
  c.finite_variance = base.finite_variance;
  return c;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  cases.push_back(gaussian_case());
  for (double dof : {1.5, 3.0, 30.0}) cases.push_back(student_case(dof));
  cases.push_back(mixture_case());
  cases.push_back(affine(gaussian_case(), 10.0, 3.5));
  for (double dof : {1.5, 3.0, 30.0}) cases.push_back(affine(student_case(dof), -4.0, 0.25));
  cases.push_back(affine(mixture_case(), 2.0, 7.0));
  return cases;
}

// Centre and spread of the breakpoints, used to place evaluation points.
double centre(const Case& c, Index i) { return 0.5 * (c.breaks[i].front() + c.breaks[i].back()); }
double spread(const Case& c, Index i) { return (c.breaks[i].back() - c.breaks[i].front()) / 16.0; }

}  // namespace

// ------------------------------------------------------------------------------ helpers
TEST_CASE("normal helpers match reference values", "[predictive]") {
  CHECK(bnn::normal_pdf(0.0) == Approx(0.3989422804014327).epsilon(1e-15));
  CHECK(bnn::normal_pdf(1.5) == Approx(0.12951759566589174).epsilon(1e-14));
  CHECK(bnn::normal_cdf(0.0) == 0.5);
  CHECK(bnn::normal_cdf(1.959963984540054) == Approx(0.975).epsilon(1e-14));
  CHECK(bnn::normal_cdf(-1.0) == Approx(0.15865525393145707).epsilon(1e-14));
  // Far tail: must be relatively accurate, not 0 or cancellation noise.
  CHECK(bnn::normal_cdf(-30.0) == Approx(4.906713927148187e-198).epsilon(1e-12));
  CHECK(bnn::normal_cdf(10.0) == 1.0);
  CHECK(bnn::normal_log_pdf(1.0, 0.0, 1.0) == Approx(std::log(0.24197072451914337)).epsilon(1e-14));
  CHECK(bnn::normal_log_pdf(3.0, 1.0, 4.0) == Approx(-0.5 * std::log(8.0 * std::numbers::pi) - 0.5).epsilon(1e-14));
}

TEST_CASE("log_sum_exp is exact and overflow-safe", "[predictive]") {
  VectorXd v(3);
  v << 0.1, -2.0, 1.3;
  CHECK(bnn::log_sum_exp(v) == Approx(std::log(std::exp(0.1) + std::exp(-2.0) + std::exp(1.3))).epsilon(1e-15));
  v << 1000.0, 1000.0, -kInf;
  CHECK(bnn::log_sum_exp(v) == Approx(1000.0 + std::log(2.0)).epsilon(1e-15));
  v << -1000.0, -1001.0, -kInf;
  CHECK(bnn::log_sum_exp(v) == Approx(-1000.0 + std::log1p(std::exp(-1.0))).epsilon(1e-15));
  v.setConstant(-kInf);
  CHECK(bnn::log_sum_exp(v) == -kInf);
  v << 0.0, kInf, 1.0;
  CHECK(bnn::log_sum_exp(v) == kInf);
}

// ------------------------------------------------------------------------------ (a) (b) (c)
TEST_CASE("densities integrate to one and match mean and variance", "[predictive]") {
  for (const auto& c : all_cases()) {
    for (Index i = 0; i < c.dist->size(); ++i) {
      INFO(c.name << ", point " << i);
      const auto pdf = [&](double y) { return std::exp(c.dist->log_density(i, y)); };
      CHECK(integrate_line(pdf, c.breaks[i]) == Approx(1.0).epsilon(1e-9));
      if (!c.finite_mean) {
        CHECK(std::isnan(c.dist->mean(i)));
        continue;
      }
      const double m = c.dist->mean(i);
      // Centred first moment: E[Y - m] = 0 (heavy tails converge slowly, hence the margin).
      const double first = integrate_line([&](double y) { return (y - m) * pdf(y); }, c.breaks[i]);
      CHECK(std::abs(first) < 1e-6 * spread(c, i));
      if (!c.finite_variance) {
        CHECK(c.dist->variance(i) == kInf);
        continue;
      }
      const double var = integrate_line([&](double y) { return (y - m) * (y - m) * pdf(y); }, c.breaks[i]);
      CHECK(c.dist->variance(i) == Approx(var).epsilon(1e-8));
    }
  }
}

TEST_CASE("cdf equals the integral of the density", "[predictive]") {
  for (const auto& c : all_cases()) {
    for (Index i = 0; i < c.dist->size(); ++i) {
      const auto pdf = [&](double y) { return std::exp(c.dist->log_density(i, y)); };
      for (double z : {-6.0, -2.0, -0.7, 0.0, 0.4, 1.9, 5.0}) {
        const double y = centre(c, i) + z * spread(c, i);
        INFO(c.name << ", point " << i << ", y = " << y);
        const double F = integrate_below(pdf, c.breaks[i], y);
        CHECK(c.dist->cdf(i, y) == Approx(F).epsilon(1e-9).margin(1e-14));
      }
      // Monotone between the tails, with limits 0 and 1.
      CHECK(c.dist->cdf(i, centre(c, i) - 1e6 * spread(c, i)) < 1e-6);
      CHECK(c.dist->cdf(i, centre(c, i) + 1e6 * spread(c, i)) > 1.0 - 1e-6);
    }
  }
}

TEST_CASE("quantile inverts cdf", "[predictive]") {
  for (const auto& c : all_cases()) {
    for (Index i = 0; i < c.dist->size(); ++i) {
      for (double p : {1e-6, 0.01, 0.25, 0.5, 0.8, 0.99, 0.999999}) {
        INFO(c.name << ", point " << i << ", p = " << p);
        const double q = c.dist->quantile(i, p);
        CHECK(c.dist->cdf(i, q) == Approx(p).epsilon(1e-9));
      }
      for (double z : {-3.0, -0.5, 0.0, 1.2, 2.5}) {
        const double y = centre(c, i) + z * spread(c, i);
        INFO(c.name << ", point " << i << ", y = " << y);
        CHECK(c.dist->quantile(i, c.dist->cdf(i, y)) == Approx(y).epsilon(1e-9).margin(1e-9 * spread(c, i)));
      }
    }
  }
}

TEST_CASE("generic quantile rejects p outside (0, 1)", "[predictive]") {
  auto c = mixture_case();
  CHECK_THROWS_AS(c.dist->quantile(0, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(c.dist->quantile(0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(c.dist->quantile(0, kNaN), std::invalid_argument);
}

// ------------------------------------------------------------------------------ (d) CRPS
TEST_CASE("closed-form crps equals the generic numerical crps", "[predictive]") {
  for (const auto& c : all_cases()) {
    for (Index i = 0; i < c.dist->size(); ++i) {
      for (double z : {-7.0, -1.3, 0.0, 0.6, 2.0, 4.5}) {
        const double y = centre(c, i) + z * spread(c, i);
        INFO(c.name << ", point " << i << ", y = " << y);
        const double closed = c.dist->crps(i, y);
        const double generic = c.dist->Predictive::crps(i, y);
        CHECK(closed > 0.0);
        CHECK(closed == Approx(generic).epsilon(1e-8));
      }
    }
  }
}

TEST_CASE("gaussian crps reference value", "[predictive]") {
  VectorXd m(2), v(2);
  m << 0.0, 1.0;
  v << 1.0, 4.0;
  GaussianPredictive g(m, v);
  // N(0,1) at y = 0: 2 phi(0) - 1/sqrt(pi).
  CHECK(g.crps(0, 0.0) == Approx(0.2336949772551091).epsilon(1e-14));
  // Scale equivariance: N(1, 4) at 1 + 2z equals 2 * CRPS(N(0,1), z).
  CHECK(g.crps(1, 1.0 + 2.0 * 0.7) == Approx(2.0 * g.crps(0, 0.7)).epsilon(1e-14));
  // Far from the mean the CRPS approaches |y - mu| - E|X - X'| / 2 = |y| - 1/sqrt(pi).
  CHECK(g.crps(0, -40.0) == Approx(40.0 - 1.0 / std::sqrt(std::numbers::pi)).epsilon(1e-14));
}

// CRPS = E|X - y| - E|X - X'| / 2 with both expectations by quadrature over the density.
double crps_by_double_quadrature(const Case& c, Index i, double y) {
  const auto pdf = [&](double x) { return std::exp(c.dist->log_density(i, x)); };
  const auto& breaks = c.breaks[i];
  const auto [lo, hi] = std::minmax_element(breaks.begin(), breaks.end());
  // Breakpoints plus the kink of |x - .| when it falls among them (outside, f is tiny there).
  const auto with_kink = [&](double x) {
    std::vector<double> b = breaks;
    if (x > *lo && x < *hi) b.push_back(x);
    return b;
  };
  const double abs_dev = integrate_line([&](double x) { return std::abs(x - y) * pdf(x); }, with_kink(y), 1e-10);
  const double gini = integrate_line(
      [&](double x) {
        const double fx = pdf(x);
        if (fx == 0.0) return 0.0;
        return fx * integrate_line([&](double u) { return std::abs(x - u) * pdf(u); }, with_kink(x), 1e-8);
      },
      breaks, 1e-8);
  return abs_dev - 0.5 * gini;
}

TEST_CASE("crps equals E|X-y| - E|X-X'|/2 by brute-force quadrature", "[predictive]") {
  std::vector<Case> cases;
  cases.push_back(gaussian_case());
  cases.push_back(student_case(3.0));
  cases.push_back(mixture_case());
  for (const auto& c : cases) {
    for (double z : {-2.0, 0.3, 3.0}) {
      const Index i = 0;
      const double y = centre(c, i) + z * spread(c, i);
      INFO(c.name << ", y = " << y);
      CHECK(c.dist->crps(i, y) == Approx(crps_by_double_quadrature(c, i, y)).epsilon(1e-7));
    }
  }
}

TEST_CASE("gaussian crps agrees with a Monte Carlo estimate", "[predictive]") {
  VectorXd m(1), v(1);
  m << 1.5;
  v << 2.25;
  GaussianPredictive g(m, v);
  const double y = 0.2;
  bnn::Rng rng(7);
  const int n = 200000;
  // Per-draw estimator |X - y| - |X - X'|/2 with X, X' independent; its mean is the CRPS.
  double sum = 0.0, sum_sq = 0.0;
  for (int k = 0; k < n; ++k) {
    const double x = 1.5 + 1.5 * bnn::standard_normal(rng);
    const double x2 = 1.5 + 1.5 * bnn::standard_normal(rng);
    const double s = std::abs(x - y) - 0.5 * std::abs(x - x2);
    sum += s;
    sum_sq += s * s;
  }
  const double mc = sum / n;
  const double se = std::sqrt((sum_sq / n - mc * mc) / n);
  CHECK(std::abs(g.crps(0, y) - mc) < 5.0 * se);
  CHECK(se < 0.005);  // the check above is informative
}

// ------------------------------------------------------------------------------ (e) affine
TEST_CASE("affine map of a gaussian is the transformed gaussian", "[predictive]") {
  VectorXd m(2), v(2);
  m << 0.4, -1.0;
  v << 0.5, 2.0;
  const double a = -3.0, s = 2.5;
  AffinePredictive t(std::make_unique<GaussianPredictive>(m, v), a, s);
  GaussianPredictive direct((a + s * m.array()).matrix(), (s * s * v.array()).matrix());
  GaussianPredictive base(m, v);
  CHECK(t.kind() == "gaussian");
  CHECK(t.size() == 2);
  for (Index i = 0; i < 2; ++i) {
    CHECK(t.mean(i) == Approx(direct.mean(i)).epsilon(1e-14));
    CHECK(t.variance(i) == Approx(direct.variance(i)).epsilon(1e-14));
    for (double y : {-9.0, -3.0, 0.0, 2.2}) {
      INFO("y = " << y);
      CHECK(t.log_density(i, y) == Approx(direct.log_density(i, y)).epsilon(1e-13));
      CHECK(t.log_density(i, y) == Approx(base.log_density(i, (y - a) / s) - std::log(s)).epsilon(1e-13));
      CHECK(t.cdf(i, y) == Approx(direct.cdf(i, y)).epsilon(1e-13));
      CHECK(t.crps(i, y) == Approx(direct.crps(i, y)).epsilon(1e-12));
      CHECK(t.crps(i, y) == Approx(s * base.crps(i, (y - a) / s)).epsilon(1e-13));
    }
    for (double p : {0.001, 0.3, 0.9}) CHECK(t.quantile(i, p) == Approx(direct.quantile(i, p)).epsilon(1e-12));
  }
}

TEST_CASE("affine map of a student-t is the transformed student-t", "[predictive]") {
  VectorXd loc(2), sc(2);
  loc << 0.4, -1.0;
  sc << 0.5, 2.0;
  const double a = 7.0, s = 0.3;
  for (double dof : {1.5, 3.0, 30.0}) {
    INFO("dof = " << dof);
    AffinePredictive t(std::make_unique<StudentTPredictive>(loc, sc, dof), a, s);
    StudentTPredictive direct((a + s * loc.array()).matrix(), (s * sc.array()).matrix(), dof);
    CHECK(t.kind() == "student-t");
    for (Index i = 0; i < 2; ++i) {
      CHECK(t.mean(i) == Approx(direct.mean(i)).epsilon(1e-14));
      if (dof > 2.0)
        CHECK(t.variance(i) == Approx(direct.variance(i)).epsilon(1e-14));
      else
        CHECK(t.variance(i) == kInf);
      for (double y : {5.0, 6.8, 7.0, 8.5}) {
        INFO("y = " << y);
        CHECK(t.log_density(i, y) == Approx(direct.log_density(i, y)).epsilon(1e-13));
        CHECK(t.cdf(i, y) == Approx(direct.cdf(i, y)).epsilon(1e-13));
        CHECK(t.crps(i, y) == Approx(direct.crps(i, y)).epsilon(1e-12));
      }
      for (double p : {0.001, 0.3, 0.9}) CHECK(t.quantile(i, p) == Approx(direct.quantile(i, p)).epsilon(1e-12));
    }
  }
}

TEST_CASE("affine map of a mixture is the transformed mixture", "[predictive]") {
  MatrixXd m(1, 3), v(1, 3);
  m << -1.0, 0.5, 2.0;
  v << 0.3, 1.0, 0.1;
  VectorXd w(3);
  w << 0.2, 0.5, 0.3;
  const double a = 1.0, s = 4.0;
  AffinePredictive t(std::make_unique<GaussianMixturePredictive>(m, v, w), a, s);
  GaussianMixturePredictive direct((a + s * m.array()).matrix(), (s * s * v.array()).matrix(), w);
  CHECK(t.kind() == "gaussian-mixture");
  CHECK(t.mean(0) == Approx(direct.mean(0)).epsilon(1e-14));
  CHECK(t.variance(0) == Approx(direct.variance(0)).epsilon(1e-14));
  for (double y : {-10.0, 0.0, 3.3, 9.0}) {
    INFO("y = " << y);
    CHECK(t.log_density(0, y) == Approx(direct.log_density(0, y)).epsilon(1e-13));
    CHECK(t.cdf(0, y) == Approx(direct.cdf(0, y)).epsilon(1e-13));
    CHECK(t.crps(0, y) == Approx(direct.crps(0, y)).epsilon(1e-12));
  }
  for (double p : {0.001, 0.3, 0.9}) CHECK(t.quantile(0, p) == Approx(direct.quantile(0, p)).epsilon(1e-10));
}

// ------------------------------------------------------------------------------ (f) mixture
TEST_CASE("mixture log density equals the direct weighted sum", "[predictive]") {
  const auto c = mixture_case();
  const auto& mix = dynamic_cast<const GaussianMixturePredictive&>(*c.dist);
  const auto [m, v, w] = mixture_parameters();  // the parameters the case was built with
  CHECK(mix.components() == 5);
  for (Index i = 0; i < 2; ++i) {
    for (double y : {-4.0, -1.0, 0.0, 0.7, 2.5, 6.0}) {
      double density = 0.0;
      for (Index k = 0; k < 5; ++k) density += w[k] * bnn::test::normal_density(y, m(i, k), v(i, k));
      INFO("point " << i << ", y = " << y);
      CHECK(mix.log_density(i, y) == Approx(std::log(density)).epsilon(1e-13));
    }
  }
}

TEST_CASE("mixture log density is stable far in the tails", "[predictive]") {
  MatrixXd m(1, 3), v(1, 3);
  m << -1.0, 0.0, 2.0;
  v << 0.25, 1.0, 0.01;
  VectorXd w(3);
  w << 0.3, 0.6, 0.1;
  GaussianMixturePredictive mix(m, v, w);
  for (double y : {40.0, -40.0, 60.0, 100.0}) {  // >= 38 sd from every component
    // Reference in long double, where exp(-800) and smaller are still representable.
    long double density = 0.0L;
    for (Index k = 0; k < 3; ++k) {
      const long double r = static_cast<long double>(y) - m(0, k);
      density += w[k] * std::exp(-0.5L * r * r / v(0, k)) / std::sqrt(2.0L * std::numbers::pi_v<long double> * v(0, k));
    }
    INFO("y = " << y);
    // A naive double-precision sum underflows to log(0) = -inf here.
    const double lp = mix.log_density(0, y);
    REQUIRE(std::isfinite(lp));
    CHECK(lp == Approx(static_cast<double>(std::log(density))).epsilon(1e-12));
  }
}

TEST_CASE("mixture special cases reduce to simpler distributions", "[predictive]") {
  VectorXd gm(1), gv(1);
  gm << 0.7;
  gv << 1.7;
  GaussianPredictive g(gm, gv);
  GaussianMixturePredictive single(MatrixXd::Constant(1, 1, 0.7), MatrixXd::Constant(1, 1, 1.7));
  // Identical components give back the component.
  GaussianMixturePredictive same(MatrixXd::Constant(1, 4, 0.7), MatrixXd::Constant(1, 4, 1.7));
  for (double y : {-3.0, 0.7, 2.0}) {
    CHECK(single.log_density(0, y) == Approx(g.log_density(0, y)).epsilon(1e-14));
    CHECK(same.log_density(0, y) == Approx(g.log_density(0, y)).epsilon(1e-13));
    CHECK(same.cdf(0, y) == Approx(g.cdf(0, y)).epsilon(1e-14));
    CHECK(same.crps(0, y) == Approx(g.crps(0, y)).epsilon(1e-12));
  }
  CHECK(same.mean(0) == Approx(0.7).epsilon(1e-14));
  CHECK(same.variance(0) == Approx(1.7).epsilon(1e-14));
  // The two-argument constructor uses equal weights.
  MatrixXd m(1, 2), v(1, 2);
  m << -1.0, 3.0;
  v << 0.5, 2.0;
  GaussianMixturePredictive eq(m, v);
  GaussianMixturePredictive explicit_eq(m, v, VectorXd::Constant(2, 0.5));
  CHECK(eq.log_density(0, 0.4) == Approx(explicit_eq.log_density(0, 0.4)).epsilon(1e-15));
  CHECK(eq.mean(0) == Approx(1.0).epsilon(1e-15));
  // Law of total variance: mean of variances + variance of means = 1.25 + 4.
  CHECK(eq.variance(0) == Approx(5.25).epsilon(1e-15));
  // A zero-weight component is ignored.
  VectorXd w0(2);
  w0 << 1.0, 0.0;
  GaussianMixturePredictive dropped(m, v, w0);
  VectorXd m1(1), v1(1);
  m1 << -1.0;
  v1 << 0.5;
  GaussianPredictive only(m1, v1);
  for (double y : {-2.0, 3.0}) {
    CHECK(dropped.log_density(0, y) == Approx(only.log_density(0, y)).epsilon(1e-14));
    CHECK(dropped.crps(0, y) == Approx(only.crps(0, y)).epsilon(1e-12));
  }
}

TEST_CASE("student-t reference values and large-dof limit", "[predictive]") {
  VectorXd loc(1), sc(1);
  loc << 0.0;
  sc << 1.0;
  // Cauchy-like dof = 1: density 1/(pi (1 + y^2)), cdf 1/2 + atan(y)/pi, no mean.
  StudentTPredictive cauchy(loc, sc, 1.0);
  CHECK(std::exp(cauchy.log_density(0, 2.0)) == Approx(1.0 / (5.0 * std::numbers::pi)).epsilon(1e-14));
  CHECK(cauchy.cdf(0, 2.0) == Approx(0.5 + std::atan(2.0) / std::numbers::pi).epsilon(1e-14));
  CHECK(std::isnan(cauchy.mean(0)));
  CHECK(cauchy.variance(0) == kInf);
  CHECK(cauchy.crps(0, 0.5) == Approx(cauchy.Predictive::crps(0, 0.5)).epsilon(1e-12));
  // dof = 3, scale 2: variance = s^2 nu / (nu - 2) = 12.
  sc << 2.0;
  StudentTPredictive t3(loc, sc, 3.0);
  CHECK(t3.variance(0) == Approx(12.0).epsilon(1e-15));
  CHECK(t3.dof() == 3.0);
  // Very large dof approaches the Gaussian.
  sc << 1.0;
  StudentTPredictive big(loc, sc, 1e7);
  GaussianPredictive g(loc, VectorXd::Ones(1));
  for (double y : {-2.0, 0.0, 1.0}) {
    CHECK(big.log_density(0, y) == Approx(g.log_density(0, y)).epsilon(1e-6));
    CHECK(big.crps(0, y) == Approx(g.crps(0, y)).epsilon(1e-6));
  }
}

// ------------------------------------------------------------------------------ (g) validation
TEST_CASE("constructors reject inconsistent arguments", "[predictive]") {
  const VectorXd two = VectorXd::Ones(2), three = VectorXd::Ones(3);
  CHECK_THROWS_AS(GaussianPredictive(two, three), std::invalid_argument);
  CHECK_NOTHROW(GaussianPredictive(two, two));

  CHECK_THROWS_AS(StudentTPredictive(two, three, 3.0), std::invalid_argument);
  CHECK_THROWS_AS(StudentTPredictive(two, two, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(StudentTPredictive(two, two, -1.0), std::invalid_argument);
  CHECK_THROWS_AS(StudentTPredictive(two, two, kNaN), std::invalid_argument);
  CHECK_NOTHROW(StudentTPredictive(two, two, 0.5));

  const MatrixXd m23 = MatrixXd::Zero(2, 3), v23 = MatrixXd::Ones(2, 3);
  VectorXd w3(3);
  w3 << 0.2, 0.3, 0.5;
  CHECK_NOTHROW(GaussianMixturePredictive(m23, v23, w3));
  CHECK_THROWS_AS(GaussianMixturePredictive(m23, MatrixXd::Ones(3, 3), w3), std::invalid_argument);
  CHECK_THROWS_AS(GaussianMixturePredictive(m23, MatrixXd::Ones(2, 2), w3), std::invalid_argument);
  CHECK_THROWS_AS(GaussianMixturePredictive(m23, v23, VectorXd::Constant(2, 0.5)), std::invalid_argument);
  CHECK_THROWS_AS(GaussianMixturePredictive(MatrixXd(2, 0), MatrixXd(2, 0), VectorXd(0)), std::invalid_argument);
  CHECK_THROWS_AS(GaussianMixturePredictive(MatrixXd(2, 0), MatrixXd(2, 0)), std::invalid_argument);
  VectorXd bad(3);
  bad << 0.5, 0.6, -0.1;  // sums to one but has a negative weight
  CHECK_THROWS_AS(GaussianMixturePredictive(m23, v23, bad), std::invalid_argument);
  bad << 0.2, 0.3, 0.4;  // does not sum to one
  CHECK_THROWS_AS(GaussianMixturePredictive(m23, v23, bad), std::invalid_argument);
  bad << 0.5, 0.5, kNaN;
  CHECK_THROWS_AS(GaussianMixturePredictive(m23, v23, bad), std::invalid_argument);
  bad << kInf, 0.5, 0.5;
  CHECK_THROWS_AS(GaussianMixturePredictive(m23, v23, bad), std::invalid_argument);

  const auto gauss = [&] { return std::make_unique<GaussianPredictive>(two, two); };
  CHECK_NOTHROW(AffinePredictive(gauss(), -1.0, 1e-3));
  CHECK_THROWS_AS(AffinePredictive(nullptr, 0.0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(AffinePredictive(gauss(), 0.0, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(AffinePredictive(gauss(), 0.0, -2.0), std::invalid_argument);
  CHECK_THROWS_AS(AffinePredictive(gauss(), 0.0, kNaN), std::invalid_argument);
  CHECK_THROWS_AS(AffinePredictive(gauss(), 0.0, kInf), std::invalid_argument);
  CHECK_THROWS_AS(AffinePredictive(gauss(), kNaN, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(AffinePredictive(gauss(), -kInf, 1.0), std::invalid_argument);
}

TEST_CASE("tabulated E|m + sqrt(v) Z| equals the exact form", "[predictive]") {
  double worst = 0.0;
  for (double v : {1e-6, 0.01, 0.3, 1.0, 7.0, 250.0})
    for (double t = 0.0; t <= 12.0; t += 1.0 / 1024.0 + 1e-7) {  // off the table's nodes
      const double s = std::sqrt(v);
      for (double m : {t * s, -t * s}) {
        const double error = std::abs(bnn::expected_abs_normal(m, v) - bnn::expected_abs_normal_exact(m, v)) / s;
        worst = std::max(worst, error);
      }
    }
  CHECK(worst < 1e-12);
  CHECK(bnn::expected_abs_normal(0.0, 1.0) == Approx(2.0 / std::sqrt(2.0 * std::numbers::pi)).epsilon(1e-13));
  CHECK(bnn::expected_abs_normal(-3.5, 0.0) == 3.5);  // a point mass
  CHECK(bnn::expected_abs_normal(1e3, 1.0) == 1e3);   // beyond the table
}

TEST_CASE("mixture crps with thousands of components equals the exact pairwise sum", "[predictive]") {
  bnn::Rng rng(12);
  const Eigen::Index points = 3, components = 1200;
  Eigen::MatrixXd means(points, components), variances(points, components);
  for (Eigen::Index i = 0; i < points; ++i)
    for (Eigen::Index c = 0; c < components; ++c) {
      means(i, c) = 0.2 * bnn::standard_normal(rng) + static_cast<double>(i);
      variances(i, c) = 0.01 + 0.05 * bnn::uniform01(rng);
    }
  const bnn::GaussianMixturePredictive mixture(means, variances);
  const double w = 1.0 / static_cast<double>(components);
  for (Eigen::Index i = 0; i < points; ++i) {
    const double y = static_cast<double>(i) + 0.1;
    double first = 0.0, second = 0.0;
    for (Eigen::Index c = 0; c < components; ++c) {
      first += w * bnn::expected_abs_normal_exact(y - means(i, c), variances(i, c));
      for (Eigen::Index d = 0; d < components; ++d)
        second += w * w * bnn::expected_abs_normal_exact(means(i, c) - means(i, d), variances(i, c) + variances(i, d));
    }
    CHECK(mixture.crps(i, y) == Approx(first - 0.5 * second).epsilon(1e-11));
  }
}
