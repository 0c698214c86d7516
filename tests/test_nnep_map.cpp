// NN-EP's MAP start (the alternative initialization of the paper's section 5): the gradient of
// the minimized function against finite differences, the estimate itself (positive output
// weights, the network it describes, a stationary point) and its use by fit().
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "methods/core/rng.hpp"
#include "methods/nnep/map_start.hpp"
#include "methods/nnep/nnep.hpp"
#include "methods/registry.hpp"
#include "tests/support/errors.hpp"
#include "tests/support/finite_difference.hpp"
#include "tests/support/fit_report.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"

using namespace bnn;
using namespace bnn::nnep;

namespace {

// n points of a smooth function of two inputs, with the bias column appended as fit() does.
void smooth_problem(Eigen::Index n, Rng& rng, Eigen::MatrixXd& X, Eigen::VectorXd& y) {
  X.resize(n, 3);
  y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    X(i, 0) = -2.0 + 4.0 * uniform01(rng);
    X(i, 1) = -2.0 + 4.0 * uniform01(rng);
    X(i, 2) = 1.0;
    y[i] = std::sin(1.5 * X(i, 0)) + 0.5 * X(i, 1) + 0.05 * standard_normal(rng);
  }
}

// sum_k v_k erf(w_k'x / sqrt 2) / sqrt K + v_0, the model of section 2.
double network(const Eigen::MatrixXd& w, const Eigen::VectorXd& v, const Eigen::VectorXd& x) {
  const Eigen::Index K = w.rows();
  double f = v[K];
  for (Eigen::Index k = 0; k < K; ++k)
    f += v[k] * std::erf(w.row(k).dot(x) / std::numbers::sqrt2) / std::sqrt(static_cast<double>(K));
  return f;
}

Options ard_with_units(int units) {
  Options options = ard_defaults();
  options.hidden_units = units;
  return options;
}

}  // namespace

TEST_CASE("nn-ep MAP start: the objective's gradient equals finite differences", "[nnep]") {
  Rng rng(21);
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  smooth_problem(40, rng, X, y);
  const Options options = ard_with_units(3);
  const Eigen::MatrixXd w = test::random_matrix(3, 3, rng, test::DrawOrder::by_columns);
  const Eigen::VectorXd v = test::random_vector(4, rng);  // negative v_k too
  Eigen::MatrixXd dw, unused_w;
  Eigen::VectorXd dv, unused_v;
  map_objective(X, y, options, w, v, dw, dv);
  // The value itself: E / sigma0^2 + the Gaussian priors' quadratic terms.
  double error = 0.0;
  for (Eigen::Index i = 0; i < X.rows(); ++i) error += 0.5 * std::pow(network(w, v, X.row(i).transpose()) - y[i], 2);
  double prior = 0.0;
  for (Eigen::Index k = 0; k < 3; ++k) {
    prior += 0.5 * w.row(k).head(2).squaredNorm() / options.initial_weight_variance;
    prior += 0.5 * w(k, 2) * w(k, 2) / options.initial_bias_variance;
    prior += 0.5 * v[k] * v[k] / options.output_weight_scale;
  }
  prior += 0.5 * v[3] * v[3] / options.output_bias_variance;
  const double noise_precision = 1.0 / (options.initial_noise_sd * options.initial_noise_sd);
  CHECK(map_objective(X, y, options, w, v, unused_w, unused_v) ==
        Approx(noise_precision * error + prior).epsilon(1e-12));
  const double h = 1e-6;
  const Eigen::MatrixXd numeric_dw = test::numeric_gradient(
      [&](const Eigen::MatrixXd& at) { return map_objective(X, y, options, at, v, unused_w, unused_v); }, w, h);
  const Eigen::VectorXd numeric_dv = test::numeric_gradient(
      [&](const Eigen::VectorXd& at) { return map_objective(X, y, options, w, at, unused_w, unused_v); }, v, h);
  CHECK(test::close_to(dw, numeric_dw, 1e-6, 1e-8));  // input weights
  CHECK(test::close_to(dv, numeric_dv, 1e-6, 1e-8));  // output weights
}

