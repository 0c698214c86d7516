// Ensemble learning (methods/ensemble): the erf-unit expectations against brute-force
// quadrature, their Price-theorem gradients and the bound's gradient for every covariance form
// against finite differences, <E_D> against Monte Carlo, the exact Gaussian posterior of the
// part of the model that is linear in the weights, the bound's value against the linear model's
// log evidence and KL divergences, the hyperparameter fixed point, and fits.
#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <catch2/catch.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <numbers>

#include "methods/core/normal.hpp"
#include "methods/core/rng.hpp"
#include "methods/ensemble/ensemble.hpp"
#include "methods/ensemble/erf_moments.hpp"
#include "methods/ensemble/expected_error.hpp"
#include "methods/registry.hpp"
#include "tests/support/errors.hpp"
#include "tests/support/finite_difference.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"

namespace {

using namespace bnn::ensemble;
using bnn::normal_cdf;
using bnn::normal_pdf;
using bnn::test::close_to;
using bnn::test::numeric_derivative;
using bnn::test::numeric_gradient;
using bnn::test::random_vector;
using Eigen::MatrixXd;
using Eigen::VectorXd;
constexpr double kInf = std::numeric_limits<double>::infinity();

// E[g(a)] for a ~ N(mean, cov), 2-D, by a 100 x 100 Gauss-Legendre product rule over the
// whitened variables on [-10, 10]^2 (the normal mass outside is below 1e-22).
template <class G>
double brute_force_2d(const Eigen::Vector2d& mean, const Eigen::Matrix2d& cov, G g) {
  const Eigen::Matrix2d L = cov.llt().matrixL();
  using boost::math::quadrature::gauss;
  auto outer = [&](double e1) {
    auto inner = [&](double e2) {
      const Eigen::Vector2d a = mean + L * Eigen::Vector2d(e1, e2);
      return normal_pdf(e2) * g(a[0], a[1]);
    };
    return normal_pdf(e1) * gauss<double, 100>::integrate(inner, -10.0, 10.0);
  };
  return gauss<double, 100>::integrate(outer, -10.0, 10.0);
}

// E[g(a)] for a ~ N(mean, variance), 1-D, same rule.
template <class G>
double brute_force_1d(double mean, double variance, G g) {
  using boost::math::quadrature::gauss;
  return gauss<double, 100>::integrate([&](double e) { return normal_pdf(e) * g(mean + std::sqrt(variance) * e); },
                                       -10.0, 10.0);
}

MatrixXd random_spd(Eigen::Index n, double scale, bnn::Rng& rng) {
  return bnn::test::random_spd(n, rng, scale, 0.05 * scale);
}

// The derivative of value(c) along the symmetric perturbation of the entries (r, s) and (s, r)
// of the matrix c, by central differences with step h.
template <class Matrix, class F>
double symmetric_derivative(F value, const Matrix& c, int r, int s, double h) {
  return numeric_derivative(
      [&](double t) {
        Matrix moved = c;
        moved(r, s) += t;
        if (r != s) moved(s, r) += t;
        return value(moved);
      },
      0.0, h);
}

}  // namespace

TEST_CASE("bivariate normal CDF agrees with quadrature, including h = 0 and k = 0", "[ensemble]") {
  for (double rho : {-0.96, -0.9, -0.3, 0.0, 0.2, 0.5, 0.8, 0.92, 0.93, 0.97})
    for (double h : {-1.3, 0.0, 0.4})
      for (double k : {-0.7, 0.0, 1.8}) {
        // Phi2 = int_{-inf}^{h} phi(x) Phi((k - rho x) / sqrt(1 - rho^2)) dx.
        using boost::math::quadrature::gauss_kronrod;
        const double r = std::sqrt(1.0 - rho * rho);
        const double expected = gauss_kronrod<double, 61>::integrate(
            [&](double x) { return normal_pdf(x) * 0.5 * std::erfc(-(k - rho * x) / (r * std::numbers::sqrt2)); },
            -kInf, h, 15, 1e-14);
        CHECK(bivariate_normal_cdf(h, k, rho) == Approx(expected).margin(1e-13));
      }
}

