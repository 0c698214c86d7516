// Probabilistic backpropagation: rectifier moments against numerical integration (including
// alpha < -30), their derivatives and the log Z gradients against finite differences, one ADF
// update of a linear network against the exact posterior, and the Gamma and prior updates
// against the moment equations they are derived from.
#include <boost/math/quadrature/exp_sinh.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <utility>

#include "datasets/src/normalize.hpp"
#include "methods/core/normal.hpp"
#include "methods/core/predictive.hpp"
#include "methods/core/rng.hpp"
#include "methods/core/vector_math.hpp"
#include "methods/pbp/pbp.hpp"
#include "methods/pbp/relu_moments.hpp"
#include "methods/registry.hpp"
#include "tests/support/data_mirror.hpp"
#include "tests/support/finite_difference.hpp"
#include "tests/support/fit_report.hpp"
#include "tests/support/normal_density.hpp"
#include "tests/support/tolerance.hpp"

using namespace bnn;
using namespace bnn::pbp;
using bnn::test::numeric_derivative;

namespace {

// E[max(0, a)^k] for a ~ N(m, v), by quadrature over b > 0.
double relu_raw_moment(double m, double v, int k) {
  boost::math::quadrature::exp_sinh<double> integrator;
  const auto f = [&](double b) { return std::pow(b, k) * test::normal_density(b, m, v); };
  return integrator.integrate(f, 0.0, std::numeric_limits<double>::infinity());
}

Network random_network(Eigen::Index inputs, std::vector<int> hidden, Rng& rng) {
  Options options;
  options.hidden_layers = hidden;
  Network net = initial_network(inputs, options, rng);
  for (Layer& layer : net.layers) {
    for (Eigen::Index i = 0; i < layer.variance.rows(); ++i)
      for (Eigen::Index j = 0; j < layer.variance.cols(); ++j) layer.variance(i, j) = 0.05 + 0.5 * uniform01(rng);
  }
  net.noise_shape = 7.5;
  net.noise_rate = 2.0;
  return net;
}

// Central differences (step 1e-6) of log Z with respect to every weight mean and variance of layer l.
struct LogZDifferences {
  RowMatrix d_mean, d_variance;
};
LogZDifferences log_z_differences(const Network& net, std::size_t l, const Eigen::VectorXd& x, double y) {
  const auto log_z_with = [&](RowMatrix Layer::*part) {
    return [&net, &x, y, l, part](const RowMatrix& values) {
      Network moved = net;
      moved.layers[l].*part = values;
      return log_z(moved, x, y, nullptr);
    };
  };
  const Layer& layer = net.layers[l];
  return {test::numeric_gradient(log_z_with(&Layer::mean), layer.mean, 1e-6),
          test::numeric_gradient(log_z_with(&Layer::variance), layer.variance, 1e-6)};
}

// A plain reference of one ADF update (eqs. (6)-(17) and (9)-(10)), scalar loops with every
// operation, fused multiply-add and summation order spelled out as PBP's committed results were
// computed (GCC's x86-64-v3 code for the plain loops of pbp.cpp and relu_moments.cpp): sums over
// a row in four lanes (lane k: columns j = k mod 4 below 4 floor(cols / 4)), the other columns
// into lane 0, then (((0 + lane 0) + lane 1) + lane 2) + lane 3.
template <class AddTerm>
double sum_in_lane_order(Eigen::Index cols, AddTerm add_term) {
  double lane[4] = {0.0, 0.0, 0.0, 0.0};
  const Eigen::Index body = cols - cols % 4;
  for (Eigen::Index j = 0; j < body; ++j) lane[j % 4] = add_term(j, lane[j % 4]);
  for (Eigen::Index j = body; j < cols; ++j) lane[0] = add_term(j, lane[0]);
  return (((0.0 + lane[0]) + lane[1]) + lane[2]) + lane[3];
}

// erfc and exp as PBP takes them: glibc's vector routines, one value at a time (a value does
// not depend on its place in the array).
double vector_erfc(double x) {
  vector_math::erfc(&x, &x, 1);
  return x;
}
double vector_exp(double x) {
  vector_math::exp(&x, &x, 1);
  return x;
}

ReluMoments reference_relu(double m, double v) {
  const double s = std::sqrt(v), a = m / s;
  const bool flushed = std::abs(a) > 37.5;  // Phi(-|a|) and phi(a) below 4e-306 taken as 0
  const double tail = flushed ? 0.0 : 0.5 * vector_erfc(std::abs(a) / std::numbers::sqrt2);
  const double pdf = flushed ? 0.0 : vector_exp(-0.5 * a * a) * 0.39894228040143267794;  // 1 / sqrt(2 pi)
  const double cdf = a > 0.0 ? 1.0 - tail : tail, cdf_minus = a > 0.0 ? tail : 1.0 - tail;
  double gamma = pdf / cdf;
  if (a < -30.0) {
    const double inv = 1.0 / a;
    gamma = std::fma(inv, (inv + inv) * inv, -a - inv);
  }
  const double shifted = std::fma(s, gamma, m);
  ReluMoments r;
  r.mean = cdf * shifted;
  r.variance = std::fma(shifted * r.mean, cdf_minus, (cdf * v) * std::fma(-(gamma + a), gamma, 1.0));
  if (r.variance < 0.0) r.variance = 0.0;
  const double pdf_over_s = (cdf * gamma) / s;
  r.dmean_dm = cdf;
  r.dmean_dv = 0.5 * pdf_over_s;
  r.dvariance_dm = (r.mean + r.mean) * cdf_minus;
  r.dvariance_dv = std::fma(-pdf_over_s, r.mean, cdf);
  return r;
}

long reference_adf_update(Network& net, const Eigen::VectorXd& x, double y) {
  const std::size_t L = net.layers.size();
  std::vector<Eigen::VectorXd> zm(L), zv(L), second(L);
  std::vector<std::vector<ReluMoments>> relu(L);
  zm[0].resize(x.size() + 1);
  zm[0] << x, 1.0;
  zv[0] = Eigen::VectorXd::Zero(x.size() + 1);
  double out_mean = 0.0, out_variance = 0.0;
  for (std::size_t l = 0; l < L; ++l) {
    const Layer& layer = net.layers[l];
    const Eigen::Index cols = layer.mean.cols();
    const double scale = 1.0 / std::sqrt(static_cast<double>(cols));
    second[l].resize(cols);
    for (Eigen::Index j = 0; j < cols; ++j) second[l][j] = std::fma(zm[l][j], zm[l][j], zv[l][j]);
    if (l + 1 < L) {
      zm[l + 1].resize(layer.mean.rows() + 1);
      zv[l + 1].resize(layer.mean.rows() + 1);
    }
    for (Eigen::Index i = 0; i < layer.mean.rows(); ++i) {
      const double mean = sum_in_lane_order(
          cols, [&](Eigen::Index j, double sum) { return std::fma(layer.mean(i, j), zm[l][j], sum); });
      const double variance = sum_in_lane_order(cols, [&](Eigen::Index j, double sum) {
        const double M = layer.mean(i, j), V = layer.variance(i, j);
        return l == 0 ? std::fma(V, second[l][j], sum) : std::fma(V, second[l][j], (M * M) * zv[l][j]) + sum;
      });
      const double ma = scale * mean, va = (scale * scale) * variance;
      if (l + 1 == L) {
        out_mean = ma;
        out_variance = va;
      } else {
        relu[l].push_back(reference_relu(ma, va));
        zm[l + 1][i] = relu[l].back().mean;
        zv[l + 1][i] = relu[l].back().variance;
      }
    }
    if (l + 1 < L) {
      zm[l + 1][layer.mean.rows()] = 1.0;
      zv[l + 1][layer.mean.rows()] = 0.0;
    }
  }
  const double total = out_variance + net.noise_variance(), r = y - out_mean;
  std::vector<double> dm = {r / total}, dv = {-0.5 / total + 0.5 * r * r / (total * total)};
  long undone = 0;
  for (std::size_t l = L; l-- > 0;) {
    Layer& layer = net.layers[l];
    const Eigen::Index cols = layer.mean.cols();
    const double scale = 1.0 / std::sqrt(static_cast<double>(cols)), scale2 = scale * scale;
    std::vector<double> dzm(static_cast<std::size_t>(cols), 0.0), dzv(static_cast<std::size_t>(cols), 0.0);
    for (Eigen::Index i = 0; i < layer.mean.rows(); ++i) {
      const double gm = scale * dm[static_cast<std::size_t>(i)], gv = scale2 * dv[static_cast<std::size_t>(i)];
      for (Eigen::Index j = 0; j < cols; ++j) {
        const auto k = static_cast<std::size_t>(j);
        double& M = layer.mean(i, j);
        double& V = layer.variance(i, j);
        if (l > 0) {  // supplement eqs. (15)-(22), from the old M, V
          dzm[k] = std::fma(gm, M, ((gv + gv) * zm[l][j]) * V) + dzm[k];
          dzv[k] = std::fma(gv, std::fma(M, M, V), dzv[k]);
        }
        const double g_mean = std::fma(gm, zm[l][j], ((gv + gv) * M) * zv[l][j]);
        const double g_variance = gv * second[l][j];
        const double v_new = std::fma(-(V * V), std::fma(g_mean, g_mean, -(g_variance + g_variance)), V);
        if (v_new > 0.0 && v_new < std::numeric_limits<double>::infinity()) {
          M = std::fma(g_mean, V, M);
          V = v_new;
        } else {
          ++undone;
        }
      }
    }
    if (l == 0) break;
    dm.assign(relu[l - 1].size(), 0.0);
    dv.assign(relu[l - 1].size(), 0.0);
    for (std::size_t i = 0; i < relu[l - 1].size(); ++i) {
      const ReluMoments& g = relu[l - 1][i];
      dm[i] = std::fma(dzm[i], g.dmean_dm, dzv[i] * g.dvariance_dm);
      dv[i] = std::fma(dzm[i], g.dmean_dv, dzv[i] * g.dvariance_dv);
    }
  }
  const double a = net.noise_shape, b = net.noise_rate;
  const auto [a_new, b_new] = gamma_moment_match(a, b, normal_log_pdf(y, out_mean, out_variance + b / (a - 1.0)),
                                                 normal_log_pdf(y, out_mean, out_variance + b / a),
                                                 normal_log_pdf(y, out_mean, out_variance + b / (a + 1.0)));
  if (std::isfinite(a_new) && std::isfinite(b_new) && a_new > 1.0 && b_new > 0.0) {
    net.noise_shape = a_new;
    net.noise_rate = b_new;
  }
  return undone;
}

}  // namespace