TEST_CASE("nn-ep MAP start: a unit with a negative output weight is mirrored, the network unchanged", "[nnep]") {
  Rng rng(12);
  const Eigen::MatrixXd w = test::random_matrix(3, 3, rng, test::DrawOrder::by_columns);
  const Eigen::VectorXd v = Eigen::Vector4d(0.7, -1.3, -0.2, 0.4);  // v_1..v_3, then v_0
  Eigen::MatrixXd mirrored_w = w;
  Eigen::VectorXd mirrored_v = v;
  make_output_weights_positive(mirrored_w, mirrored_v);
  CHECK(mirrored_v.isApprox(Eigen::Vector4d(0.7, 1.3, 0.2, 0.4)));
  CHECK(mirrored_w.row(0) == w.row(0));
  CHECK(mirrored_w.row(1) == -w.row(1));
  for (int i = 0; i < 20; ++i) {
    const Eigen::Vector3d x(standard_normal(rng), standard_normal(rng), 1.0);
    CHECK(network(mirrored_w, mirrored_v, x) == Approx(network(w, v, x)).epsilon(1e-14));
  }
}

TEST_CASE("nn-ep MAP start: positive output weights at a stationary point that fits the data", "[nnep]") {
  Rng data_rng(4);
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  smooth_problem(200, data_rng, X, y);
  const Options options = ard_with_units(6);
  Rng rng(8);
  const MapStart start = map_start(X, y, options, rng);
  CHECK(start.evaluations > 10);
  for (int k = 0; k < 6; ++k) CHECK(start.output_weights[k] >= 0.0);
  Eigen::MatrixXd dw;
  Eigen::VectorXd dv;
  // The sign flips leave the function and the symmetric priors unchanged: same objective.
  CHECK(map_objective(X, y, options, start.input_weights, start.output_weights, dw, dv) ==
        Approx(start.objective).epsilon(1e-10));
  const double gradient_norm = std::sqrt(dw.squaredNorm() + dv.squaredNorm());
  CHECK(gradient_norm < 1e-3 * std::max(1.0, std::abs(start.objective)));
  double squared_error = 0.0;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    squared_error += std::pow(network(start.input_weights, start.output_weights, X.row(i).transpose()) - y[i], 2);
  CHECK(std::sqrt(squared_error / 200.0) < 0.15);  // noise sd 0.05, function sd about 0.9
}

TEST_CASE("nn-ep with initialization = map: validation, determinism and the fit", "[nnep]") {
  const MethodEntry& ard = find_method("nn-ep-ard");
  CHECK(test::invalid_argument_message([&] {
          ard.canonical_config({{"initialization", "magic"}});
        }) == "nn-ep-ard: initialization is 'magic', but must be zero or map");
  CHECK(test::invalid_argument_message([&] {
          ard.canonical_config({{"initialization", "map"}, {"linear_units", "1"}});
        }).find("linear_units is 1") != std::string::npos);
  CHECK(test::invalid_argument_message([&] {
          ard.canonical_config({{"map_iterations", "0"}});
        }) == "nn-ep-ard: map_iterations is 0, but must be >= 1");
  Rng data_rng(5);
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  smooth_problem(150, data_rng, X, y);
  RegressionData data;
  data.X = X.leftCols(2);
  data.y = y;
  const ParamMap options{{"initialization", "map"}, {"hidden_units", "6"}, {"max_iterations", "60"}};
  Rng rng_a(3), rng_b(3);
  const auto first = ard.fit(data, options, rng_a);
  const auto second = ard.fit(data, options, rng_b);
  const auto p1 = first->predict(data.X), p2 = second->predict(data.X);
  double error = 0.0;
  for (Eigen::Index i = 0; i < p1->size(); ++i) {
    CHECK(p1->mean(i) == p2->mean(i));
    const double truth = std::sin(1.5 * X(i, 0)) + 0.5 * X(i, 1);
    error += std::pow(p1->mean(i) - truth, 2);
  }
  CHECK(std::sqrt(error / 150.0) < 0.15);
  // The start matters: the zero start of section 3.5.3 ends elsewhere.
  Rng rng_c(3);
  const auto zero = ard.fit(data, {{"hidden_units", "6"}, {"max_iterations", "60"}}, rng_c);
  const auto p0 = zero->predict(data.X);
  double difference = 0.0;
  for (Eigen::Index i = 0; i < p0->size(); ++i) difference = std::max(difference, std::abs(p0->mean(i) - p1->mean(i)));
  CHECK(difference > 1e-6);
  CHECK_NOTHROW(test::diagnostic(first->report(), "map_objective"));
}