TEST_CASE("bivariate normal CDF and erf pair tables at |rho| = 1 and beyond it by rounding", "[ensemble]") {
  for (double h : {-1.3, 0.0, 0.4})
    for (double k : {-0.7, 0.0, 1.8}) {
      CHECK(bivariate_normal_cdf(h, k, 1.0) == Approx(normal_cdf(std::min(h, k))).margin(1e-15));
      CHECK(bivariate_normal_cdf(h, k, 1.0 + 1e-16) == bivariate_normal_cdf(h, k, 1.0));
      CHECK(bivariate_normal_cdf(h, k, -1.0) ==
            Approx(std::max(0.0, normal_cdf(h) + normal_cdf(k) - 1.0)).margin(1e-15));
      // continuous with the regular branch
      CHECK(bivariate_normal_cdf(h, k, 1.0 - 1e-9) == Approx(bivariate_normal_cdf(h, k, 1.0)).margin(1e-4));
    }
  // Pre-activations with variances of 1e20 whose correlation rounds to 1 (an input 1e10 training
  // sds away): every entry finite, and close to the table of a slightly smaller correlation.
  const double v = 1e20;
  const PairTable at_one = pair_table(3e9, -2e9, v, v, v + 1.0);
  const PairTable near_one = pair_table(3e9, -2e9, v, v, (1.0 - 1e-12) * v);
  for (int p = 0; p <= kMaxOrder; ++p)
    for (int q = 0; p + q <= kMaxOrder; ++q) CHECK(std::isfinite(at_one.value[p][q]));
  CHECK(at_one.value[0][0] == Approx(near_one.value[0][0]).margin(1e-9));
}

TEST_CASE("erf-unit expectations E[s^(p)(a_i) s^(q)(a_j)] equal brute-force quadrature", "[ensemble]") {
  struct Case {
    double mi, mj, vi, vj, cij;
  };
  for (const Case c : {Case{0.3, -0.8, 0.5, 1.2, 0.4}, Case{-1.5, 0.2, 2.0, 0.1, -0.3}, Case{0.0, 0.0, 0.7, 0.7, 0.7},
                       Case{2.0, 1.0, 0.01, 3.0, 0.0}}) {
    const PairTable table = pair_table(c.mi, c.mj, c.vi, c.vj, c.cij);
    Eigen::Matrix2d cov;
    cov << c.vi, c.cij, c.cij, c.vj;
    const bool singular = std::abs(c.vi * c.vj - c.cij * c.cij) < 1e-12;
    for (int p = 0; p <= kMaxOrder; ++p)
      for (int q = 0; p + q <= kMaxOrder; ++q) {
        double expected;
        if (singular) {
          expected = brute_force_1d(c.mi, c.vi, [&](double a) { return erf_unit(a, p) * erf_unit(a, q); });
        } else {
          expected = brute_force_2d(Eigen::Vector2d(c.mi, c.mj), cov,
                                    [&](double a, double b) { return erf_unit(a, p) * erf_unit(b, q); });
        }
        INFO("p = " << p << ", q = " << q << ", case mi = " << c.mi);
        CHECK(table.value[p][q] == Approx(expected).margin(1e-9));
      }
    const UnitTable unit = unit_table(c.mi, c.vi);
    for (int p = 0; p < static_cast<int>(unit.size()); ++p)
      CHECK(unit[p] == Approx(brute_force_1d(c.mi, c.vi, [&](double a) { return erf_unit(a, p); })).margin(1e-10));
  }
}

