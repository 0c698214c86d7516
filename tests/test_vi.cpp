// VI: the per-point bound gradient against finite differences for the unbiased estimators (the
// same random draws on both sides), Graves's squared-gradient variance update, the KL term, and
// fits on a simple problem.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "methods/registry.hpp"
#include "methods/vi/vi.hpp"
#include "tests/support/finite_difference.hpp"
#include "tests/support/normal_density.hpp"
#include "tests/support/tolerance.hpp"

using namespace bnn;

namespace {
vi::Posterior random_posterior(Rng& rng) {
  vi::Posterior q;
  for (auto [out, in] : {std::pair{4, 3}, std::pair{1, 5}}) {
    RowMatrix m(out, in), r(out, in);
    for (Eigen::Index k = 0; k < m.size(); ++k) {
      m.data()[k] = standard_normal(rng);
      r.data()[k] = std::log(0.1 + 0.4 * uniform01(rng));
    }
    q.mean.push_back(m);
    q.rho.push_back(r);
  }
  q.log_noise_variance = std::log(0.3);
  return q;
}

// Mean and variance over `draws` of point_loss's gradient (flattened: every mean, every rho, the
// log noise variance) and of its data term, the draws from one stream seeded `seed`.
struct GradientMoments {
  Eigen::VectorXd mean, variance;
  double loss_mean = 0.0, loss_variance = 0.0;
};
GradientMoments gradient_moments(const vi::Posterior& q, const Eigen::VectorXd& x, double y, double n,
                                 const vi::Options& options, std::uint64_t seed, int draws) {
  Rng rng(seed);
  Eigen::VectorXd sum, sum_squares;
  double loss_sum = 0.0, loss_squares = 0.0;
  for (int d = 0; d < draws; ++d) {
    vi::BoundGradient g;
    const double loss = vi::point_loss(q, x, y, n, options, rng, g);
    std::vector<double> flat;
    for (const auto* part : {&g.d_mean, &g.d_rho})
      for (const RowMatrix& m : *part) flat.insert(flat.end(), m.data(), m.data() + m.size());
    flat.push_back(g.d_log_noise);
    const Eigen::Map<const Eigen::VectorXd> v(flat.data(), static_cast<Eigen::Index>(flat.size()));
    if (d == 0) {
      sum = Eigen::VectorXd::Zero(v.size());
      sum_squares = sum;
    }
    sum += v;
    sum_squares += v.cwiseAbs2();
    loss_sum += loss;
    loss_squares += loss * loss;
  }
  GradientMoments moments;
  moments.mean = sum / draws;
  moments.variance = ((sum_squares / draws - moments.mean.cwiseAbs2()) * draws / (draws - 1.0)).cwiseMax(0.0);
  moments.loss_mean = loss_sum / draws;
  moments.loss_variance = (loss_squares / draws - moments.loss_mean * moments.loss_mean) * draws / (draws - 1.0);
  return moments;
}
}  // namespace

TEST_CASE("VI bound gradients match finite differences with fixed draws", "[vi]") {
  Rng rng(1);
  const vi::Posterior q = random_posterior(rng);
  Eigen::VectorXd x(2);
  x << 0.5, -1.2;
  const double y = 0.8, n = 50.0;
  // With the adaptive prior the bound's KL term uses the prior that is optimal for q itself, so
  // the finite differences also move the prior: the analytic gradient must still agree.
  for (const auto& [estimator, prior] : {std::pair{"local", "fixed"}, std::pair{"weights", "fixed"},
                                         std::pair{"local", "adaptive"}, std::pair{"weights", "adaptive"}}) {
    vi::Options options;
    options.estimator = estimator;
    options.prior = prior;
    options.prior_variance = 2.0;
    const auto bound = [&](const vi::Posterior& p) {
      Rng draws(99);  // the same draws every time
      vi::BoundGradient unused;
      return vi::point_loss(p, x, y, n, options, draws, unused) + vi::kl_divergence(p, vi::prior_for(p, options)) / n;
    };
    Rng draws(99);
    vi::BoundGradient g;
    vi::point_loss(q, x, y, n, options, draws, g);
    for (std::size_t l = 0; l < q.mean.size(); ++l)
      for (const bool of_mean : {true, false}) {
        // the bound as a function of the layer's means (or rho), the rest of q fixed
        const auto bound_of = [&](const RowMatrix& values) {
          vi::Posterior moved = q;
          (of_mean ? moved.mean[l] : moved.rho[l]) = values;
          return bound(moved);
        };
        const RowMatrix fd = test::numeric_gradient(bound_of, of_mean ? q.mean[l] : q.rho[l], 1e-6);
        INFO(estimator << " " << prior << " layer " << l << (of_mean ? " mean" : " rho"));
        CHECK(test::close_to(of_mean ? g.d_mean[l] : g.d_rho[l], fd, 1e-5, 1e-8));
      }
    const double fd_log_noise = test::numeric_derivative(
        [&](double log_noise_variance) {
          vi::Posterior moved = q;
          moved.log_noise_variance = log_noise_variance;
          return bound(moved);
        },
        q.log_noise_variance, 1e-6);
    CHECK(g.d_log_noise == Approx(fd_log_noise).epsilon(1e-5));
  }
}