TEST_CASE("rectifier moments match numerical integration, also for alpha < -30", "[pbp]") {
  for (double v : {0.01, 1.0, 25.0}) {
    for (double alpha : {-36.0, -31.0, -29.0, -8.0, -2.0, -0.3, 0.0, 0.7, 3.0, 9.0}) {
      const double m = alpha * std::sqrt(v);
      const ReluMoments r = relu_moments(m, v);
      const double first = relu_raw_moment(m, v, 1);
      const double second = relu_raw_moment(m, v, 2);
      INFO("m " << m << " v " << v);
      // Below alpha = -30 the paper's three-term series for gamma has relative error ~10/alpha^4.
      const double tolerance = alpha < -30.0 ? 1e-4 : 1e-7;
      CHECK(r.mean == Approx(first).epsilon(tolerance));
      const double variance = second - first * first;
      CHECK(r.variance == Approx(variance).epsilon(alpha < -30.0 ? 1e-2 : 1e-6));  // 1 - gamma (gamma + alpha) cancels
    }
  }
}

TEST_CASE("rectifier moment derivatives match finite differences", "[pbp]") {
  // alpha from +6.7 down to -35 (the asymptotic series below -30), where the moments and their
  // derivatives fall to 1e-19 and below 1e-200: relative tolerances, with a margin only for the
  // difference quotient's round-off, 1e-12 |f| / h (an O(1) mean has a 1e-10 slope at alpha 6.7)
  std::vector<std::pair<double, double>> points;
  for (double m : {-4.0, -1.2, 0.0, 0.5, 3.0})
    for (double v : {0.2, 1.0, 4.0}) points.emplace_back(m, v);
  points.emplace_back(-16.0, 0.25);  // alpha = -32
  points.emplace_back(-35.0, 1.0);   // alpha = -35
  points.emplace_back(-62.0, 4.0);   // alpha = -31
  for (const auto& [m, v] : points) {
    const ReluMoments r = relu_moments(m, v);
    // (mean, variance) as functions of m and of v, differenced with steps 1e-6 and 1e-6 v
    const auto moments = [](double at_m, double at_v) {
      const ReluMoments moved = relu_moments(at_m, at_v);
      return Eigen::Vector2d(moved.mean, moved.variance);
    };
    const double hm = 1e-6, hv = 1e-6 * v;
    const Eigen::Vector2d d_dm = numeric_derivative([&](double at) { return moments(at, v); }, m, hm);
    const Eigen::Vector2d d_dv = numeric_derivative([&](double at) { return moments(m, at); }, v, hv);
    // the series' relative error ~10/alpha^4 in gamma becomes ~10/alpha^2 in the variance
    const bool series = m / std::sqrt(v) < -30.0;
    const double mean_tolerance = series ? 1e-4 : 1e-6, variance_tolerance = series ? 1e-2 : 2e-6;
    INFO("m " << m << " v " << v << " alpha " << m / std::sqrt(v));
    CHECK(r.dmean_dm == Approx(d_dm[0]).epsilon(mean_tolerance).margin(1e-12 * r.mean / hm));
    CHECK(r.dmean_dv == Approx(d_dv[0]).epsilon(mean_tolerance).margin(1e-12 * r.mean / hv));
    CHECK(r.dvariance_dm == Approx(d_dm[1]).epsilon(variance_tolerance).margin(1e-12 * r.variance / hm));
    CHECK(r.dvariance_dv == Approx(d_dv[1]).epsilon(variance_tolerance).margin(1e-12 * r.variance / hv));
  }
  CHECK(pbp::inverse_mills(-31.0) == Approx(31.0 + 1.0 / 31.0 - 2.0 / (31.0 * 31.0 * 31.0)));
  CHECK(pbp::inverse_mills(-29.9) == Approx(29.9 + 1.0 / 29.9).epsilon(1e-5));  // exact ratio just above -30
}