TEST_CASE("product and linear terms: value by Monte Carlo, gradients by finite differences", "[ensemble]") {
  bnn::Rng rng(11);
  const MatrixXd cov4 = random_spd(4, 0.8, rng);
  Eigen::Vector4d mean(0.7, -0.4, 0.3, -1.1);
  auto table_for = [](const Eigen::Vector4d& m, const Eigen::Matrix4d& c) {
    return pair_table(m[2], m[3], c(2, 2), c(3, 3), c(2, 3));
  };
  const Eigen::Matrix4d c4 = cov4;
  const ProductTerm term = product_term(table_for(mean, c4), mean, c4, true);

  // Monte Carlo z-test of the value.
  const Eigen::Matrix4d L = c4.llt().matrixL();
  const int samples = 400000;
  double sum = 0.0, sum_sq = 0.0;
  for (int s = 0; s < samples; ++s) {
    const Eigen::Vector4d e = random_vector(4, rng);
    const Eigen::Vector4d z = mean + L * e;
    const double g = z[0] * z[1] * erf_unit(z[2]) * erf_unit(z[3]);
    sum += g;
    sum_sq += g * g;
  }
  const double mc = sum / samples, se = std::sqrt((sum_sq / samples - mc * mc) / samples);
  CHECK(std::abs(term.value - mc) < 4.0 * se);

  // Finite differences in the mean and in symmetric perturbations of the covariance.
  const double h = 1e-5;
  const auto product_value = [&](const Eigen::Vector4d& m, const Eigen::Matrix4d& c) {
    return product_term(table_for(m, c), m, c, false).value;
  };
  const Eigen::Vector4d fd_mean =
      numeric_gradient([&](const Eigen::Vector4d& m) { return product_value(m, c4); }, mean, h);
  CHECK(close_to(term.d_mean, fd_mean, 1e-6, 1e-9));
  for (int r = 0; r < 4; ++r)
    for (int s = r; s < 4; ++s) {
      const double fdc =
          symmetric_derivative([&](const Eigen::Matrix4d& c) { return product_value(mean, c); }, c4, r, s, h);
      const double analytic = r == s ? term.d_cov(r, r) : 2.0 * term.d_cov(r, s);
      INFO("cov entry " << r << "," << s);
      CHECK(analytic == Approx(fdc).epsilon(1e-6).margin(1e-9));
    }

  const Eigen::Vector2d m2(0.5, -0.6);
  Eigen::Matrix2d c2;
  c2 << 0.4, 0.15, 0.15, 0.9;
  const LinearTerm lin = linear_term(unit_table(m2[1], c2(1, 1)), m2, c2, true);
  auto value2 = [](const Eigen::Vector2d& m, const Eigen::Matrix2d& c) {
    return linear_term(unit_table(m[1], c(1, 1)), m, c, false).value;
  };
  const double expected = brute_force_2d(m2, c2, [](double v, double a) { return v * erf_unit(a); });
  CHECK(lin.value == Approx(expected).margin(1e-10));
  CHECK(close_to(lin.d_mean, numeric_gradient([&](const Eigen::Vector2d& m) { return value2(m, c2); }, m2, h), 1e-6));
  for (int r = 0; r < 2; ++r)
    for (int s = r; s < 2; ++s) {
      const double analytic = r == s ? lin.d_cov(r, r) : 2.0 * lin.d_cov(r, s);
      const double fdc = symmetric_derivative([&](const Eigen::Matrix2d& c) { return value2(m2, c); }, c2, r, s, h);
      CHECK(analytic == Approx(fdc).epsilon(1e-6).margin(1e-10));
    }
}

namespace {

bnn::RegressionData small_data(int n, int inputs, bnn::Rng& rng) {
  bnn::RegressionData d;
  d.X.resize(n, inputs);
  d.y.resize(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < inputs; ++j) d.X(i, j) = bnn::standard_normal(rng);
    d.y[i] = std::sin(1.5 * d.X(i, 0)) + 0.3 * d.X.row(i).sum() + 0.1 * bnn::standard_normal(rng);
  }
  return d;
}

Problem make_problem(const bnn::RegressionData& d, int hidden, CovarianceForm form, int factors, bool output_bias) {
  Problem p;
  p.layout = Layout{d.X.cols(), hidden, true, output_bias};
  p.parameterization = Parameterization{form, p.layout.size(), factors};
  p.augmented_X = p.layout.augment(d.X);
  p.targets = d.y;
  return p;
}

double network_output(const Layout& layout, const VectorXd& w, const Eigen::RowVectorXd& x) {
  double f = layout.output_bias ? w[layout.bias_offset()] : 0.0;
  for (int i = 0; i < layout.hidden; ++i)
    f += w[layout.v_offset(i)] * erf_unit(x.dot(w.segment(layout.u_offset(i), layout.unit_inputs())));
  return f;
}

}  // namespace