TEST_CASE("VI Graves estimator: exact mean gradient, squared gradients for the variances", "[vi]") {
  Rng rng(4);
  const vi::Posterior q = random_posterior(rng);
  Eigen::VectorXd x(2);
  x << -0.3, 0.9;
  const double y = -0.4, n = 30.0;
  vi::Options weights, graves;
  weights.estimator = "weights";
  graves.estimator = "graves";
  vi::BoundGradient g_weights, g_graves;
  Rng draws_a(7), draws_b(7);  // the same weight draw for both
  vi::point_loss(q, x, y, n, weights, draws_a, g_weights);
  vi::point_loss(q, x, y, n, graves, draws_b, g_graves);
  for (std::size_t l = 0; l < q.mean.size(); ++l)
    for (Eigen::Index k = 0; k < q.mean[l].size(); ++k) {
      INFO("layer " << l << " weight " << k);
      const double mu = q.mean[l].data()[k], sd = std::exp(q.rho[l].data()[k]);
      CHECK(g_graves.d_mean[l].data()[k] == Approx(g_weights.d_mean[l].data()[k]).epsilon(1e-12));
      // dL/dw of the data term at the draw: the mean gradient less the KL's mu / (v n)
      const double data_gradient = g_graves.d_mean[l].data()[k] - mu / (graves.prior_variance * n);
      // d/d log sd = sd * d/d sd = sd * (sd g^2 + (-1/sd + sd/v) / n)
      const double expected = sd * (sd * data_gradient * data_gradient + (-1.0 / sd + sd / graves.prior_variance) / n);
      CHECK(g_graves.d_rho[l].data()[k] == Approx(expected).epsilon(1e-10).margin(1e-14));
    }
}

TEST_CASE("VI KL term equals the closed form", "[vi]") {
  vi::Posterior q;
  q.mean = {RowMatrix::Constant(1, 2, 0.5)};
  q.rho = {RowMatrix::Constant(1, 2, std::log(0.2))};
  // KL(N(0.5, 0.04) || N(0, 2)) = 1/2 log(2/0.04) + (0.04 + 0.25)/(2*2) - 1/2, per weight.
  const double per_weight = 0.5 * std::log(2.0 / 0.04) + 0.29 / 4.0 - 0.5;
  CHECK(vi::kl_divergence(q, vi::GaussianPrior{0.0, 2.0}) == Approx(2 * per_weight));
}

TEST_CASE("VI adaptive prior minimizes the KL term", "[vi]") {
  Rng rng(8);
  const vi::Posterior q = random_posterior(rng);
  const vi::GaussianPrior best = vi::adaptive_prior(q);
  // Closed form on all 17 weights: the mean of the means, the mean of sd^2 + (mu - mean)^2.
  double sum = 0.0, count = 0.0;
  for (const auto& m : q.mean) {
    sum += m.sum();
    count += static_cast<double>(m.size());
  }
  const double mean = sum / count;
  double spread = 0.0;
  for (std::size_t l = 0; l < q.mean.size(); ++l)
    for (Eigen::Index k = 0; k < q.mean[l].size(); ++k)
      spread += std::exp(2.0 * q.rho[l].data()[k]) + std::pow(q.mean[l].data()[k] - mean, 2);
  CHECK(best.mean == Approx(mean).epsilon(1e-14));
  CHECK(best.variance == Approx(spread / 17.0).epsilon(1e-13));
  const double kl = vi::kl_divergence(q, best);
  for (const double dm : {-0.05, 0.05}) CHECK(vi::kl_divergence(q, {best.mean + dm, best.variance}) > kl);
  for (const double scale : {0.95, 1.05}) CHECK(vi::kl_divergence(q, {best.mean, best.variance * scale}) > kl);
  vi::Options options;
  options.prior = "adaptive";
  CHECK(vi::prior_for(q, options).variance == best.variance);
  options.prior = "fixed";
  options.prior_variance = 3.0;
  CHECK(vi::prior_for(q, options).mean == 0.0);
  CHECK(vi::prior_for(q, options).variance == 3.0);
}

