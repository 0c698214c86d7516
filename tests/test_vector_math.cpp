// core/vector_math.hpp: the 4-wide erf, erfc, exp, log, sin and cos agree with the scalar std:: functions to a
// few ulp over the ranges NN-EP and PBP use, and an element's value does not depend on where it sits in
// the array or on the array's length (a padded tail goes through the same routine).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <numbers>
#include <vector>

#include "methods/core/rng.hpp"
#include "methods/core/vector_math.hpp"

using namespace bnn;

namespace {

using ArrayFunction = void (*)(const double*, double*, std::size_t);

// Largest difference from `scalar` over `inputs`, in units of the last place of the scalar value.
double max_ulp_difference(ArrayFunction vector_function, double (*scalar)(double), const std::vector<double>& inputs) {
  std::vector<double> out(inputs.size());
  vector_function(inputs.data(), out.data(), inputs.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const double expected = scalar(inputs[i]);
    if (expected == 0.0) {
      CHECK(std::abs(out[i]) < 1e-300);
      continue;
    }
    const double ulp = std::nextafter(std::abs(expected), std::numeric_limits<double>::infinity()) - std::abs(expected);
    worst = std::max(worst, std::abs(out[i] - expected) / ulp);
  }
  return worst;
}

std::vector<double> uniform_inputs(double lo, double hi, std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> x(n);
  for (double& v : x) v = uniform(rng, lo, hi);
  return x;
}

double std_erf(double x) { return std::erf(x); }
double std_erfc(double x) { return std::erfc(x); }
double std_exp(double x) { return std::exp(x); }
double std_log(double x) { return std::log(x); }
double std_sin(double x) { return std::sin(x); }
double std_cos(double x) { return std::cos(x); }

}  // namespace

TEST_CASE("vector math: erf, erfc, exp, log, sin and cos within 4 ulp of the scalar functions", "[core]") {
  // erf of the quadrature nodes h / sqrt 2, |h| <= 8.5; exp of shifted log masses (<= 0) and of
  // the Var(g) integrand; sin on [0, pi/2]; log of uniforms on (0, 1) and cos on [0, 2 pi)
  // (Box-Muller's, standard_normals).
  CHECK(max_ulp_difference(vector_math::erf, std_erf, uniform_inputs(-6.1, 6.1, 4001, 1)) <= 4.0);
  // erfc of PBP's |alpha| / sqrt 2 up to where the result leaves the normal doubles (26.5), and
  // of negative arguments
  CHECK(max_ulp_difference(vector_math::erfc, std_erfc, uniform_inputs(0.0, 26.5, 4001, 8)) <= 4.0);
  CHECK(max_ulp_difference(vector_math::erfc, std_erfc, uniform_inputs(0.0, 1.0, 4001, 9)) <= 4.0);
  CHECK(max_ulp_difference(vector_math::erfc, std_erfc, uniform_inputs(-6.0, 0.0, 4001, 10)) <= 4.0);
  CHECK(max_ulp_difference(vector_math::exp, std_exp, uniform_inputs(-745.0, 5.0, 4001, 2)) <= 4.0);
  CHECK(max_ulp_difference(vector_math::sin, std_sin, uniform_inputs(0.0, 1.5707963267948966, 4001, 3)) <= 4.0);
  CHECK(max_ulp_difference(vector_math::log, std_log, uniform_inputs(1e-300, 1.0, 4001, 5)) <= 4.0);
  CHECK(max_ulp_difference(vector_math::log, std_log, uniform_inputs(1e-12, 1e-3, 4001, 6)) <= 4.0);
  CHECK(max_ulp_difference(vector_math::log, std_log, uniform_inputs(4e-324, 2.3e-308, 4001, 11)) <= 4.0);  // subnormal
  CHECK(max_ulp_difference(vector_math::cos, std_cos, uniform_inputs(0.0, 2.0 * std::numbers::pi, 4001, 7)) <= 4.0);
  // the edges: erf saturates, exp underflows to 0 and takes -inf
  const std::vector<double> edges = {-40.0, -6.0, 0.0, 6.0, 40.0};
  std::vector<double> out(edges.size());
  vector_math::erf(edges.data(), out.data(), edges.size());
  CHECK(out[0] == -1.0);
  CHECK(out[2] == 0.0);
  CHECK(out[4] == 1.0);
  vector_math::erfc(edges.data(), out.data(), edges.size());
  CHECK(out[0] == 2.0);
  CHECK(out[2] == 1.0);
  CHECK(out[4] == 0.0);
  const std::vector<double> small = {-800.0, -std::numeric_limits<double>::infinity(), 0.0};
  out.resize(small.size());
  vector_math::exp(small.data(), out.data(), small.size());
  CHECK(out[0] == 0.0);
  CHECK(out[1] == 0.0);
  CHECK(out[2] == 1.0);
}

TEST_CASE("vector math: a value does not depend on its position or the array's length", "[core]") {
  const std::vector<double> x = uniform_inputs(-3.0, 3.0, 11, 4);
  std::vector<double> whole(x.size());
  vector_math::erf(x.data(), whole.data(), x.size());
  for (std::size_t offset = 0; offset < 4; ++offset)
    for (std::size_t length = 1; offset + length <= x.size(); ++length) {
      std::vector<double> part(length);
      vector_math::erf(x.data() + offset, part.data(), length);
      for (std::size_t i = 0; i < length; ++i) REQUIRE(part[i] == whole[offset + i]);
    }
  // in place gives the same
  std::vector<double> in_place = x;
  vector_math::exp(in_place.data(), in_place.data(), in_place.size());
  std::vector<double> copied(x.size());
  vector_math::exp(x.data(), copied.data(), x.size());
  CHECK(in_place == copied);
}

TEST_CASE("vector math: log gives the same bits on every processor (plain arithmetic, no approximate reciprocal)",
          "[core]") {
  // glibc's vector log starts from vrcpps, whose bits differ between Intel's and AMD's
  // processors; VI's normal draws then differed from machine to machine. These are the values of
  // the arithmetic in vector_math.cpp, the correctly rounded logarithm but for the subnormal
  // input's last bit; a processor or a routine giving other bits fails here.
  const std::vector<double> x = {0.1, 0.5, 0.7071067811865476, 0.999, 1e-300, 3e-310, 123.456};
  const std::vector<double> expected = {-0x1.26bb1bbb55515p+1,  -0x1.62e42fefa39efp-1, -0x1.62e42fefa39eep-2,
                                        -0x1.064670d979b73p-10, -0x1.5963447f87fb5p+9, -0x1.6459f44103e86p+9,
                                        0x1.343774f3e2362p+2};
  std::vector<double> got(x.size());
  vector_math::log(x.data(), got.data(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(got[i] == expected[i]);
  // the edges: log 0 = -inf, log of a negative number and of NaN are NaN, log inf = inf
  const std::vector<double> edges = {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                                     std::numeric_limits<double>::infinity()};
  std::vector<double> out(edges.size());
  vector_math::log(edges.data(), out.data(), edges.size());
  CHECK(out[0] == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(out[1]));
  CHECK(std::isnan(out[2]));
  CHECK(out[3] == std::numeric_limits<double>::infinity());
}