TEST_CASE("log Z gradients match finite differences for 1-3 hidden layers", "[pbp]") {
  Rng rng(3);
  for (std::vector<int> hidden : {std::vector<int>{5}, std::vector<int>{4, 3}, std::vector<int>{3, 4, 2}}) {
    const Network net = random_network(3, hidden, rng);
    Eigen::VectorXd x(3);
    x << 0.4, -1.1, 0.8;
    const double y = 0.7;
    Gradients g;
    log_z(net, x, y, &g);
    for (std::size_t l = 0; l < net.layers.size(); ++l) {
      const LogZDifferences fd = log_z_differences(net, l, x, y);
      INFO(hidden.size() << " hidden layers, layer " << l);
      CHECK(test::close_to(g.d_mean[l], fd.d_mean, 1e-5, 1e-9));
      CHECK(test::close_to(g.d_variance[l], fd.d_variance, 1e-5, 1e-9));
    }
  }
}

TEST_CASE("one ADF update of a linear network equals the exact posterior marginals", "[pbp]") {
  Rng rng(4);
  Options options;
  options.hidden_layers = {};
  Network net = initial_network(3, options, rng);  // no hidden layer: output = w'[x;1]/2
  Layer& layer = net.layers[0];
  layer.variance << 0.5, 1.2, 0.3, 2.0;
  const Eigen::VectorXd m0 = layer.mean.row(0).transpose();
  const Eigen::VectorXd v0 = layer.variance.row(0).transpose();
  Eigen::VectorXd x(3);
  x << 0.3, -0.7, 1.5;
  const double y = 1.3;
  const double noise = net.noise_variance();
  Eigen::VectorXd u(4);
  u << x, 1.0;
  u /= 2.0;  // 1 / sqrt(inputs + 1)
  // Exact Gaussian posterior for one observation y = w'u + N(0, noise).
  const Eigen::MatrixXd S0 = v0.asDiagonal();
  const double denominator = u.dot(S0 * u) + noise;
  const Eigen::VectorXd mean = m0 + S0 * u * (y - u.dot(m0)) / denominator;
  const Eigen::MatrixXd S = S0 - (S0 * u) * (S0 * u).transpose() / denominator;
  CHECK(adf_update(net, x, y) == 0);
  for (Eigen::Index j = 0; j < 4; ++j) {
    CHECK(layer.mean(0, j) == Approx(mean[j]).epsilon(1e-12));
    CHECK(layer.variance(0, j) == Approx(S(j, j)).epsilon(1e-12));
  }
}