TEST_CASE("VI fits a noisy sine, and its options are validated", "[vi]") {
  Rng data_rng(2);
  RegressionData data{Eigen::MatrixXd(200, 1), Eigen::VectorXd(200)};
  for (Eigen::Index i = 0; i < 200; ++i) {
    data.X(i, 0) = uniform(data_rng, -3, 3);
    data.y[i] = std::sin(data.X(i, 0)) + 0.1 * standard_normal(data_rng);
  }
  Rng rng(3);
  const auto model = find_method("vi").fit(
      data, {{"tune", "false"}, {"learning_rate", "0.003"}, {"momentum", "0.5"}, {"hidden_layers", "20"}}, rng);
  const auto p = model->predict(data.X);
  double sse = 0.0;
  for (Eigen::Index i = 0; i < 200; ++i) sse += std::pow(p->mean(i) - std::sin(data.X(i, 0)), 2);
  CHECK(std::sqrt(sse / 200) < 0.2);
  Rng graves_rng(3);
  const auto graves = find_method("vi").fit(data,
                                            {{"tune", "false"},
                                             {"learning_rate", "0.003"},
                                             {"momentum", "0.5"},
                                             {"hidden_layers", "20"},
                                             {"estimator", "graves"}},
                                            graves_rng);
  const auto pg = graves->predict(data.X);
  double sse_graves = 0.0;
  for (Eigen::Index i = 0; i < 200; ++i) sse_graves += std::pow(pg->mean(i) - std::sin(data.X(i, 0)), 2);
  CHECK(std::sqrt(sse_graves / 200) < 0.2);
  // a diverging run is a status with the learning rate named, not a crash
  const auto diverged = find_method("vi").fit(
      data, {{"tune", "false"}, {"learning_rate", "1e6"}, {"momentum", "0.9"}, {"epochs", "2"}}, rng);
  CHECK(diverged->report().status == FitStatus::numerical_error);
  CHECK_THAT(diverged->report().message, Catch::Contains("the bound diverged with learning rate 1e+06"));
  CHECK_THROWS_WITH(find_method("vi").fit(data, {{"estimator", "magic"}}, rng),
                    Catch::Contains("vi: estimator is 'magic'"));
  CHECK_THROWS_WITH(find_method("vi").fit(data, {{"predictive_samples", "1"}}, rng),
                    Catch::Contains("vi: predictive_samples is 1"));
  CHECK_THROWS_WITH(find_method("vi").fit(data, {{"prior", "flat"}}, rng),
                    Catch::Contains("vi: prior is 'flat', but must be fixed or adaptive"));
  CHECK_THROWS_WITH(find_method("vi").fit(data, {{"batch_size", "0"}}, rng),
                    Catch::Contains("vi: batch_size is 0, but must be >= 1"));
}