TEST_CASE("<E_D> under Q equals a Monte Carlo average for every covariance form", "[ensemble]") {
  bnn::Rng rng(5);
  const bnn::RegressionData d = small_data(12, 2, rng);
  for (const auto form : {CovarianceForm::full, CovarianceForm::factor, CovarianceForm::diagonal})
    for (const bool output_bias : {false, true}) {
      const Problem p = make_problem(d, 3, form, 2, output_bias);
      VectorXd theta = random_vector(p.parameterization.size(), rng, 0.4);
      theta.segment(p.layout.size(), p.layout.size()).array() -= 1.0;  // sd about e^-1
      double log_det = 0.0;
      const GaussianQ q = p.parameterization.unpack(theta, log_det);
      const double analytic = expected_squared_error(p.layout, p.augmented_X, p.targets, q, false).value;
      const MatrixXd C = q.diagonal() ? MatrixXd(q.variances.asDiagonal()) : q.covariance;
      const MatrixXd L = C.llt().matrixL();
      CHECK(log_det == Approx(2.0 * std::log(C.llt().matrixL().toDenseMatrix().diagonal().prod())).epsilon(1e-10));
      const int samples = 100000;
      double sum = 0.0, sum_sq = 0.0;
      for (int s = 0; s < samples; ++s) {
        const VectorXd w = q.mean + L * random_vector(p.layout.size(), rng);
        double ed = 0.0;
        for (Eigen::Index n = 0; n < d.y.size(); ++n) {
          const double r = network_output(p.layout, w, p.augmented_X.row(n)) - d.y[n];
          ed += 0.5 * r * r;
        }
        sum += ed;
        sum_sq += ed * ed;
      }
      const double mc = sum / samples, se = std::sqrt((sum_sq / samples - mc * mc) / samples);
      INFO("form " << static_cast<int>(form) << ", output bias " << output_bias << ": " << analytic << " vs " << mc
                   << " +- " << se);
      CHECK(std::abs(analytic - mc) < 4.0 * se);
    }
}

TEST_CASE("bound gradient matches finite differences for every covariance form", "[ensemble]") {
  bnn::Rng rng(9);
  const bnn::RegressionData d = small_data(15, 2, rng);
  for (const auto form : {CovarianceForm::full, CovarianceForm::factor, CovarianceForm::diagonal})
    for (const bool output_bias : {false, true}) {
      const Problem p = make_problem(d, 3, form, 2, output_bias);
      VectorXd theta = random_vector(p.parameterization.size(), rng, 0.5);
      theta.segment(p.layout.size(), p.layout.size()).array() -= 1.0;
      VectorXd gradient, collapsed_gradient;
      negative_bound(p, theta, 2.5, 7.0, &gradient);
      // The bound maximized over R(alpha) and S(beta): its gradient uses the optimal means only.
      const Options options;
      negative_collapsed_bound(p, options, theta, &collapsed_gradient);
      const double h = 1e-6;
      const VectorXd fd =
          numeric_gradient([&](const VectorXd& at) { return negative_bound(p, at, 2.5, 7.0, nullptr); }, theta, h);
      const VectorXd fd_collapsed = numeric_gradient(
          [&](const VectorXd& at) { return negative_collapsed_bound(p, options, at, nullptr); }, theta, h);
      INFO("form " << static_cast<int>(form) << ", bias " << output_bias);
      CHECK(close_to(gradient, fd, 1e-5, 1e-6));
      CHECK(close_to(collapsed_gradient, fd_collapsed, 1e-5, 1e-6));
    }
}

