#include "two_layer_network.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "normal.hpp"

namespace bnn {
namespace {

// D = inputs + input bias, H hidden units, o = index of v_1.
struct Sizes {
  Eigen::Index D, H, o;
};
Sizes sizes(const MlpShape& s) { return {s.layer_fan_in(0), s.layer_units(0), s.weight_offset(1)}; }

void check_sizes(const MlpShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X) {
  if (s.hidden.size() != 1 || s.bias_layout != BiasLayout::in_rows)
    throw std::invalid_argument("two-layer network: the shape must have one hidden layer and the in_rows layout");
  if (w.size() != s.parameter_count() || X.cols() != s.inputs)
    throw std::invalid_argument("two-layer network: expected " + std::to_string(s.parameter_count()) + " weights and " +
                                std::to_string(s.inputs) + " inputs, got " + std::to_string(w.size()) + " and " +
                                std::to_string(X.cols()));
}

// Hidden pre-activations a_ni = u_i' x~_n (points x H).
Eigen::MatrixXd pre_activations(const MlpShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X) {
  const Eigen::Map<const Eigen::MatrixXd> U(w.data(), s.layer_fan_in(0), s.layer_units(0));  // column i is u_i
  Eigen::MatrixXd a = X * U.topRows(s.inputs);
  if (s.hidden_bias) a.rowwise() += U.row(s.inputs);
  return a;
}

// x~: the inputs with a column of ones appended when the hidden units have biases.
Eigen::MatrixXd augmented(const Eigen::MatrixXd& X, bool input_bias) {
  if (!input_bias) return X;
  Eigen::MatrixXd Xa(X.rows(), X.cols() + 1);
  Xa.leftCols(X.cols()) = X;
  Xa.col(X.cols()).setOnes();
  return Xa;
}

// f(x_n, w) - t_n from the hidden-unit values.
Eigen::VectorXd outputs_from(const MlpShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& hidden_values) {
  const auto [D, H, o] = sizes(s);
  Eigen::VectorXd f = hidden_values * w.segment(o, H);
  if (s.output_bias) f.array() += w[o + H];
  return f;
}

}  // namespace

MlpShape two_layer_shape(Eigen::Index inputs, Eigen::Index hidden, Activation activation, bool input_bias,
                         bool output_bias) {
  return {inputs, {static_cast<int>(hidden)}, activation, BiasLayout::in_rows, input_bias, output_bias};
}

Eigen::VectorXd network_outputs(const MlpShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X) {
  check_sizes(s, w, X);
  return outputs_from(s, w, activation_derivatives(s.activation, pre_activations(s, w, X), 0).value);
}

Eigen::MatrixXd network_jacobian(const MlpShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X) {
  check_sizes(s, w, X);
  const auto [D, H, o] = sizes(s);
  const ActivationDerivatives g = activation_derivatives(s.activation, pre_activations(s, w, X), 1);
  const Eigen::MatrixXd Xa = augmented(X, s.hidden_bias);
  Eigen::MatrixXd J(X.rows(), s.parameter_count());
  for (Eigen::Index i = 0; i < H; ++i) {
    const Eigen::VectorXd scale = w[o + i] * g.slope.col(i);  // df/du_i = v_i g'(a_i) x~
    J.middleCols(i * D, D) = scale.asDiagonal() * Xa;
  }
  J.middleCols(o, H) = g.value;
  if (s.output_bias) J.col(o + H).setOnes();
  return J;
}

double squared_error(const MlpShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                     Eigen::VectorXd* gradient) {
  check_sizes(s, w, X);
  const auto [D, H, o] = sizes(s);
  const ActivationDerivatives g = activation_derivatives(s.activation, pre_activations(s, w, X), gradient ? 1 : 0);
  const Eigen::VectorXd residual = outputs_from(s, w, g.value) - y;
  if (gradient) {
    gradient->resize(s.parameter_count());
    // delta_ni = r_n v_i g'(a_ni), the error at hidden unit i for point n.
    const Eigen::MatrixXd delta = (residual * w.segment(o, H).transpose()).cwiseProduct(g.slope);
    Eigen::Map<Eigen::MatrixXd> gradient_u(gradient->data(), D, H);
    gradient_u.topRows(s.inputs).noalias() = X.transpose() * delta;
    if (s.hidden_bias) gradient_u.row(s.inputs) = delta.colwise().sum();
    gradient->segment(o, H).noalias() = g.value.transpose() * residual;
    if (s.output_bias) (*gradient)[o + H] = residual.sum();
  }
  return 0.5 * residual.squaredNorm();
}

Eigen::MatrixXd squared_error_hessian(const MlpShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X,
                                      const Eigen::VectorXd& y) {
  check_sizes(s, w, X);
  const auto [D, H, o] = sizes(s);
  const Eigen::MatrixXd J = network_jacobian(s, w, X);
  Eigen::MatrixXd hessian = J.transpose() * J;
  const ActivationDerivatives g = activation_derivatives(s.activation, pre_activations(s, w, X), 2);
  const Eigen::VectorXd residual = outputs_from(s, w, g.value) - y;
  const Eigen::MatrixXd Xa = augmented(X, s.hidden_bias);
  // The only non-zero second derivatives of f: d2f/du_i du_i' = v_i g''(a_i) x~ x~' and
  // d2f/du_i dv_i = g'(a_i) x~ (Bishop 1992 for one hidden layer).
  for (Eigen::Index i = 0; i < H; ++i) {
    const Eigen::VectorXd weight = w[o + i] * residual.cwiseProduct(g.curvature.col(i));
    hessian.block(i * D, i * D, D, D).noalias() += Xa.transpose() * weight.asDiagonal() * Xa;
    const Eigen::VectorXd cross = Xa.transpose() * residual.cwiseProduct(g.slope.col(i));
    hessian.block(i * D, o + i, D, 1) += cross;
    hessian.block(o + i, i * D, 1, D) += cross.transpose();
  }
  return hessian;
}

Eigen::VectorXd gauss_newton_diagonal(const MlpShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X) {
  return network_jacobian(s, w, X).colwise().squaredNorm().transpose();
}

Eigen::VectorXd two_layer_log_joint(const MlpShape& shape, const RegressionData& train, const Eigen::MatrixXd& W,
                                    double alpha, double beta) {
  const double n = static_cast<double>(train.y.size());
  const double k = static_cast<double>(shape.parameter_count());
  const double log_2pi = kLog2PiOfDouble;
  const double normalizers = 0.5 * n * (std::log(beta) - log_2pi) + 0.5 * k * (std::log(alpha) - log_2pi);
  Eigen::VectorXd out(W.rows());
  for (Eigen::Index r = 0; r < W.rows(); ++r) {
    const Eigen::VectorXd w = W.row(r).transpose();
    out[r] = normalizers - beta * squared_error(shape, w, train.X, train.y) - 0.5 * alpha * w.squaredNorm();
  }
  return out;
}

}  // namespace bnn