TEST_CASE("noise Gamma update matches the first two moments of eqs. (24)-(26)", "[pbp]") {
  Rng rng(5);
  Network net = random_network(2, {3}, rng);
  Eigen::VectorXd x(2);
  x << 0.2, -0.4;
  const double y = 2.5;
  const OutputMoments out = forward(net, x);
  const double a = net.noise_shape, b = net.noise_rate;
  const auto Z = [&](double shape) { return test::normal_density(y, out.mean, out.variance + b / (shape - 1.0)); };
  const double mean = Z(a + 1) * a / (Z(a) * b);
  const double second = Z(a + 2) * a * (a + 1) / (Z(a) * b * b);
  adf_update(net, x, y);
  CHECK(net.noise_shape / net.noise_rate == Approx(mean).epsilon(1e-10));
  CHECK(net.noise_shape / (net.noise_rate * net.noise_rate) == Approx(second - mean * mean).epsilon(1e-8));
}

TEST_CASE("EP refinement of the prior factors keeps q = cavity x factor", "[pbp]") {
  Rng rng(6);
  Options options;
  options.hidden_layers = {4};
  Network net = initial_network(2, options, rng);
  const double prior_precision = (options.prior_shape - 1.0) / options.prior_rate;
  // Shrink the variances as data would, then refine.
  for (Layer& layer : net.layers) layer.variance *= 0.3;
  const Network before = net;
  CHECK(refine_prior(net, options.min_cavity_precision_fraction) == 4 * 3 + 5);
  for (std::size_t l = 0; l < net.layers.size(); ++l) {
    const Layer& a = before.layers[l];
    const Layer& b = net.layers[l];
    for (Eigen::Index i = 0; i < a.mean.rows(); ++i)
      for (Eigen::Index j = 0; j < a.mean.cols(); ++j) {
        // The likelihood part (q / old factor) is unchanged: new q / new factor is the same cavity.
        const double cavity_before = 1.0 / a.variance(i, j) - prior_precision;
        const double cavity_after = 1.0 / b.variance(i, j) - b.site_precision(i, j);
        CHECK(cavity_after == Approx(cavity_before).epsilon(1e-9));
        const double pm_before = a.mean(i, j) / a.variance(i, j);
        const double pm_after = b.mean(i, j) / b.variance(i, j) - b.site_precision_mean(i, j);
        CHECK(pm_after == Approx(pm_before).epsilon(1e-9).margin(1e-12));
      }
  }
  // The factors' Gamma contributions add up to the change of q(lambda).
  double shape_sum = 0.0, rate_sum = 0.0;
  for (const Layer& layer : net.layers) {
    shape_sum += layer.site_shape.sum();
    rate_sum += layer.site_rate.sum();
  }
  CHECK(net.prior_shape == Approx(options.prior_shape + shape_sum).epsilon(1e-12));
  CHECK(net.prior_rate == Approx(options.prior_rate + rate_sum).epsilon(1e-12));
  CHECK(net.prior_shape > options.prior_shape);  // 17 weights are evidence about lambda
}

