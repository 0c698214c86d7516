#include "two_layer_network.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace bnn {
namespace {

void check_sizes(const NetworkShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X) {
  if (w.size() != s.parameter_count() || X.cols() != s.inputs)
    throw std::invalid_argument("two-layer network: expected " + std::to_string(s.parameter_count()) +
                                " weights and " + std::to_string(s.inputs) + " inputs, got " +
                                std::to_string(w.size()) + " and " + std::to_string(X.cols()));
}

// Hidden pre-activations a_ni = u_i' x~_n (points x H).
Eigen::MatrixXd pre_activations(const NetworkShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X) {
  const Eigen::Map<const Eigen::MatrixXd> U(w.data(), s.fan_in(), s.hidden);  // column i is u_i
  Eigen::MatrixXd a = X * U.topRows(s.inputs);
  if (s.input_bias) a.rowwise() += U.row(s.inputs);
  return a;
}

// g(a), g'(a) and g''(a) elementwise, as far as `order` asks.
struct Units {
  Eigen::MatrixXd value, slope, curvature;
};

Units activate(Activation kind, const Eigen::MatrixXd& a, int order) {
  Units g;
  switch (kind) {
    case Activation::erf:
      g.value = a.unaryExpr([](double t) { return std::erf(t / std::numbers::sqrt2); });
      if (order >= 1) g.slope = std::sqrt(2.0 / std::numbers::pi) * (-0.5 * a.array().square()).exp();
      if (order >= 2) g.curvature = -a.array() * g.slope.array();  // d/da exp(-a^2/2) = -a exp(-a^2/2)
      break;
    case Activation::tanh:
      g.value = a.array().tanh();
      if (order >= 1) g.slope = 1.0 - g.value.array().square();
      if (order >= 2) g.curvature = -2.0 * g.value.array() * g.slope.array();
      break;
  }
  return g;
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
Eigen::VectorXd outputs_from(const NetworkShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& hidden_values) {
  Eigen::VectorXd f = hidden_values * w.segment(s.output_offset(), s.hidden);
  if (s.output_bias) f.array() += w[s.output_offset() + s.hidden];
  return f;
}

}  // namespace

Activation parse_activation(std::string_view name, std::string_view method) {
  if (name == "erf") return Activation::erf;
  if (name == "tanh") return Activation::tanh;
  throw std::invalid_argument(std::string(method) + ": activation is '" + std::string(name) +
                              "', but must be erf or tanh");
}

Eigen::VectorXd network_outputs(const NetworkShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X) {
  check_sizes(s, w, X);
  return outputs_from(s, w, activate(s.activation, pre_activations(s, w, X), 0).value);
}

Eigen::MatrixXd network_jacobian(const NetworkShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X) {
  check_sizes(s, w, X);
  const Eigen::Index D = s.fan_in(), H = s.hidden, o = s.output_offset();
  const Units g = activate(s.activation, pre_activations(s, w, X), 1);
  const Eigen::MatrixXd Xa = augmented(X, s.input_bias);
  Eigen::MatrixXd J(X.rows(), s.parameter_count());
  for (Eigen::Index i = 0; i < H; ++i) {
    const Eigen::VectorXd scale = w[o + i] * g.slope.col(i);  // df/du_i = v_i g'(a_i) x~
    J.middleCols(i * D, D) = scale.asDiagonal() * Xa;
  }
  J.middleCols(o, H) = g.value;
  if (s.output_bias) J.col(o + H).setOnes();
  return J;
}

double squared_error(const NetworkShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X,
                     const Eigen::VectorXd& y, Eigen::VectorXd* gradient) {
  check_sizes(s, w, X);
  const Eigen::Index D = s.fan_in(), H = s.hidden, o = s.output_offset();
  const Units g = activate(s.activation, pre_activations(s, w, X), gradient ? 1 : 0);
  const Eigen::VectorXd residual = outputs_from(s, w, g.value) - y;
  if (gradient) {
    gradient->resize(s.parameter_count());
    // delta_ni = r_n v_i g'(a_ni), the error at hidden unit i for point n.
    const Eigen::MatrixXd delta =
        (residual * w.segment(o, H).transpose()).cwiseProduct(g.slope);
    Eigen::Map<Eigen::MatrixXd> gradient_u(gradient->data(), D, H);
    gradient_u.topRows(s.inputs).noalias() = X.transpose() * delta;
    if (s.input_bias) gradient_u.row(s.inputs) = delta.colwise().sum();
    gradient->segment(o, H).noalias() = g.value.transpose() * residual;
    if (s.output_bias) (*gradient)[o + H] = residual.sum();
  }
  return 0.5 * residual.squaredNorm();
}

Eigen::MatrixXd squared_error_hessian(const NetworkShape& s, const Eigen::VectorXd& w,
                                      const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  check_sizes(s, w, X);
  const Eigen::Index D = s.fan_in(), H = s.hidden, o = s.output_offset();
  const Eigen::MatrixXd J = network_jacobian(s, w, X);
  Eigen::MatrixXd hessian = J.transpose() * J;
  const Units g = activate(s.activation, pre_activations(s, w, X), 2);
  const Eigen::VectorXd residual = outputs_from(s, w, g.value) - y;
  const Eigen::MatrixXd Xa = augmented(X, s.input_bias);
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

Eigen::VectorXd gauss_newton_diagonal(const NetworkShape& s, const Eigen::VectorXd& w, const Eigen::MatrixXd& X) {
  return network_jacobian(s, w, X).colwise().squaredNorm().transpose();
}

Eigen::VectorXd two_layer_log_joint(const NetworkShape& shape, const RegressionData& train, const Eigen::MatrixXd& W,
                                    double alpha, double beta) {
  const double n = static_cast<double>(train.y.size());
  const double k = static_cast<double>(shape.parameter_count());
  const double log_2pi = std::log(2.0 * std::numbers::pi);
  const double normalizers = 0.5 * n * (std::log(beta) - log_2pi) + 0.5 * k * (std::log(alpha) - log_2pi);
  Eigen::VectorXd out(W.rows());
  for (Eigen::Index r = 0; r < W.rows(); ++r) {
    const Eigen::VectorXd w = W.row(r).transpose();
    out[r] = normalizers - beta * squared_error(shape, w, train.X, train.y) - 0.5 * alpha * w.squaredNorm();
  }
  return out;
}

}  // namespace bnn
