// VI: the per-point bound gradient against finite differences for the unbiased estimators (the
// same random draws on both sides), Graves's squared-gradient variance update, the KL term, and
// fits on a simple problem.
#include <catch2/catch.hpp>
#include <cmath>

#include "methods/registry.hpp"
#include "methods/vi/vi.hpp"

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
      for (Eigen::Index k = 0; k < q.mean[l].size(); ++k) {
        for (int which = 0; which < 2; ++which) {
          vi::Posterior a = q, b = q;
          auto& pa = which == 0 ? a.mean[l] : a.rho[l];
          auto& pb = which == 0 ? b.mean[l] : b.rho[l];
          pa.data()[k] += 1e-6;
          pb.data()[k] -= 1e-6;
          const double fd = (bound(a) - bound(b)) / 2e-6;
          const double analytic = (which == 0 ? g.d_mean[l] : g.d_rho[l]).data()[k];
          INFO(estimator << " " << prior << " layer " << l << " weight " << k << (which == 0 ? " mean" : " rho"));
          CHECK(analytic == Approx(fd).epsilon(1e-5).margin(1e-8));
        }
      }
    vi::Posterior a = q, b = q;
    a.log_noise_variance += 1e-6;
    b.log_noise_variance -= 1e-6;
    CHECK(g.d_log_noise == Approx((bound(a) - bound(b)) / 2e-6).epsilon(1e-5));
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
  CHECK(count == 17.0);
  CHECK(best.mean == Approx(sum / count).epsilon(1e-14));
  const double kl = vi::kl_divergence(q, best);
  for (const double dm : {-0.05, 0.05})
    CHECK(vi::kl_divergence(q, {best.mean + dm, best.variance}) > kl);
  for (const double scale : {0.95, 1.05})
    CHECK(vi::kl_divergence(q, {best.mean, best.variance * scale}) > kl);
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
                                            {{"tune", "false"}, {"learning_rate", "0.003"}, {"momentum", "0.5"},
                                             {"hidden_layers", "20"}, {"estimator", "graves"}},
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
  CHECK_THROWS_WITH(find_method("vi").fit(data, {{"estimator", "magic"}}, rng), Catch::Contains("vi: estimator is 'magic'"));
  CHECK_THROWS_WITH(find_method("vi").fit(data, {{"predictive_samples", "1"}}, rng), Catch::Contains("vi: predictive_samples is 1"));
  CHECK_THROWS_WITH(find_method("vi").fit(data, {{"prior", "flat"}}, rng), Catch::Contains("vi: prior is 'flat', but must be fixed or adaptive"));
  CHECK_THROWS_WITH(find_method("vi").fit(data, {{"batch_size", "0"}}, rng), Catch::Contains("vi: batch_size is 0, but must be >= 1"));
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