TEST_CASE("EP refinement of a prior factor matches the moments of its tilted distribution", "[pbp]") {
  // Tilted: cavity N(w | mu, s2) Gamma(lambda | a, b) N(w | 0, 1/lambda), with Z(a) =
  // N(mu | 0, s2 + b / (a - 1)) as in eq. (11). New q(w): mean mu + s2 dlogZ/dmu, variance
  // s2 - s2^2 ((dlogZ/dmu)^2 - 2 dlogZ/ds2); new q(lambda) from E[lambda^k] ~ Z(a + k) / Z(a).
  const auto log_z = [](double mu, double s2, double a, double b) {
    return normal_log_pdf(mu, 0.0, s2 + b / (a - 1.0));
  };
  struct Cavity {
    double mean, variance, shape, rate;
  };
  Rng rng(10);
  Options options;
  options.hidden_layers = {3};
  int trial = 0;
  for (const Cavity& c : {Cavity{0.8, 0.05, 6.0, 6.0}, Cavity{-1.5, 0.3, 9.5, 4.0}, Cavity{0.02, 0.5, 3.0, 5.0},
                          Cavity{2.5, 0.01, 20.0, 30.0}}) {
    Network net = initial_network(2, options, rng);
    // every other weight's q equals its factor (cavity precision 0): refine_prior skips them
    for (Layer& layer : net.layers) layer.variance = layer.site_precision.cwiseInverse();
    const std::size_t l = trial % 2;
    const Eigen::Index i = 0, j = trial % 3;
    Layer& layer = net.layers[l];
    // a factor from an earlier pass, so that cavity and q differ in all four parameters
    layer.site_precision(i, j) = 0.7;
    layer.site_precision_mean(i, j) = -0.2;
    layer.site_shape(i, j) = 0.4;
    layer.site_rate(i, j) = 0.3;
    layer.variance(i, j) = 1.0 / (1.0 / c.variance + 0.7);
    layer.mean(i, j) = (c.mean / c.variance - 0.2) * layer.variance(i, j);
    net.prior_shape = c.shape + 0.4;
    net.prior_rate = c.rate + 0.3;
    const Network before = net;
    REQUIRE(refine_prior(net, options.min_cavity_precision_fraction) == 1);

    const double d_mean =
        numeric_derivative([&](double mu) { return log_z(mu, c.variance, c.shape, c.rate); }, c.mean, 1e-5);
    const double d_variance = numeric_derivative([&](double s2) { return log_z(c.mean, s2, c.shape, c.rate); },
                                                 c.variance, test::relative_step(1e-5));
    const double mean = c.mean + c.variance * d_mean;
    const double variance = c.variance - c.variance * c.variance * (d_mean * d_mean - 2.0 * d_variance);
    const double z0 = std::exp(log_z(c.mean, c.variance, c.shape, c.rate));
    const double first = std::exp(log_z(c.mean, c.variance, c.shape + 1.0, c.rate)) / z0 * c.shape / c.rate;
    const double second =
        std::exp(log_z(c.mean, c.variance, c.shape + 2.0, c.rate)) / z0 * c.shape * (c.shape + 1.0) / (c.rate * c.rate);
    INFO("trial " << trial << ": layer " << l << " weight " << i << "," << j);
    CHECK(layer.mean(i, j) == Approx(mean).epsilon(1e-8));
    CHECK(layer.variance(i, j) == Approx(variance).epsilon(1e-8));
    CHECK(net.prior_shape / net.prior_rate == Approx(first).epsilon(1e-10));
    CHECK(net.prior_shape / (net.prior_rate * net.prior_rate) == Approx(second - first * first).epsilon(1e-8));
    // the new factor is new q / cavity
    CHECK(layer.site_precision(i, j) == Approx(1.0 / variance - 1.0 / c.variance).epsilon(1e-7));
    CHECK(layer.site_shape(i, j) == Approx(net.prior_shape - c.shape).epsilon(1e-10));
    // and nothing else moved
    for (std::size_t k = 0; k < net.layers.size(); ++k) {
      RowMatrix changed = (net.layers[k].mean - before.layers[k].mean).cwiseAbs();
      if (k == l) changed(i, j) = 0.0;
      CHECK(changed.maxCoeff() == 0.0);
    }
    ++trial;
  }
}

