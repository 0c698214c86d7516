#include "mlp.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace bnn::hmc {
namespace {

using RowMap = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
using RowMapMut = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

void activate(Activation g, const Eigen::MatrixXd& a, Eigen::MatrixXd& out) {
  switch (g) {
    // tanh(a) = 1 - 2 / (exp(2a) + 1): Eigen vectorizes exp for double but not tanh.
    case Activation::tanh: out = 1.0 - 2.0 / ((2.0 * a.array()).exp() + 1.0); break;
    case Activation::relu: out = a.array().max(0.0); break;
    case Activation::erf:
      out = a.unaryExpr([](double v) { return std::erf(v / std::numbers::sqrt2); });
      break;
  }
}

// delta *= g'(a), from the pre-activations and the activations.
void scale_by_derivative(Activation g, const Eigen::MatrixXd& a, const Eigen::MatrixXd& h, Eigen::MatrixXd& delta) {
  switch (g) {
    case Activation::tanh: delta.array() *= 1.0 - h.array().square(); break;
    case Activation::relu: delta.array() *= (a.array() > 0.0).cast<double>(); break;
    case Activation::erf: {
      const double c = std::sqrt(2.0 / std::numbers::pi);  // d/da erf(a/sqrt2) = sqrt(2/pi) exp(-a^2/2)
      delta.array() *= c * (-0.5 * a.array().square()).exp();
      break;
    }
  }
}

void forward(const MlpShape& s, const Eigen::VectorXd& theta, const Eigen::MatrixXd& X, MlpWorkspace& ws) {
  const std::size_t L = s.hidden.size();
  ws.pre.resize(L);
  ws.post.resize(L);
  for (std::size_t l = 0; l < L; ++l) {
    const RowMap W(theta.data() + s.weight_offset(l), s.layer_units(l), s.layer_inputs(l));
    const Eigen::Map<const Eigen::RowVectorXd> b(theta.data() + s.bias_offset(l), s.layer_units(l));
    const Eigen::MatrixXd& in = l == 0 ? X : ws.post[l - 1];
    ws.pre[l].noalias() = in * W.transpose();
    ws.pre[l].rowwise() += b;
    activate(s.activation, ws.pre[l], ws.post[l]);
  }
  const Eigen::Map<const Eigen::VectorXd> v(theta.data() + s.weight_offset(L), s.layer_inputs(L));
  const double c = theta[s.bias_offset(L)];
  const Eigen::MatrixXd& last = L == 0 ? X : ws.post[L - 1];
  ws.output.noalias() = last * v;
  ws.output.array() += c;
}

}  // namespace

Activation parse_activation(const std::string& name) {
  if (name == "tanh") return Activation::tanh;
  if (name == "relu") return Activation::relu;
  if (name == "erf") return Activation::erf;
  throw std::invalid_argument("activation '" + name + "' is unknown; known: tanh, relu, erf");
}

Eigen::Index MlpShape::layer_inputs(std::size_t layer) const {
  return layer == 0 ? inputs : hidden[layer - 1];
}
Eigen::Index MlpShape::layer_units(std::size_t layer) const {
  return layer < hidden.size() ? hidden[layer] : 1;
}
Eigen::Index MlpShape::weight_offset(std::size_t layer) const {
  Eigen::Index offset = 0;
  for (std::size_t l = 0; l < layer; ++l) offset += layer_units(l) * (layer_inputs(l) + 1);
  return offset;
}
Eigen::Index MlpShape::bias_offset(std::size_t layer) const {
  return weight_offset(layer) + layer_units(layer) * layer_inputs(layer);
}
Eigen::Index MlpShape::parameter_count() const { return weight_offset(hidden.size() + 1); }

void mlp_outputs(const MlpShape& shape, const Eigen::VectorXd& theta, const Eigen::MatrixXd& X,
                 MlpWorkspace& ws, Eigen::VectorXd& out) {
  forward(shape, theta, X, ws);
  out = ws.output;
}

double mlp_squared_error(const MlpShape& s, const Eigen::VectorXd& theta, const Eigen::MatrixXd& X,
                         const Eigen::VectorXd& y, MlpWorkspace& ws, Eigen::VectorXd* gradient) {
  forward(s, theta, X, ws);
  ws.output -= y;  // residuals r = f - y
  const double error = 0.5 * ws.output.squaredNorm();
  if (!gradient) return error;
  gradient->resize(theta.size());
  const std::size_t L = s.hidden.size();
  const Eigen::VectorXd& r = ws.output;
  const Eigen::MatrixXd& last = L == 0 ? X : ws.post[L - 1];
  gradient->segment(s.weight_offset(L), s.layer_inputs(L)).noalias() = last.transpose() * r;
  (*gradient)[s.bias_offset(L)] = r.sum();
  if (L == 0) return error;
  // Backpropagation: delta_l = dE/da_l (points x units).
  const Eigen::Map<const Eigen::RowVectorXd> v(theta.data() + s.weight_offset(L), s.layer_inputs(L));
  ws.delta.noalias() = r * v;
  for (std::size_t l = L; l-- > 0;) {
    scale_by_derivative(s.activation, ws.pre[l], ws.post[l], ws.delta);
    const Eigen::MatrixXd& in = l == 0 ? X : ws.post[l - 1];
    RowMapMut dW(gradient->data() + s.weight_offset(l), s.layer_units(l), s.layer_inputs(l));
    dW.noalias() = ws.delta.transpose() * in;
    gradient->segment(s.bias_offset(l), s.layer_units(l)) = ws.delta.colwise().sum().transpose();
    if (l > 0) {
      const RowMap W(theta.data() + s.weight_offset(l), s.layer_units(l), s.layer_inputs(l));
      ws.delta_next.noalias() = ws.delta * W;
      std::swap(ws.delta, ws.delta_next);
    }
  }
  return error;
}

}  // namespace bnn::hmc
