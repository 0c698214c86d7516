#pragma once
// The hidden units' nonlinearities g shared by every network of the methods: tanh, the
// rectifier max(0, a) and the probit unit erf(a / sqrt 2) (Barber & Bishop 1998, eq. 2), with
// their first two derivatives, one value at a time and elementwise over arrays.
#include <Eigen/Core>
#include <array>
#include <initializer_list>
#include <string_view>

#include "choice.hpp"

namespace bnn {

enum class Activation { tanh, relu, erf };
constexpr std::array<ChoiceName<Activation>, 3> choice_names(Activation) {
  return {{{Activation::tanh, "tanh"}, {Activation::relu, "relu"}, {Activation::erf, "erf"}}};
}
inline constexpr std::initializer_list<Activation> kActivations = {Activation::tanh, Activation::relu, Activation::erf};

std::string_view to_string(Activation g);
// Throws std::invalid_argument "<method>: activation is 'x', but must be tanh or erf" (the allowed ones).
Activation parse_activation(std::string_view name, std::string_view method,
                            std::initializer_list<Activation> allowed = kActivations);

// g(a), g'(a) and g''(a) (the rectifier's derivatives taken as 0 at a = 0).
double activation_value(Activation g, double a);
double activation_slope(Activation g, double a);
double activation_curvature(Activation g, double a);

// out = g(a) elementwise: tanh through vector_math::tanh, erf through std::erf (bit for bit the
// scalar value).
void activation_values(Activation g, const Eigen::ArrayXd& a, Eigen::ArrayXd& out);
// a[i] = g(a[i]) in place through the 4-wide routines of vector_math.hpp (erf: libmvec's, within
// 4 ulp of std::erf, not bit for bit; NN-EP's quadrature nodes).
void activation_values_fast(Activation g, double* a, std::size_t n);
// delta *= g'(a) elementwise, from the pre-activations a and the values h = g(a) (tanh' = 1 - h^2;
// the rectifier keeps delta where a > 0 and sets +0 elsewhere).
void multiply_by_slope(Activation g, const Eigen::ArrayXd& a, const Eigen::ArrayXd& h, Eigen::ArrayXd& delta);

// g, g' and g'' of every element of a, as far as `order` (0, 1 or 2) asks (the two-layer
// network's form: tanh through Eigen's vectorized tanh, erf through std::erf).
struct ActivationDerivatives {
  Eigen::MatrixXd value, slope, curvature;
};
ActivationDerivatives activation_derivatives(Activation g, const Eigen::MatrixXd& a, int order);

}  // namespace bnn
