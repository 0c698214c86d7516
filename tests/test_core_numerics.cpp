// The shared numerics of methods/core: the normal-distribution helpers (normal.hpp), the L-BFGS
// wrapper that keeps the best point it evaluated (minimize.hpp), the activation set
// (activation.hpp), SGD with momentum (momentum_sgd.hpp) and Choice options (choice.hpp).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numbers>

#include "methods/core/activation.hpp"
#include "methods/core/choice.hpp"
#include "methods/core/minimize.hpp"
#include "methods/core/mlp.hpp"
#include "methods/core/momentum_sgd.hpp"
#include "methods/core/normal.hpp"
#include "methods/core/options.hpp"
#include "methods/core/relu_network.hpp"
#include "methods/core/two_layer_network.hpp"

using namespace bnn;

TEST_CASE("the two log(2 pi) constants are the ones their callers computed", "[core][normal]") {
  // std::log of the double 2 pi, folded by the compiler or at run time.
  CHECK(kLog2PiOfDouble == std::log(2.0 * std::numbers::pi));
  volatile double two_pi = 2.0 * std::numbers::pi;  // not folded
  CHECK(kLog2PiOfDouble == std::log(two_pi));
  // log(2 pi) = 1.83787706640934548356065947...: kLog2Pi is the nearest double, one ulp above.
  CHECK(kLog2Pi == std::nextafter(kLog2PiOfDouble, 2.0));
  const long double exact = 1.83787706640934548356065947281123528L;
  const auto distance = [&](double value) { return std::abs(static_cast<long double>(value) - exact); };
  CHECK(distance(kLog2Pi) < distance(kLog2PiOfDouble));
}

TEST_CASE("normal helpers agree with their definitions", "[core][normal]") {
  CHECK(normal_pdf(0.0) == Approx(1.0 / std::sqrt(2.0 * std::numbers::pi)));
  CHECK(normal_cdf(0.0) == 0.5);
  CHECK(normal_cdf(1.959963984540054) == Approx(0.975).epsilon(1e-12));
  CHECK(normal_log_pdf(1.5, 0.5, 4.0) == Approx(std::log(normal_pdf(0.5) / 2.0)).epsilon(1e-14));
  CHECK(normal_log_pdf_split(1.5, 0.5, 4.0) == Approx(normal_log_pdf(1.5, 0.5, 4.0)).epsilon(1e-14));
  // log Phi: the erfc branch and the tail series meet at -20.
  CHECK(log_normal_cdf(-19.999) == Approx(log_normal_cdf(-20.001)).epsilon(1e-3));
  CHECK(log_normal_cdf(-40.0) == Approx(-804.6084420137538).epsilon(1e-12));
  for (double z : {-35.0, -5.0, 0.0, 3.0})
    CHECK(inverse_mills(z) == Approx(std::exp(-0.5 * z * z - 0.5 * kLog2Pi - log_normal_cdf(z))));
  CHECK(inverse_mills(1.0) == Approx(normal_pdf(1.0) / normal_cdf(1.0)).epsilon(1e-14));
  CHECK(inverse_mills(-40.0) == Approx(40.0 + 1.0 / 40.0).epsilon(1e-5));
}

TEST_CASE("gamma_moment_match leaves a Gamma the data do not inform unchanged", "[core][normal]") {
  // A constant likelihood: Z_0 = Z_1 = Z_2, and the matched Gamma is the one it started from.
  const GammaMatch m = gamma_moment_match(3.5, 2.0, -1.25, -1.25, -1.25);
  CHECK(m.shape == Approx(3.5).epsilon(1e-14));
  CHECK(m.rate == Approx(2.0).epsilon(1e-14));
}

namespace {

// A smooth convex function with its minimum 0 at (1, -2).
double bowl(const Eigen::VectorXd& x, Eigen::VectorXd& g) {
  const double a = x[0] - 1.0, b = x[1] + 2.0;
  g.resize(2);
  g[0] = 2.0 * a + 0.4 * a * a * a;
  g[1] = 20.0 * b;
  return a * a + 10.0 * b * b + 0.1 * a * a * a * a;
}

}  // namespace

TEST_CASE("Lbfgs minimizes and reports the best point", "[core][minimize]") {
  LBFGSpp::LBFGSParam<double> settings;
  settings.max_iterations = 200;
  const Lbfgs optimizer(settings);
  const Minimum m = optimizer.minimize(bowl, Eigen::Vector2d(-1.2, 1.0));
  CHECK_FALSE(m.line_search_failed);
  CHECK(m.x[0] == Approx(1.0).epsilon(1e-4));
  CHECK(m.x[1] == Approx(-2.0).epsilon(1e-4));
  CHECK(m.value < 1e-8);
  CHECK(m.gradient_norm < 1e-3);
  CHECK(m.evaluations > m.iterations);
  CHECK(m.last_x == m.x);  // the solver ends at its best point here
  // Reusable: a second run from the same start gives the same result.
  const Minimum again = optimizer.minimize(bowl, Eigen::Vector2d(-1.2, 1.0));
  CHECK(again.x == m.x);
  CHECK(again.evaluations == m.evaluations);
}