TEST_CASE("VI minibatch step: the mean of its points' gradients, all taken at the same q", "[vi]") {
  Rng rng(5);
  const vi::Posterior q0 = random_posterior(rng);
  Eigen::MatrixXd X(5, 2);
  Eigen::VectorXd y(5);
  for (Eigen::Index i = 0; i < 5; ++i) {
    X(i, 0) = standard_normal(rng);
    X(i, 1) = standard_normal(rng);
    y[i] = standard_normal(rng);
  }
  vi::Options options;
  options.epochs = 1;
  options.batch_size = 3;  // one step over 3 points, then one over the last 2
  const double learning_rate = 0.01;
  vi::Posterior trained = q0;
  Rng train_rng(11);
  REQUIRE(vi::train(trained, X, y, options, learning_rate, 0.0, train_rng));
  // The same stream by hand: the epoch's permutation, then each point's draws in order.
  Rng replay(11);
  const std::vector<std::size_t> order = random_permutation(replay, 5);
  vi::Posterior expected = q0;
  for (auto [start, end] : {std::pair{0, 3}, std::pair{3, 5}}) {
    const vi::Posterior at = expected;
    for (int b = start; b < end; ++b) {
      vi::BoundGradient g;
      const auto i = static_cast<Eigen::Index>(order[static_cast<std::size_t>(b)]);
      vi::point_loss(at, X.row(i).transpose(), y[i], 5.0, options, replay, g);
      for (std::size_t l = 0; l < at.mean.size(); ++l) {
        expected.mean[l] -= learning_rate / (end - start) * g.d_mean[l];
        expected.rho[l] -= learning_rate / (end - start) * g.d_rho[l];
      }
      expected.log_noise_variance -= learning_rate / (end - start) * g.d_log_noise;
    }
  }
  for (std::size_t l = 0; l < q0.mean.size(); ++l) {
    CHECK(trained.mean[l].isApprox(expected.mean[l], 1e-12));
    CHECK(trained.rho[l].isApprox(expected.rho[l], 1e-12));
    CHECK_FALSE(trained.mean[l].isApprox(q0.mean[l], 1e-6));
  }
  CHECK(trained.log_noise_variance == Approx(expected.log_noise_variance).epsilon(1e-12));
}

TEST_CASE("VI local and weights estimators have the same expected gradient", "[vi]") {
  // Both differentiate the same expected data term (given the layer input, a unit's
  // pre-activation under q(w) is exactly the Gaussian the local estimator draws), so their
  // Monte Carlo means must agree within their standard errors.
  Rng rng(14);
  const vi::Posterior q = random_posterior(rng);
  Eigen::VectorXd x(2);
  x << 0.7, -0.4;
  const double y = 0.5, n = 40.0;
  const int draws = 20000;
  vi::Options local, weights;
  local.estimator = "local";
  weights.estimator = "weights";
  const GradientMoments a = gradient_moments(q, x, y, n, local, 101, draws);
  const GradientMoments b = gradient_moments(q, x, y, n, weights, 202, draws);
  REQUIRE(a.mean.size() == 2 * 17 + 1);
  CHECK(a.variance.minCoeff() > 0.0);  // every hidden unit is active in some draws
  for (Eigen::Index k = 0; k < a.mean.size(); ++k) {
    const double standard_error = std::sqrt((a.variance[k] + b.variance[k]) / draws);
    INFO("component " << k << ": local " << a.mean[k] << ", weights " << b.mean[k] << ", se " << standard_error);
    CHECK(std::abs(a.mean[k] - b.mean[k]) <= 4.0 * standard_error);
  }
  const double loss_error = std::sqrt((a.loss_variance + b.loss_variance) / draws);
  CHECK(std::abs(a.loss_mean - b.loss_mean) <= 4.0 * loss_error);
}