TEST_CASE("with the input weights known, the optimal Q over the output weights is the exact Gaussian posterior",
          "[ensemble]") {
  // The network is linear in v: for u fixed (zero variance) the bound's stationary point in
  // (m_v, C_vv) is Bayesian linear regression on the features sigma(u_i' x~).
  bnn::Rng rng(3);
  const bnn::RegressionData d = small_data(30, 2, rng);
  const Problem p = make_problem(d, 3, CovarianceForm::full, 0, true);
  const Layout& layout = p.layout;
  const double alpha = 1.7, beta = 12.0;
  const VectorXd u = random_vector(layout.hidden * layout.unit_inputs(), rng);
  const int V = layout.hidden + 1;
  MatrixXd features(d.y.size(), V);
  for (Eigen::Index n = 0; n < d.y.size(); ++n) {
    for (int i = 0; i < layout.hidden; ++i)
      features(n, i) = erf_unit(p.augmented_X.row(n).dot(u.segment(layout.u_offset(i), layout.unit_inputs())));
    features(n, layout.hidden) = 1.0;
  }
  const MatrixXd precision = alpha * MatrixXd::Identity(V, V) + beta * features.transpose() * features;
  const MatrixXd posterior_cov = precision.inverse();
  const VectorXd posterior_mean = beta * posterior_cov * features.transpose() * d.y;

  GaussianQ q;
  q.mean = VectorXd::Zero(layout.size());
  q.mean.head(u.size()) = u;
  q.mean.tail(V) = posterior_mean;
  q.covariance = MatrixXd::Zero(layout.size(), layout.size());
  q.covariance.bottomRightCorner(V, V) = posterior_cov;
  const ExpectedError e = expected_squared_error(layout, p.augmented_X, p.targets, q, true);
  // Stationarity of -F = -0.5 log|C_vv| + alpha/2 (|m_v|^2 + tr C_vv) + beta <E_D>.
  const VectorXd d_mean_v = alpha * posterior_mean + beta * e.d_mean.tail(V);
  const MatrixXd d_cov_v =
      0.5 * alpha * MatrixXd::Identity(V, V) + beta * e.d_cov.bottomRightCorner(V, V) - 0.5 * precision;
  CHECK(d_mean_v.norm() < 1e-9 * (1.0 + posterior_mean.norm() * alpha));
  CHECK(d_cov_v.norm() < 1e-9 * precision.norm());
}

namespace {

// The network with its input weights u known: Q(u) = N(m_u, e^(2 s) I) with s so small that
// <E_D> is the error of linear regression of the targets on the features sigma(m_u' x~) and 1.
struct KnownInputWeights {
  static constexpr double log_sd = -25.0;  // s: variance 2e-22
  Problem problem;
  VectorXd input_mean;  // m_u
  MatrixXd features;    // n x (H + 1), the last column the output bias's constant
};

KnownInputWeights known_input_weights() {
  bnn::Rng rng(13);
  KnownInputWeights c;
  c.problem = make_problem(small_data(30, 2, rng), 3, CovarianceForm::full, 0, true);
  const Layout& layout = c.problem.layout;
  c.input_mean = random_vector(layout.hidden * layout.unit_inputs(), rng);
  const Eigen::Index n = c.problem.targets.size();
  c.features.resize(n, layout.hidden + 1);
  for (Eigen::Index t = 0; t < n; ++t) {
    for (int i = 0; i < layout.hidden; ++i)
      c.features(t, i) =
          erf_unit(c.problem.augmented_X.row(t).dot(c.input_mean.segment(layout.u_offset(i), layout.unit_inputs())));
    c.features(t, layout.hidden) = 1.0;
  }
  return c;
}

// theta of the full form for Q = N((m_u, m_v), blockdiag(e^(2s) I, C_v)): R = blockdiag(e^s I, L'), C_v = L L'.
VectorXd known_input_theta(const KnownInputWeights& c, const VectorXd& m_v, const MatrixXd& C_v) {
  const Eigen::Index k = c.problem.layout.size(), ku = c.input_mean.size();
  MatrixXd R = MatrixXd::Zero(k, k);
  R.topLeftCorner(ku, ku).diagonal().setConstant(std::exp(KnownInputWeights::log_sd));
  R.bottomRightCorner(k - ku, k - ku) = C_v.llt().matrixL().transpose();
  VectorXd theta(c.problem.parameterization.size());
  theta.head(ku) = c.input_mean;
  theta.segment(ku, k - ku) = m_v;
  Eigen::Index next = 2 * k;
  for (Eigen::Index a = 0; a < k; ++a) {
    theta[k + a] = std::log(R(a, a));
    for (Eigen::Index b = a + 1; b < k; ++b) theta[next++] = R(a, b);
  }
  return theta;
}

// log N(y | 0, I / beta + Phi Phi' / alpha): the evidence of Bayesian linear regression.
double linear_log_evidence(const MatrixXd& Phi, const VectorXd& y, double alpha, double beta) {
  const Eigen::Index n = y.size();
  const MatrixXd cov = MatrixXd::Identity(n, n) / beta + Phi * Phi.transpose() / alpha;
  const Eigen::LLT<MatrixXd> llt(cov);
  const double log_det = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
  return -0.5 * (static_cast<double>(n) * std::log(2.0 * std::numbers::pi) + log_det + y.dot(llt.solve(y)));
}

// KL(N(m, C) || N(mu, P^-1)).
double gaussian_kl(const VectorXd& m, const MatrixXd& C, const VectorXd& mu, const MatrixXd& P) {
  const double log_det_C = 2.0 * C.llt().matrixL().toDenseMatrix().diagonal().array().log().sum();
  const double log_det_P = 2.0 * P.llt().matrixL().toDenseMatrix().diagonal().array().log().sum();
  const VectorXd d = m - mu;
  return 0.5 * ((P * C).trace() + d.dot(P * d) - static_cast<double>(m.size()) - log_det_P - log_det_C);
}

// KL(Gamma(shape p, scale q) || Gamma(shape a, scale b)).
double gamma_kl(double p, double q, double a, double b) {
  return (p - a) * boost::math::digamma(p) - std::lgamma(p) + std::lgamma(a) + a * (std::log(b) - std::log(q)) +
         p * (q - b) / b;
}

}  // namespace

