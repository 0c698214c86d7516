// The deterministic ReLU network (gradients against finite differences), Bayesian
// optimization (on functions with a known minimum, with failing evaluations) and BP.
#include <omp.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "methods/bp/bp.hpp"
#include "methods/core/momentum_sgd.hpp"
#include "methods/core/parallel_pieces.hpp"
#include "methods/core/relu_network.hpp"
#include "methods/core/tuning/bayes_opt.hpp"
#include "methods/core/tuning/refit.hpp"
#include "methods/registry.hpp"
#include "tests/support/finite_difference.hpp"
#include "tests/support/tolerance.hpp"

using namespace bnn;

TEST_CASE("ReLU network gradients match finite differences", "[bp]") {
  Rng rng(1);
  const ReluNetwork net = ReluNetwork::random(3, {4, 3}, 1.0, rng);
  Eigen::VectorXd x(3);
  x << 0.3, -0.8, 1.1;
  ReluCache cache;
  ReluDeltas scratch;
  std::vector<RowMatrix> g;
  for (const auto& W : net.weights) g.push_back(RowMatrix::Zero(W.rows(), W.cols()));
  relu_forward(net.weights, x, cache);
  relu_backward(net.weights, cache, 1.0, g, scratch);
  for (std::size_t l = 0; l < net.weights.size(); ++l) {
    const auto output_of = [&](const RowMatrix& layer_weights) {
      auto moved = net.weights;
      moved[l] = layer_weights;
      return relu_forward(moved, x, cache);
    };
    INFO("layer " << l);
    CHECK(test::close_to(g[l], test::numeric_gradient(output_of, net.weights[l], 1e-6), 1e-6, 1e-9));
  }
}

TEST_CASE("BP's fused SGD step equals the backward pass followed by the momentum step", "[bp]") {
  // The separate passes (relu_backward into a zeroed gradient, then MomentumSgd::step with weight
  // decay) computed BP's committed results; Release builds with FMA (x86-64-v3) must give their
  // bits, other builds may fuse other multiply-adds.
  const bp::Hyperparameters h{0.013, 0.87, 3e-4};
  for (const std::vector<int>& hidden : {std::vector<int>{50}, {50, 50, 50}, {7, 19, 33}, {40, 1}}) {
    Rng rng(7);
    ReluNetwork fused = ReluNetwork::random(13, hidden, 1.0, rng);
    ReluNetwork separate = fused;
    std::vector<RowMatrix> v_fused, v_separate, g;
    for (const auto& W : fused.weights) {
      v_fused.push_back(RowMatrix::Zero(W.rows(), W.cols()));
      g.push_back(RowMatrix::Zero(W.rows(), W.cols()));
    }
    v_separate = v_fused;
    const MomentumSgd sgd{h.learning_rate, h.momentum};
    ReluDeltas deltas, scratch;
    ReluCache cache;
    for (int point = 0; point < 20; ++point) {
      Eigen::VectorXd x(13);
      for (Eigen::Index j = 0; j < x.size(); ++j) x[j] = standard_normal(rng);
      const double y = standard_normal(rng);
      const double out = relu_forward(separate.weights, x, cache);
      for (auto& gl : g) gl.setZero();
      relu_backward(separate.weights, cache, out - y, g, scratch);
      for (std::size_t l = 0; l < g.size(); ++l)
        sgd.step(separate.weights[l], v_separate[l], g[l] + h.weight_decay * separate.weights[l]);
      const double fused_out = relu_forward(fused.weights, x, cache);
#if defined(NDEBUG) && defined(__FMA__)
      REQUIRE(fused_out == out);
#else
      REQUIRE(fused_out == Approx(out).epsilon(1e-12));
#endif
      bp::sgd_backward_step(fused, cache, fused_out - y, h, v_fused, deltas);
    }
    for (std::size_t l = 0; l < g.size(); ++l) {
      INFO("hidden " << hidden.size() << " layers, layer " << l);
#if defined(NDEBUG) && defined(__FMA__)
      CHECK(fused.weights[l] == separate.weights[l]);
      CHECK(v_fused[l] == v_separate[l]);
#else
      CHECK(test::close_to(fused.weights[l], separate.weights[l], 1e-12, 1e-14));
#endif
    }
  }
}

