#include "synthetic.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace bnn::data {
namespace {
Dataset named(std::string name, Eigen::MatrixXd X, Eigen::VectorXd y) {
  Dataset d;
  d.origin = "synthetic:" + name;
  d.name = std::move(name);
  d.X = std::move(X);
  d.y = std::move(y);
  return d;
}

void require_n(long n, long at_least, const char* generator) {
  if (n < at_least)
    throw std::invalid_argument(std::string(generator) + ": n is " + std::to_string(n) +
                                ", but must be >= " + std::to_string(at_least));
}

constexpr double kCase2LinearSlopes[4] = {0.1, 0.2, 0.3, 0.4};
constexpr double kCase2Frequencies[5] = {0.5, 0.75, 1.0, 1.5, 2.0};
}  // namespace

double erf_sigmoid(double a) { return std::erf(a / std::numbers::sqrt2); }

double pbp_cubic_latent(double x) { return x * x * x; }

double epnn_case1_latent(double x1, double x2) {
  if (x1 > 0.5 && x2 > 0.5) return 1.0;
  if (x1 < -0.5 && x2 < -0.5) return 0.8;
  return 0.0;
}

double epnn_case2_effect(int input, double x) {
  if (input == 1) return 0.0;
  if (input >= 2 && input <= 5) return kCase2LinearSlopes[input - 2] * x;
  if (input >= 6 && input <= 10) return 0.8 * std::sin(kCase2Frequencies[input - 6] * x);
  throw std::invalid_argument("epnn-case2: input must be 1..10");
}

double epnn_case3_latent(double x) { return 0.4 * std::sin(1.5 * x) + (x < 0.0 ? -0.6 : 0.6); }

double bb_toy_latent(double x) { return -2.5 * erf_sigmoid(-0.13 * x); }

namespace {
// A problem with one input drawn uniformly from [from, to] and Gaussian noise of sd `noise`
// around `latent` (each row: its input, then its noise).
Dataset one_input(const char* name, long n, Rng& rng, double from, double to, double (*latent)(double), double noise) {
  require_n(n, 2, name);
  Eigen::MatrixXd X(n, 1);
  Eigen::VectorXd y(n);
  for (long i = 0; i < n; ++i) {
    X(i, 0) = uniform(rng, from, to);
    y[i] = latent(X(i, 0)) + noise * standard_normal(rng);
  }
  return named(name, X, y);
}
}  // namespace

Dataset make_pbp_cubic(long n, Rng& rng) { return one_input("pbp-cubic", n, rng, -4.0, 4.0, pbp_cubic_latent, 3.0); }

Dataset make_epnn_case1(long n, Rng& rng) {
  require_n(n, 3, "epnn-case1");
  // Three equally sized clusters (sizes differ by at most one), in the order of the paper.
  const double lower[3] = {0.5, -0.5, -1.5};
  Eigen::MatrixXd X(n, 2);
  Eigen::VectorXd y(n);
  for (long i = 0; i < n; ++i) {
    const double lo = lower[i % 3];
    X(i, 0) = uniform(rng, lo, lo + 1.0);
    X(i, 1) = uniform(rng, lo, lo + 1.0);
    y[i] = epnn_case1_latent(X(i, 0), X(i, 1)) + 0.1 * standard_normal(rng);
  }
  return named("epnn-case1", X, y);
}

Dataset make_epnn_case2(long n, Rng& rng) {
  require_n(n, 2, "epnn-case2");
  Eigen::MatrixXd X(n, 10);
  Eigen::VectorXd y(n);
  for (long i = 0; i < n; ++i) {
    double f = 0.0;
    for (int j = 0; j < 10; ++j) {
      X(i, j) = uniform(rng, -std::numbers::pi, std::numbers::pi);
      f += epnn_case2_effect(j + 1, X(i, j));
    }
    y[i] = f + 0.2 * standard_normal(rng);
  }
  return named("epnn-case2", X, y);
}

Dataset make_epnn_case3(long n, Rng& rng) { return one_input("epnn-case3", n, rng, -3.0, 3.0, epnn_case3_latent, 0.1); }

Dataset make_bb_toy(long n, Rng& rng) { return one_input("bb-toy", n, rng, -2.0, 2.0, bb_toy_latent, 0.1); }

LatentFunction synthetic_latent(const std::string& generator) {
  const auto of_inputs = [](Eigen::Index inputs, auto f) -> LatentFunction {
    return [inputs, f](const Eigen::Ref<const Eigen::VectorXd>& x) {
      return x.size() == inputs ? f(x) : std::numeric_limits<double>::quiet_NaN();
    };
  };
  using Row = const Eigen::Ref<const Eigen::VectorXd>&;
  if (generator == "pbp-cubic") return of_inputs(1, [](Row x) { return pbp_cubic_latent(x[0]); });
  if (generator == "epnn-case1") return of_inputs(2, [](Row x) { return epnn_case1_latent(x[0], x[1]); });
  if (generator == "epnn-case2")
    return of_inputs(10, [](Row x) {
      double f = 0.0;
      for (int j = 1; j <= 10; ++j) f += epnn_case2_effect(j, x[j - 1]);
      return f;
    });
  if (generator == "epnn-case3") return of_inputs(1, [](Row x) { return epnn_case3_latent(x[0]); });
  if (generator == "bb-toy") return of_inputs(1, [](Row x) { return bb_toy_latent(x[0]); });
  return {};
}

Dataset generate_synthetic(const std::string& name, const SyntheticSpec& spec) {
  Rng rng(spec.seed);
  Dataset d;
  if (spec.generator == "pbp-cubic")
    d = make_pbp_cubic(spec.n, rng);
  else if (spec.generator == "epnn-case1")
    d = make_epnn_case1(spec.n, rng);
  else if (spec.generator == "epnn-case2")
    d = make_epnn_case2(spec.n, rng);
  else if (spec.generator == "epnn-case3")
    d = make_epnn_case3(spec.n, rng);
  else if (spec.generator == "bb-toy")
    d = make_bb_toy(spec.n, rng);
  else
    throw std::invalid_argument("unknown synthetic generator '" + spec.generator +
                                "' (known: pbp-cubic, epnn-case1, epnn-case2, epnn-case3, bb-toy)");
  d.name = name;
  return d;
}

void append_irrelevant_uniform_inputs(Dataset& data, long count, Rng& rng) {
  if (count <= 0) return;
  const Eigen::Index old_cols = data.X.cols();
  data.X.conservativeResize(Eigen::NoChange, old_cols + count);
  // Column by column so the draws do not depend on the storage order.
  for (Eigen::Index j = old_cols; j < data.X.cols(); ++j)
    for (Eigen::Index i = 0; i < data.X.rows(); ++i) data.X(i, j) = uniform01(rng);
}

}  // namespace bnn::data