TEST_CASE("with alpha and beta fixed, the bound is the exact log evidence minus KL(Q || posterior)", "[ensemble]") {
  // F(Q) = log p(D | alpha, beta) - KL(Q || p(w | D)); with u known this is the linear model's
  // evidence, less KL(Q_v || Gaussian posterior of v) and KL(Q_u || prior of u).
  const KnownInputWeights c = known_input_weights();
  const Problem& p = c.problem;
  const Eigen::Index k = p.layout.size(), ku = c.input_mean.size(), V = k - ku;
  const double n = static_cast<double>(p.targets.size());
  const double alpha = 1.7, beta = 12.0;
  const MatrixXd precision = alpha * MatrixXd::Identity(V, V) + beta * c.features.transpose() * c.features;
  const MatrixXd posterior_cov = precision.inverse();
  const VectorXd posterior_mean = beta * posterior_cov * c.features.transpose() * p.targets;
  const double log_evidence = linear_log_evidence(c.features, p.targets, alpha, beta);
  const double kl_u = gaussian_kl(c.input_mean, std::exp(2.0 * KnownInputWeights::log_sd) * MatrixXd::Identity(ku, ku),
                                  VectorXd::Zero(ku), alpha * MatrixXd::Identity(ku, ku));
  // negative_bound omits the Q-independent n/2 log(beta / 2 pi) + k/2 log(alpha / 2 pi) + k/2 (1 + log 2 pi).
  const auto bound = [&](const VectorXd& m_v, const MatrixXd& C_v) {
    const double omitted =
        0.5 * n * std::log(beta / (2.0 * std::numbers::pi)) + 0.5 * static_cast<double>(k) * (std::log(alpha) + 1.0);
    return omitted - negative_bound(p, known_input_theta(c, m_v, C_v), alpha, beta, nullptr);
  };
  const double at_posterior = bound(posterior_mean, posterior_cov);
  CHECK(at_posterior + kl_u == Approx(log_evidence).epsilon(1e-10));

  bnn::Rng rng(17);
  VectorXd shift(V);
  for (Eigen::Index i = 0; i < V; ++i) shift[i] = 0.3 * std::sqrt(posterior_cov(i, i)) * bnn::standard_normal(rng);
  const VectorXd other_mean = posterior_mean + shift;
  const MatrixXd other_cov = 0.6 * posterior_cov + 0.4 * MatrixXd(posterior_cov.diagonal().asDiagonal());
  const double kl_v = gaussian_kl(other_mean, other_cov, posterior_mean, precision);
  INFO("log evidence " << log_evidence << ", KL(Q_u || prior) " << kl_u << ", KL(Q_v || posterior) " << kl_v);
  REQUIRE(kl_v > 0.1);
  CHECK(bound(other_mean, other_cov) + kl_u == Approx(log_evidence - kl_v).epsilon(1e-10));
  CHECK(at_posterior - bound(other_mean, other_cov) == Approx(kl_v).epsilon(1e-8));
}