TEST_CASE("EP refinement skips weights the data have barely touched", "[pbp]") {
  Rng rng(9);
  Options options;
  options.hidden_layers = {50};
  Network net = initial_network(2, options, rng);
  // The 150 input weights carry little data information (precision 1e-5 above the prior
  // factor's, as in the lower layers of a deep network after one pass); the output weights are
  // informed. The cavity of an input weight reads its random initial mean as data: mean ~ 1e4.
  Layer& input = net.layers[0];
  input.variance = (input.site_precision.array() + 1e-5).inverse().matrix();
  net.layers[1].variance *= 0.3;
  Network literal = net;
  CHECK(refine_prior(net, options.min_cavity_precision_fraction) == 51);
  refine_prior(literal, 0.0);
  // Refined as data, they drag the prior variance E[1/lambda] up by orders of magnitude.
  const double guarded = net.prior_rate / (net.prior_shape - 1.0);
  const double unguarded = literal.prior_rate / (literal.prior_shape - 1.0);
  CHECK(guarded < 2.0);
  CHECK(unguarded > 100.0 * guarded);
  CHECK_THROWS_WITH(find_method("pbp").fit(RegressionData{Eigen::MatrixXd::Zero(4, 1), Eigen::VectorXd::Zero(4)},
                                           {{"min_cavity_precision_fraction", "-1"}}, rng),
                    Catch::Contains("pbp: min_cavity_precision_fraction is -1, but must be >= 0"));
}

TEST_CASE("PBP with three hidden layers stays stable on yacht splits where it once diverged", "[pbp]") {
  // Before the cavity guard, splits 2 and 3 ended with a prior variance of ~4e7 and a
  // training RMSE of 1e2-1e5 (normalized targets) after 40 epochs.
  using namespace bnn::data;
  const Dataset data = test::load_from_mirror("yacht");
  const auto splits = test::published_splits_from_mirror("yacht", data.X.rows());
  for (std::size_t k : {2, 3}) {
    CAPTURE(k);
    const Eigen::MatrixXd X = select_rows(data.X, splits[k].train);
    const Eigen::VectorXd y = select_rows(data.y, splits[k].train);
    const Standardizer scale = Standardizer::fit(X, y, "yacht");
    const RegressionData train{scale.transform_inputs(X), scale.transform_targets(y)};
    Options options;
    options.hidden_layers = {50, 50, 50};
    Rng rng(k + 1);
    const pbp::Model model = fit(train, options, rng);
    const auto train_fit = model.predict(train.X);
    double sse = 0.0;
    for (Eigen::Index i = 0; i < train.X.rows(); ++i) sse += std::pow(train_fit->mean(i) - train.y[i], 2);
    CHECK(std::sqrt(sse / static_cast<double>(train.X.rows())) < 0.2);
    CHECK(test::diagnostic(model.report(), "prior_variance") < 10.0);
  }
}