TEST_CASE("VI without hidden layers: Monte Carlo data term and gradients match the closed form", "[vi]") {
  // output a = s w'z with z = [x; 1], s = 1/sqrt(3): a ~ N(s mu'z, s^2 sum sd^2 z^2), so the
  // expected data term is 1/2 log(2 pi sigma2) + ((E a - y)^2 + Var a) / (2 sigma2).
  vi::Posterior q;
  q.mean = {RowMatrix(1, 3)};
  q.rho = {RowMatrix(1, 3)};
  q.mean[0] << 0.6, -1.1, 0.3;
  q.rho[0] << std::log(0.4), std::log(0.15), std::log(0.7);
  q.log_noise_variance = std::log(0.2);
  Eigen::Vector3d z(1.3, 0.5, 1.0);
  const double y = 0.9, n = 25.0, sigma2 = 0.2, s = 1.0 / std::sqrt(3.0);
  const Eigen::Vector3d mu = q.mean[0].transpose(), sd = q.rho[0].array().exp().transpose();
  const double mean_a = s * mu.dot(z), var_a = s * s * sd.cwiseAbs2().dot(z.cwiseAbs2());
  const double expected_square = std::pow(mean_a - y, 2) + var_a;  // E[(a - y)^2]
  const double loss = 0.5 * std::log(2.0 * M_PI * sigma2) + 0.5 * expected_square / sigma2;
  const int draws = 20000;
  for (const std::string estimator : {"local", "weights", "graves"}) {
    vi::Options options;
    options.estimator = estimator;
    options.prior_variance = 1.5;
    const GradientMoments m = gradient_moments(q, z.head(2), y, n, options, 303, draws);
    INFO(estimator);
    CHECK(std::abs(m.loss_mean - loss) <= 4.0 * std::sqrt(m.loss_variance / draws));
    for (Eigen::Index j = 0; j < 3; ++j) {
      const double d_mean = s * z[j] * (mean_a - y) / sigma2 + mu[j] / (1.5 * n);
      // d/d rho of E[data]: sd^2 s^2 z^2 / sigma2 (the reparameterized estimators); Graves's
      // sd^2 E[(dL/dw)^2] = sd^2 s^2 z^2 E[(a - y)^2] / sigma2^2 instead. Plus sd dKL/dsd / n.
      const double data_rho = estimator == "graves"
                                  ? sd[j] * sd[j] * s * s * z[j] * z[j] * expected_square / (sigma2 * sigma2)
                                  : sd[j] * sd[j] * s * s * z[j] * z[j] / sigma2;
      const double d_rho = data_rho + (-1.0 + sd[j] * sd[j] / 1.5) / n;
      INFO("weight " << j << ": mean " << m.mean[j] << " vs " << d_mean << ", rho " << m.mean[3 + j] << " vs "
                     << d_rho);
      CHECK(std::abs(m.mean[j] - d_mean) <= 4.0 * std::sqrt(m.variance[j] / draws));
      CHECK(std::abs(m.mean[3 + j] - d_rho) <= 4.0 * std::sqrt(m.variance[3 + j] / draws));
    }
    const double d_log_noise = 0.5 - 0.5 * expected_square / sigma2;
    CHECK(std::abs(m.mean[6] - d_log_noise) <= 4.0 * std::sqrt(m.variance[6] / draws));
  }
}

TEST_CASE("VI predictives from output draws: moment-matched Gaussian and mixture", "[vi]") {
  Rng rng(31);
  const vi::Posterior q = random_posterior(rng);  // 2 inputs, 4 hidden units
  Eigen::MatrixXd X(2, 2);
  X << 0.3, -1.2, 1.5, 0.4;
  const double noise = 0.3;
  const std::uint64_t seed = 77;
  const int samples = 7;
  // The draws predict takes: from Rng(seed), every weight of draw s in layer order, row-major.
  Eigen::MatrixXd draws(2, samples);
  Rng stream(seed);
  std::vector<RowMatrix> w(q.mean.size());
  ReluCache cache;
  for (int s = 0; s < samples; ++s) {
    for (std::size_t l = 0; l < q.mean.size(); ++l) {
      w[l].resize(q.mean[l].rows(), q.mean[l].cols());
      for (Eigen::Index k = 0; k < w[l].size(); ++k)
        w[l].data()[k] = q.mean[l].data()[k] + std::exp(q.rho[l].data()[k]) * standard_normal(stream);
    }
    for (Eigen::Index i = 0; i < 2; ++i) draws(i, s) = relu_forward(w, X.row(i).transpose(), cache);
  }
  vi::Options options;
  options.predictive_samples = samples;
  const auto gaussian = vi::Model(q, options, seed, FitReport{}).predict(X);
  options.predictive = "mixture";
  const auto mixture = vi::Model(q, options, seed, FitReport{}).predict(X);
  for (Eigen::Index i = 0; i < 2; ++i) {
    const double mean = draws.row(i).mean();
    const double variance = (draws.row(i).array() - mean).square().sum() / samples;  // population
    INFO("point " << i);
    REQUIRE(variance > 0.01);  // the draws differ, so the variance's divisor matters
    CHECK(gaussian->mean(i) == Approx(mean).epsilon(1e-12));
    CHECK(gaussian->variance(i) == Approx(variance + noise).epsilon(1e-12));
    // the equal-weight mixture has the same first two moments (law of total variance)
    CHECK(mixture->mean(i) == Approx(mean).epsilon(1e-12));
    CHECK(mixture->variance(i) == Approx(variance + noise).epsilon(1e-12));
    for (const double y : {-1.0, 0.2, 2.5}) {
      double sum = 0.0;
      for (int s = 0; s < samples; ++s) sum += test::normal_density(y, draws(i, s), noise);
      CHECK(mixture->log_density(i, y) == Approx(std::log(sum / samples)).epsilon(1e-12));
    }
  }
}
