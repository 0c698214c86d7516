#include "activation.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "simd_packet.hpp"
#include "vector_math.hpp"

namespace bnn {
namespace {
using namespace simd_packet;
}  // namespace

std::string_view to_string(Activation g) {
  switch (g) {
    case Activation::tanh:
      return "tanh";
    case Activation::relu:
      return "relu";
    case Activation::erf:
      return "erf";
  }
  return "unknown";
}

Activation parse_activation(std::string_view name, std::string_view method, std::initializer_list<Activation> allowed) {
  std::string names;
  std::size_t i = 0;
  for (Activation g : allowed) {
    if (name == to_string(g)) return g;
    names += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + std::string(to_string(g));
    ++i;
  }
  throw std::invalid_argument(std::string(method) + ": activation is '" + std::string(name) + "', but must be " +
                              names);
}

double activation_value(Activation g, double a) {
  switch (g) {
    case Activation::tanh:
      return std::tanh(a);
    case Activation::relu:
      return a > 0.0 ? a : 0.0;
    case Activation::erf:
      return std::erf(a / std::numbers::sqrt2);
  }
  return 0.0;
}

double activation_slope(Activation g, double a) {
  switch (g) {
    case Activation::tanh: {
      const double h = std::tanh(a);
      return 1.0 - h * h;
    }
    case Activation::relu:
      return a > 0.0 ? 1.0 : 0.0;
    case Activation::erf:
      return std::sqrt(2.0 / std::numbers::pi) * std::exp(-0.5 * a * a);  // d/da erf(a / sqrt 2)
  }
  return 0.0;
}

double activation_curvature(Activation g, double a) {
  switch (g) {
    case Activation::tanh: {
      const double h = std::tanh(a);
      return -2.0 * h * (1.0 - h * h);
    }
    case Activation::relu:
      return 0.0;
    case Activation::erf:
      return -a * activation_slope(g, a);
  }
  return 0.0;
}

void activation_values(Activation g, const Eigen::ArrayXd& a, Eigen::ArrayXd& out) {
  switch (g) {
    case Activation::tanh:
      out.resize(a.size());
      vector_math::tanh(a.data(), out.data(), static_cast<std::size_t>(a.size()));
      break;
    case Activation::relu:
      out = a.max(0.0);
      break;
    case Activation::erf:
      out = a.unaryExpr([](double v) { return std::erf(v / std::numbers::sqrt2); });
      break;
  }
}

void activation_values_fast(Activation g, double* a, std::size_t n) {
  switch (g) {
    case Activation::tanh:
      vector_math::tanh(a, a, n);
      break;
    case Activation::relu:
      for (std::size_t i = 0; i < n; ++i) a[i] = a[i] > 0.0 ? a[i] : 0.0;
      break;
    case Activation::erf:
      for (std::size_t i = 0; i < n; ++i) a[i] /= std::numbers::sqrt2;
      vector_math::erf(a, a, n);
      break;
  }
}

void multiply_by_slope(Activation g, const Eigen::ArrayXd& a, const Eigen::ArrayXd& h, Eigen::ArrayXd& delta) {
  switch (g) {
    case Activation::tanh:
      delta *= 1.0 - h.square();
      break;
    case Activation::relu: {  // a bit mask: delta where a > 0, else +0 (sizes are whole packets)
      const Packet zero = simd::pset1<Packet>(0.0);
      for (Eigen::Index i = 0; i < delta.size(); i += kLanes)
        simd::pstoreu(delta.data() + i, simd::pand(simd::ploadu<Packet>(delta.data() + i),
                                                   simd::pcmp_lt(zero, simd::ploadu<Packet>(a.data() + i))));
      break;
    }
    case Activation::erf: {
      const double c = std::sqrt(2.0 / std::numbers::pi);
      delta *= c * (-0.5 * a.square()).exp();
      break;
    }
  }
}

ActivationDerivatives activation_derivatives(Activation g, const Eigen::MatrixXd& a, int order) {
  ActivationDerivatives d;
  switch (g) {
    case Activation::erf:
      d.value = a.unaryExpr([](double t) { return std::erf(t / std::numbers::sqrt2); });
      if (order >= 1) d.slope = std::sqrt(2.0 / std::numbers::pi) * (-0.5 * a.array().square()).exp();
      if (order >= 2) d.curvature = -a.array() * d.slope.array();  // d/da exp(-a^2/2) = -a exp(-a^2/2)
      break;
    case Activation::tanh:
      d.value = a.array().tanh();
      if (order >= 1) d.slope = 1.0 - d.value.array().square();
      if (order >= 2) d.curvature = -2.0 * d.value.array() * d.slope.array();
      break;
    case Activation::relu:
      d.value = a.cwiseMax(0.0);
      if (order >= 1) d.slope = (a.array() > 0.0).cast<double>();
      if (order >= 2) d.curvature = Eigen::MatrixXd::Zero(a.rows(), a.cols());
      break;
  }
  return d;
}

}  // namespace bnn