TEST_CASE("the full bound F[Q, R, S] equals its closed form with Gamma R(alpha) and S(beta)", "[ensemble]") {
  // For any Gamma R, S with means a_, b_: F = log p(D | a_, b_) + n/2 (<log beta> - log b_)
  // + k/2 (<log alpha> - log a_) - KL(Q || p(w | D, a_, b_)) - KL(R || p(alpha)) - KL(S || p(beta)).
  const KnownInputWeights c = known_input_weights();
  const Problem& p = c.problem;
  const Eigen::Index k = p.layout.size(), ku = c.input_mean.size(), V = k - ku, n = p.targets.size();
  const MatrixXd& Phi = c.features;
  Options o;
  o.alpha_shape = 1.5;
  o.alpha_scale = 2.0;
  o.beta_shape = 0.8;
  o.beta_scale = 30.0;
  const double input_variance = std::exp(2.0 * KnownInputWeights::log_sd);
  const auto closed_form = [&](const VectorXd& m_v, const MatrixXd& C_v, const Hyperposterior& h) {
    const double alpha = h.alpha_mean(), beta = h.beta_mean();
    const MatrixXd precision = alpha * MatrixXd::Identity(V, V) + beta * Phi.transpose() * Phi;
    const VectorXd posterior_mean = beta * precision.llt().solve(Phi.transpose() * p.targets);
    const double log_alpha = boost::math::digamma(h.alpha_shape) + std::log(h.alpha_scale);
    const double log_beta = boost::math::digamma(h.beta_shape) + std::log(h.beta_scale);
    return linear_log_evidence(Phi, p.targets, alpha, beta) +
           0.5 * static_cast<double>(n) * (log_beta - std::log(beta)) +
           0.5 * static_cast<double>(k) * (log_alpha - std::log(alpha)) -
           gaussian_kl(m_v, C_v, posterior_mean, precision) -
           gaussian_kl(c.input_mean, input_variance * MatrixXd::Identity(ku, ku), VectorXd::Zero(ku),
                       alpha * MatrixXd::Identity(ku, ku)) -
           gamma_kl(h.alpha_shape, h.alpha_scale, o.alpha_shape, o.alpha_scale) -
           gamma_kl(h.beta_shape, h.beta_scale, o.beta_shape, o.beta_scale);
  };
  bnn::Rng rng(19);
  for (int trial = 0; trial < 3; ++trial) {
    const VectorXd m_v = random_vector(V, rng);
    const MatrixXd C_v = random_spd(V, 0.05, rng);
    // |m|^2 + tr C and <E_D> = |y - Phi m_v|^2 / 2 + tr(Phi C_v Phi') / 2 in closed form.
    const double second =
        c.input_mean.squaredNorm() + static_cast<double>(ku) * input_variance + m_v.squaredNorm() + C_v.trace();
    const double error = 0.5 * ((p.targets - Phi * m_v).squaredNorm() + (Phi * C_v * Phi.transpose()).trace());
    const double log_det = 2.0 * static_cast<double>(ku) * KnownInputWeights::log_sd +
                           2.0 * C_v.llt().matrixL().toDenseMatrix().diagonal().array().log().sum();
    const Hyperposterior optimal = reestimate(o, k, n, second, error);
    const double expected = closed_form(m_v, C_v, optimal);
    INFO("trial " << trial << ": closed form " << expected);
    CHECK(-negative_collapsed_bound(p, o, known_input_theta(c, m_v, C_v), nullptr) == Approx(expected).epsilon(1e-10));
    CHECK(full_bound(o, k, n, log_det, second, error, optimal) == Approx(expected).epsilon(1e-10));
    Hyperposterior moved = optimal;
    moved.alpha_shape *= 0.4 + 0.5 * trial;
    moved.beta_scale *= 1.7 - 0.5 * trial;
    CHECK(full_bound(o, k, n, log_det, second, error, moved) == Approx(closed_form(m_v, C_v, moved)).epsilon(1e-10));
  }
}