TEST_CASE("Lbfgs keeps the best point when the line search fails", "[core][minimize]") {
  // f = |x|^2 with a wrong gradient (pointing uphill): the line search cannot decrease f and
  // LBFGS++ throws; the best point evaluated (the start) is returned.
  const auto wrong = [](const Eigen::VectorXd& x, Eigen::VectorXd& g) {
    g = -2.0 * x;
    return x.squaredNorm();
  };
  LBFGSpp::LBFGSParam<double> settings;
  settings.max_linesearch = 5;
  const Minimum m = Lbfgs(settings).minimize(wrong, Eigen::Vector2d(1.0, -2.0));
  CHECK(m.line_search_failed);
  CHECK(m.iterations == 0);
  CHECK(m.x == Eigen::Vector2d(1.0, -2.0));
  CHECK(m.value == 5.0);
  CHECK(m.evaluations > 1);
}

TEST_CASE("Lbfgs never keeps a non-finite evaluation and hands it on as asked", "[core][minimize]") {
  // f = |x - 3|^2, but its second evaluation (the line search's first trial) is NaN.
  int calls = 0, non_finite = 0;
  const auto f = [&](const Eigen::VectorXd& x, Eigen::VectorXd& g) {
    g = 2.0 * (x.array() - 3.0).matrix();
    if (++calls == 2) {
      ++non_finite;
      return std::numeric_limits<double>::quiet_NaN();
    }
    return (x.array() - 3.0).square().sum();
  };
  LBFGSpp::LBFGSParam<double> settings;
  settings.max_iterations = 50;
  for (NonFinite rule : {NonFinite::infinite, NonFinite::huge, NonFinite::huge_value}) {
    calls = non_finite = 0;
    const Minimum m = Lbfgs(settings, rule).minimize(f, Eigen::VectorXd::Constant(1, -10.0));
    CHECK(non_finite == 1);
    CHECK(std::isfinite(m.value));
    CHECK(m.x[0] == Approx(3.0).epsilon(1e-6));
  }
}

TEST_CASE("LbfgsBounded stays in its box", "[core][minimize]") {
  LBFGSpp::LBFGSBParam<double> settings;
  settings.max_iterations = 100;
  const Eigen::Vector2d lower(-3.0, -3.0), upper(0.5, 3.0);
  const Minimum m = LbfgsBounded(settings).minimize(bowl, Eigen::Vector2d(-1.2, 1.0), lower, upper);
  CHECK(m.x[0] == Approx(0.5).epsilon(1e-6));
  CHECK(m.x[1] == Approx(-2.0).epsilon(1e-4));
  CHECK(m.last_value == Approx(m.value));
}

// ---------------------------------------------------------------- activation set, SGD, choices

TEST_CASE("the activation set's derivatives agree with finite differences", "[core][activation]") {
  for (Activation g : {Activation::tanh, Activation::relu, Activation::erf}) {
    INFO(to_string(g));
    for (double a : {-2.3, -0.4, 0.7, 1.9}) {
      const double h = 1e-6;
      const double slope = (activation_value(g, a + h) - activation_value(g, a - h)) / (2.0 * h);
      const double curvature = (activation_slope(g, a + h) - activation_slope(g, a - h)) / (2.0 * h);
      CHECK(activation_slope(g, a) == Approx(slope).epsilon(1e-7).margin(1e-9));
      CHECK(activation_curvature(g, a) == Approx(curvature).epsilon(1e-6).margin(1e-8));
    }
  }
  CHECK(activation_value(Activation::erf, 1.0) == std::erf(1.0 / std::numbers::sqrt2));
}

TEST_CASE("the activation set's array forms match its scalar forms", "[core][activation]") {
  Eigen::ArrayXd a(9);
  a << -3.0, -1.0, -0.25, 0.0, 0.3, 0.9, 1.7, 2.5, 4.0;
  for (Activation g : {Activation::tanh, Activation::relu, Activation::erf}) {
    INFO(to_string(g));
    Eigen::ArrayXd values;
    activation_values(g, a, values);
    const ActivationDerivatives d = activation_derivatives(g, a.matrix(), 2);
    for (Eigen::Index i = 0; i < a.size(); ++i) {
      CHECK(values[i] == Approx(activation_value(g, a[i])).epsilon(1e-15).margin(1e-300));
      CHECK(d.value(i, 0) == Approx(activation_value(g, a[i])).epsilon(1e-15).margin(1e-300));
      CHECK(d.slope(i, 0) == Approx(activation_slope(g, a[i])).epsilon(1e-14).margin(1e-300));
      CHECK(d.curvature(i, 0) == Approx(activation_curvature(g, a[i])).epsilon(1e-13).margin(1e-300));
    }
    // multiply_by_slope works on whole SIMD packets: a multiple of 4 elements.
    Eigen::ArrayXd a8 = a.head(8), v8, delta = Eigen::ArrayXd::Constant(8, 2.0);
    activation_values(g, a8, v8);
    multiply_by_slope(g, a8, v8, delta);
    // (tanh: 1 - h^2 from the vector tanh, whose few ulp grow by 1 / (1 - h^2))
    for (Eigen::Index i = 0; i < 8; ++i) CHECK(delta[i] == Approx(2.0 * activation_slope(g, a8[i])).epsilon(1e-12));
  }
  double fast[5] = {-1.0, -0.2, 0.0, 0.6, 3.0};
  activation_values_fast(Activation::erf, fast, 5);
  CHECK(fast[3] == Approx(std::erf(0.6 / std::numbers::sqrt2)).epsilon(1e-15));
}