TEST_CASE("expected improvement formula", "[bp]") {
  // EI = (best - mean) Phi(z) + sd phi(z), z = (best - mean) / sd.
  CHECK(tuning::expected_improvement(0.0, 0.0, 1.0) == Approx(1.0 / std::sqrt(2 * M_PI)));
  CHECK(tuning::expected_improvement(1.0, 3.0, 0.0) == 0.0);
  CHECK(tuning::expected_improvement(3.0, 1.0, 0.0) == 2.0);
  CHECK(tuning::expected_improvement(0.0, 1.0, 0.5) < tuning::expected_improvement(0.0, 1.0, 1.0));
}

TEST_CASE("surrogate interpolates its data", "[bp]") {
  Eigen::MatrixXd X(8, 2);
  Eigen::VectorXd y(8);
  for (int i = 0; i < 8; ++i) {
    X(i, 0) = i / 7.0;
    X(i, 1) = (i * 3 % 8) / 7.0;
    y[i] = std::sin(3 * X(i, 0)) + X(i, 1) * X(i, 1);
  }
  const tuning::Surrogate s = tuning::fit_surrogate(X, y);
  for (int i = 0; i < 8; ++i) {
    double mean = 0.0, sd = 0.0;
    s.predict(X.row(i).transpose(), mean, sd);
    CHECK(mean == Approx(y[i]).margin(0.05));
    CHECK(sd < 0.2);
  }
}

TEST_CASE("Bayesian optimization finds the minimum of a smooth function", "[bp]") {
  Rng rng(2);
  std::atomic<int> calls{0};  // the initial evaluations run in parallel
  const auto f = [&](const Eigen::VectorXd& u) {
    ++calls;
    return std::pow(u[0] - 0.3, 2) + 2.0 * std::pow(u[1] - 0.7, 2) + 0.5 * std::pow(u[2] - 0.5, 2);
  };
  tuning::BayesOptOptions options;
  const auto result = tuning::minimize(f, 3, options, rng);
  CHECK(calls == 30);
  CHECK(result.best_value < 0.01);
  CHECK(std::abs(result.best_x[0] - 0.3) < 0.1);
  CHECK(std::abs(result.best_x[1] - 0.7) < 0.1);
  // Random search with the same budget does worse on average: compare with its expectation
  // roughly (the chance a random point scores below 0.01 is about 1e-3).
}

TEST_CASE("Bayesian optimization survives failing evaluations", "[bp]") {
  Rng rng(3);
  const auto f = [](const Eigen::VectorXd& u) {
    if (u[0] > 0.6) return std::numeric_limits<double>::infinity();  // "diverged"
    return std::pow(u[0] - 0.5, 2) + std::pow(u[1] - 0.2, 2);
  };
  const auto result = tuning::minimize(f, 2, {}, rng);
  CHECK(std::isfinite(result.best_value));
  CHECK(result.best_x[0] <= 0.6);
  CHECK(result.best_value < 0.02);
}

TEST_CASE("Bayesian optimization gives the same result with its initial evaluations on one or two threads", "[bp]") {
  const auto f = [](const Eigen::VectorXd& u) {
    double sum = 0.0;  // a little work, so that the pieces overlap
    for (int i = 0; i < 20000; ++i) sum += std::sin(u[0] * i) * 1e-9;
    return std::pow(u[0] - 0.4, 2) + std::pow(u[1] - 0.6, 2) + sum;
  };
  tuning::BayesOptOptions options;
  options.evaluations = 12;
  std::vector<tuning::BayesOptResult> results;
  std::vector<double> elsewhere;
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    Rng rng(5);
    const double before = pieces_cpu_seconds_elsewhere();
    results.push_back(tuning::minimize(f, 2, options, rng));
    elsewhere.push_back(pieces_cpu_seconds_elsewhere() - before);
  }
  omp_set_num_threads(saved);
  CHECK(results[0].values == results[1].values);
  CHECK(results[0].xs == results[1].xs);
  CHECK(elsewhere[0] == 0.0);  // one thread: every evaluation on the caller's
}

TEST_CASE("ranked evaluations: finite values, best first, at most count", "[bp]") {
  tuning::BayesOptResult result;
  result.values = {0.5, std::numeric_limits<double>::infinity(), 0.2, std::nan(""), 0.9, 0.2};
  CHECK(tuning::ranked_evaluations(result, 10) == std::vector<std::size_t>{2, 5, 0, 4});
  CHECK(tuning::ranked_evaluations(result, 2) == std::vector<std::size_t>{2, 5});
  result.values = {std::numeric_limits<double>::infinity()};
  CHECK(tuning::ranked_evaluations(result, 3).empty());
}