TEST_CASE("PBP fits a noisy sine and is reproducible", "[pbp]") {
  Rng data_rng(7);
  RegressionData data{Eigen::MatrixXd(200, 1), Eigen::VectorXd(200)};
  for (Eigen::Index i = 0; i < 200; ++i) {
    data.X(i, 0) = uniform(data_rng, -3, 3);
    data.y[i] = std::sin(data.X(i, 0)) + 0.1 * standard_normal(data_rng);
  }
  data.y = (data.y.array() - data.y.mean()) / std::sqrt((data.y.array() - data.y.mean()).square().mean());
  Options options;
  options.epochs = 40;
  Rng rng1(8), rng2(8);
  const pbp::Model a = fit(data, options, rng1);
  const pbp::Model b = fit(data, options, rng2);
  const auto pa = a.predict(data.X), pb = b.predict(data.X);
  double sse = 0.0;
  for (Eigen::Index i = 0; i < 200; ++i) {
    CHECK(pa->mean(i) == pb->mean(i));
    sse += std::pow(pa->mean(i) - data.y[i], 2);
  }
  CHECK(std::sqrt(sse / 200) < 0.3);  // the sine explains most of the (unit) variance
  CHECK(a.network().noise_variance() < 0.1);
  CHECK_THROWS_WITH(find_method("pbp").fit(data, {{"epochs", "0"}}, rng1),
                    Catch::Contains("pbp: epochs is 0, but must be >= 1"));
  CHECK_THROWS_WITH(find_method("pbp").fit(data, {{"noise_shape", "1"}}, rng1),
                    Catch::Contains("pbp: noise_shape is 1, but must be > 1"));
}

TEST_CASE("batched rectifier moments equal the scalar ones", "[pbp]") {
  std::vector<double> m, v;
  for (double alpha : {-40.0, -30.5, -29.5, -5.0, -1.0, -1e-3, 0.0, 2e-3, 1.0, 6.0, 40.0})
    for (double var : {1e-4, 0.3, 7.0}) {
      m.push_back(alpha * std::sqrt(var));
      v.push_back(var);
    }
  ReluBatch batch;
  relu_moments(m.data(), v.data(), m.size(), batch);
  for (std::size_t i = 0; i < m.size(); ++i) {
    const ReluMoments r = relu_moments(m[i], v[i]);
    INFO("m " << m[i] << " v " << v[i]);
    // The batch takes erfc and exp from libmvec (within 4 ulp), the scalar form from std::. For
    // alpha << 0 the mean is Phi(alpha) s (alpha + gamma), a difference of two terms of size
    // |alpha|, and the variance's 1 - gamma (gamma + alpha) cancels to about 1 / alpha^2: an ulp
    // of gamma becomes alpha^2 ulp of the mean and alpha^4 ulp of the variance (measured: 2e-13
    // and 9e-11 at alpha = -29.5), so the tolerances grow with alpha.
    const double alpha2 = m[i] * m[i] / v[i], ulps = 8.0 * std::numeric_limits<double>::epsilon();
    const double mean_tolerance = ulps * (1.0 + alpha2), variance_tolerance = ulps * (1.0 + alpha2) * (1.0 + alpha2);
    CHECK(batch.mean[i] == Approx(r.mean).epsilon(mean_tolerance).margin(1e-300));
    CHECK(batch.variance[i] == Approx(r.variance).epsilon(variance_tolerance).margin(1e-300));
    CHECK(batch.dmean_dm[i] == Approx(r.dmean_dm).epsilon(ulps).margin(1e-300));
    CHECK(batch.dmean_dv[i] == Approx(r.dmean_dv).epsilon(ulps).margin(1e-300));
    CHECK(batch.dvariance_dm[i] == Approx(r.dvariance_dm).epsilon(mean_tolerance).margin(1e-300));
    CHECK(batch.dvariance_dv[i] == Approx(r.dvariance_dv).epsilon(ulps).margin(1e-300));
  }
}