TEST_CASE("hyperparameter re-estimation: (37)-(38) and the bound's maximum over R and S", "[ensemble]") {
  Options o;
  const Hyperposterior h = reestimate(o, 20, 50, 3.0, 7.5);
  CHECK(h.alpha_mean() == Approx((10.0 + 0.25) / (1.5 + 1.0 / 400.0)));
  CHECK(h.beta_mean() == Approx((25.0 + 0.05) / (7.5 + 1.0 / 2000.0)));
  // The optimal R, S maximize F: moving either shape or scale lowers the bound.
  const double best = full_bound(o, 20, 50, -4.0, 3.0, 7.5, h);
  for (double factor : {0.9, 1.1}) {
    Hyperposterior moved = h;
    moved.alpha_scale *= factor;
    CHECK(full_bound(o, 20, 50, -4.0, 3.0, 7.5, moved) < best);
    moved = h;
    moved.beta_shape *= factor;
    CHECK(full_bound(o, 20, 50, -4.0, 3.0, 7.5, moved) < best);
  }
}

TEST_CASE("ensemble fits: smooth function, bound ordering, determinism and validation", "[ensemble]") {
  bnn::Rng data_rng(21);
  bnn::RegressionData train, test;
  for (auto* d : {&train, &test}) {
    const int n = d == &train ? 60 : 200;
    d->X.resize(n, 1);
    d->y.resize(n);
    for (int i = 0; i < n; ++i) {
      d->X(i, 0) = bnn::uniform(data_rng, -2.0, 2.0);
      d->y[i] = std::sin(1.5 * d->X(i, 0)) + 0.1 * bnn::standard_normal(data_rng);
    }
  }
  double bound_full = 0.0, bound_diag = 0.0;
  for (const char* name : {"vi-full", "vi-fa", "vi-diag"}) {
    const auto& entry = bnn::find_method(name);
    bnn::Rng rng(4);
    const auto model = entry.fit(train, {{"hidden_units", "4"}, {"restarts", "2"}}, rng);
    const auto pred = model->predict(test.X);
    const double n_test = static_cast<double>(test.y.size());
    double sse = 0.0;
    int covered = 0;
    for (Eigen::Index i = 0; i < test.y.size(); ++i) {
      sse += std::pow(pred->mean(i) - test.y[i], 2);
      covered += std::abs(pred->mean(i) - test.y[i]) < 1.96 * std::sqrt(pred->variance(i));
    }
    INFO(name << ": rmse " << std::sqrt(sse / n_test) << ", coverage " << covered);
    CHECK(std::sqrt(sse / n_test) < 0.2);
    CHECK(covered > 0.8 * n_test);
    CHECK(model->report().status == bnn::FitStatus::ok);
    const double bound = model->report().diagnostics.front().second;
    if (std::string(name) == "vi-full") bound_full = bound;
    if (std::string(name) == "vi-diag") bound_diag = bound;
    bnn::Rng again(4);
    const auto repeat = entry.fit(train, {{"hidden_units", "4"}, {"restarts", "2"}}, again);
    CHECK(repeat->predict(test.X)->mean(7) == pred->mean(7));
  }
  // A richer family gives a tighter bound.
  CHECK(bound_full >= bound_diag - 1e-6);

  using bnn::test::invalid_argument_message;
  Options o;
  o.hidden_units = 0;
  CHECK(invalid_argument_message([&] { o.validate(); }) == "vi-full: hidden_units is 0, but must be >= 1");
  o = Options{};
  CHECK_THAT(invalid_argument_message([&] { o.covariance = "banded"; }),
             Catch::Matchers::Contains("full, factor or diagonal"));
  o = Options{};
  o.covariance = "factor";
  o.factors = 0;
  CHECK(invalid_argument_message([&] { o.validate(); }) == "vi-fa: factors is 0, but must be >= 1");
}