TEST_CASE("refit moves on to the next configuration until one trains", "[bp]") {
  const std::vector<double> rates = {0.3, 0.1, 0.03};
  std::vector<std::size_t> tried;
  FitReport report;
  const auto rate = [&](std::size_t c) { return rates[c]; };
  const std::size_t used = tuning::refit_until_stable(
      3,
      [&](std::size_t c) {
        tried.push_back(c);
        return c == 1;
      },
      rate, "SGD", report);
  CHECK(used == 1);
  CHECK(tried == std::vector<std::size_t>{0, 1});
  REQUIRE(report.warnings.size() == 1);
  CHECK_THAT(report.warnings[0], Catch::Contains("learning rate 0.3") && Catch::Contains("next-best"));
  CHECK(report.status == FitStatus::ok);

  FitReport all_failed;
  CHECK(tuning::refit_until_stable(
            3, [](std::size_t) { return false; }, rate, "SGD", all_failed) == 2);
  CHECK(all_failed.warnings.size() == 2);  // the last divergence is the status, not a warning
  CHECK(all_failed.status == FitStatus::numerical_error);
  CHECK(all_failed.message == "SGD diverged with learning rate 0.03");
  CHECK_THROWS_AS(tuning::refit_until_stable(
                      0, [](std::size_t) { return true; }, rate, "SGD", all_failed),
                  std::invalid_argument);
}

TEST_CASE("BP reports a diverged fit as a status", "[bp]") {
  Rng data_rng(8);
  RegressionData data{Eigen::MatrixXd(50, 1), Eigen::VectorXd(50)};
  for (Eigen::Index i = 0; i < 50; ++i) {
    data.X(i, 0) = standard_normal(data_rng);
    data.y[i] = 3.0 * data.X(i, 0);
  }
  Rng rng(9);
  const auto model = find_method("bp").fit(
      data, {{"tune", "false"}, {"learning_rate", "1e6"}, {"momentum", "0.9"}, {"epochs", "5"}}, rng);
  CHECK(model->report().status == FitStatus::numerical_error);
  CHECK_THAT(model->report().message, Catch::Contains("SGD diverged with learning rate 1e+06"));
}

TEST_CASE("BP fits a noisy sine, and its options are validated", "[bp]") {
  Rng data_rng(4);
  RegressionData data{Eigen::MatrixXd(300, 1), Eigen::VectorXd(300)};
  for (Eigen::Index i = 0; i < 300; ++i) {
    data.X(i, 0) = uniform(data_rng, -3, 3);
    data.y[i] = std::sin(data.X(i, 0)) + 0.1 * standard_normal(data_rng);
  }
  bp::Options options;
  options.tune = false;
  options.learning_rate = 0.01;
  options.momentum = 0.5;
  Rng rng(5);
  const bp::Model model = bp::fit(data, options, rng);
  const auto pred = model.predict(data.X);
  double sse = 0.0;
  for (Eigen::Index i = 0; i < 300; ++i) sse += std::pow(pred->mean(i) - std::sin(data.X(i, 0)), 2);
  CHECK(std::sqrt(sse / 300) < 0.15);  // sd of sin(x) on [-3, 3] is 0.7
  CHECK(pred->variance(0) == Approx(model.report().diagnostics.back().second));
  CHECK_THROWS_WITH(find_method("bp").fit(data, {{"momentum", "1"}}, rng),
                    Catch::Contains("bp: momentum is 1, but must be < 1"));
  CHECK_THROWS_WITH(find_method("bp").fit(data, {{"epochs", "0"}}, rng), Catch::Contains("bp: epochs is 0"));
}

TEST_CASE("BP tuning uses only the training data and reports its choice", "[bp]") {
  Rng data_rng(6);
  RegressionData data{Eigen::MatrixXd(120, 2), Eigen::VectorXd(120)};
  for (Eigen::Index i = 0; i < 120; ++i) {
    data.X(i, 0) = standard_normal(data_rng);
    data.X(i, 1) = standard_normal(data_rng);
    data.y[i] = data.X(i, 0) - 0.5 * data.X(i, 1) + 0.2 * standard_normal(data_rng);
  }
  Rng a(7), b(7);
  const ParamMap options = {{"tuning_evaluations", "8"}, {"epochs", "10"}, {"hidden_layers", "10"}};
  const auto m1 = find_method("bp").fit(data, options, a);
  const auto m2 = find_method("bp").fit(data, options, b);
  CHECK(m1->report().diagnostics == m2->report().diagnostics);  // deterministic
  double validation_rmse = -1;
  for (const auto& [k, v] : m1->report().diagnostics)
    if (k == "validation_rmse") validation_rmse = v;
  CHECK(validation_rmse > 0.1);
  CHECK(validation_rmse < 0.6);
}