TEST_CASE("one ADF update of a two-hidden-layer network follows eqs. (6)-(7) with finite-difference log Z", "[pbp]") {
  Rng rng(12);
  const Network old = random_network(3, {4, 3}, rng);
  Eigen::VectorXd x(3);
  x << -0.6, 0.9, 0.25;
  const double y = -0.4;
  Network net = old;
  REQUIRE(adf_update(net, x, y) == 0);
  for (std::size_t l = 0; l < old.layers.size(); ++l) {
    const LogZDifferences fd = log_z_differences(old, l, x, y);
    for (Eigen::Index i = 0; i < old.layers[l].mean.rows(); ++i)
      for (Eigen::Index j = 0; j < old.layers[l].mean.cols(); ++j) {
        const double d_mean = fd.d_mean(i, j), d_variance = fd.d_variance(i, j);
        const double m = old.layers[l].mean(i, j), v = old.layers[l].variance(i, j);
        INFO("layer " << l << " weight " << i << "," << j);
        // every derivative is taken at the old network, also for the layers below the ones updated first
        CHECK(net.layers[l].mean(i, j) - m == Approx(v * d_mean).epsilon(1e-5).margin(1e-10));
        CHECK(v - net.layers[l].variance(i, j) ==
              Approx(v * v * (d_mean * d_mean - 2.0 * d_variance)).epsilon(1e-5).margin(1e-10));
      }
  }
}

TEST_CASE("PBP predictive: network output moments plus the expected noise variance", "[pbp]") {
  Rng rng(13);
  Network net = random_network(2, {5, 3}, rng);
  net.noise_shape = 4.0;
  net.noise_rate = 1.5;
  const pbp::Model model(net, FitReport{});
  Eigen::MatrixXd X(3, 2);
  X << 0.1, -0.3, 1.2, 0.8, -2.0, 0.5;
  const auto predictive = model.predict(X);
  REQUIRE(predictive->size() == 3);
  for (Eigen::Index i = 0; i < 3; ++i) {
    const OutputMoments out = forward(net, X.row(i).transpose());
    // E[1/gamma] = rate / (shape - 1) for gamma ~ Gamma(shape, rate)
    CHECK(predictive->mean(i) == Approx(out.mean).epsilon(1e-14));
    CHECK(predictive->variance(i) == Approx(out.variance + 1.5 / 3.0).epsilon(1e-14));
  }
}

TEST_CASE("ADF updates equal the plain reference loops bit for bit (1, 2 and 4 hidden layers)", "[pbp]") {
  // Release builds with AVX2 and FMA (x86-64-v3) compute the committed results: every bit must
  // agree there; other builds (other instruction sets, the sanitized -O1 build) sum and fuse
  // differently and are held to a relative 1e-9.
#if BNN_PBP_AVX2 && defined(NDEBUG)
  const double tolerance = 0.0;
#else
  const double tolerance = 1e-9;
#endif
  const auto differs = [tolerance](double a, double b) {
    return tolerance == 0.0 ? std::memcmp(&a, &b, sizeof a) != 0 : !(std::abs(a - b) <= tolerance * std::abs(b));
  };
  const std::vector<std::pair<Eigen::Index, std::vector<int>>> shapes = {
      {13, {50}}, {9, {7}}, {3, {13, 6}}, {5, {4, 9}}, {2, {5, 4, 6, 3}}, {1, {10, 10, 10, 10}}};
  for (const auto& [inputs, hidden] : shapes) {
    Rng rng(31 + static_cast<std::uint64_t>(inputs));
    Network net = random_network(inputs, hidden, rng);
    for (Layer& layer : net.layers) layer.variance *= 4.0;  // wide enough for undone updates
    Network reference = net;
    PassWorkspace workspace;
    long undone = 0, reference_undone = 0;
    Eigen::VectorXd x(inputs);
    for (int point = 0; point < 300; ++point) {
      for (Eigen::Index j = 0; j < inputs; ++j) x[j] = 2.0 * standard_normal(rng);
      const double y = standard_normal(rng) * (point % 17 == 0 ? 30.0 : 1.0);
      undone += adf_update(net, x, y, workspace);
      reference_undone += reference_adf_update(reference, x, y);
      if (point % 100 == 99) {
        refine_prior(net, 0.1);
        refine_prior(reference, 0.1);
      }
    }
    INFO("inputs " << inputs << ", " << hidden.size() << " hidden layers of " << hidden[0] << " units first");
    CHECK(undone == reference_undone);
    long different = 0;
    for (std::size_t l = 0; l < net.layers.size(); ++l)
      for (Eigen::Index i = 0; i < net.layers[l].mean.rows(); ++i)
        for (Eigen::Index j = 0; j < net.layers[l].mean.cols(); ++j)
          different += differs(net.layers[l].mean(i, j), reference.layers[l].mean(i, j)) +
                       differs(net.layers[l].variance(i, j), reference.layers[l].variance(i, j));
    CHECK(different == 0);
    CHECK_FALSE(differs(net.noise_shape, reference.noise_shape));
    CHECK_FALSE(differs(net.noise_rate, reference.noise_rate));
    const OutputMoments out = forward(net, x);
    CHECK(std::isfinite(out.mean));
  }
}