TEST_CASE("parse_activation names the method and the allowed activations", "[core][activation]") {
  CHECK(parse_activation("relu", "m") == Activation::relu);
  CHECK_THROWS_WITH(parse_activation("relu", "laplace", {Activation::erf, Activation::tanh}),
                    "laplace: activation is 'relu', but must be erf or tanh");
}

TEST_CASE("MomentumSgd is the heavy ball", "[core][sgd]") {
  const MomentumSgd sgd{0.1, 0.5};
  double w = 1.0, v = 0.0;
  sgd.step(w, v, 2.0);  // v = -0.2
  CHECK(v == Approx(-0.2));
  CHECK(w == Approx(0.8));
  sgd.step(w, v, 2.0);  // v = -0.1 - 0.2
  CHECK(v == Approx(-0.3));
  CHECK(w == Approx(0.5));
}

namespace {
enum class Colour { red, dark_blue };
constexpr std::array<ChoiceName<Colour>, 2> choice_names(Colour) {
  return {{{Colour::red, "red"}, {Colour::dark_blue, "dark-blue"}}};
}
struct ColourOptions {
  Choice<Colour> colour = Colour::red;
  int size = 2;
  template <class Visitor>
  void visit(Visitor&& v) {
    v("colour", colour, "a colour");
    v("size", size, "a size");
  }
};
}  // namespace

TEST_CASE("a Choice option reads, prints and rejects names", "[core][options]") {
  ColourOptions o;
  CHECK(canonical_options(o) == "colour=red;size=2");
  apply_overrides(o, {{"colour", "dark-blue"}}, "paint");
  CHECK(o.colour == Colour::dark_blue);
  CHECK(o.colour == "dark-blue");
  CHECK(canonical_options(o) == "colour=dark-blue;size=2");
  CHECK_THROWS_WITH(apply_overrides(o, {{"colour", "green"}}, "paint"),
                    "paint: colour is 'green', but must be red or dark-blue");
  const std::vector<OptionInfo> info = describe_options(ColourOptions{});
  CHECK(info[0].type == "red or dark-blue");
  CHECK(info[0].default_value == "red");
  CHECK_THROWS_WITH(o.colour = "green", "'green' is not one of red or dark-blue");
  switch (o.colour) {
    case Colour::red:
      FAIL("not red");
      break;
    case Colour::dark_blue:
      SUCCEED();
      break;
  }
}

TEST_CASE("one MlpShape describes the three networks' parameter layouts", "[core][mlp]") {
  // The blocked path: W_1 (3 x 2) row-major, b_1, then v (1 x 3), c.
  const MlpShape blocked{2, {3}, Activation::tanh};
  CHECK(blocked.parameter_count() == 13);
  CHECK(blocked.weight_offset(0) == 0);
  CHECK(blocked.bias_offset(0) == 6);
  CHECK(blocked.weight_offset(1) == 9);
  CHECK(blocked.bias_offset(1) == 12);
  // Barber & Bishop's two-layer network: u_i with its bias last, then v_1..v_H, then c.
  const MlpShape two_layer = two_layer_shape(2, 3, Activation::erf, true, true);
  CHECK(two_layer.layer_fan_in(0) == 3);
  CHECK(two_layer.bias_offset(0) == 2);  // the first unit's bias
  CHECK(two_layer.weight_offset(1) == 9);
  CHECK(two_layer.parameter_count() == 13);
  CHECK(two_layer_shape(2, 3, Activation::erf, false, false).parameter_count() == 9);
  // The per-example ReLU network: layer l is the matrix [W_l b_l].
  Rng rng(1);
  const ReluNetwork net = ReluNetwork::random(4, {5, 2}, 1.0, rng);
  const MlpShape relu = relu_network_shape(4, {5, 2});
  REQUIRE(net.weights.size() == 3);
  for (std::size_t l = 0; l < 3; ++l) {
    CHECK(net.weights[l].rows() == relu.layer_units(l));
    CHECK(net.weights[l].cols() == relu.layer_fan_in(l));
  }
  CHECK(static_cast<Eigen::Index>(net.parameter_count()) == relu.parameter_count());
}
