#include "map_start.hpp"

#include <cmath>

#include "methods/core/minimize.hpp"
#include "methods/core/mlp.hpp"

namespace bnn::nnep {
namespace {

// The same network as a flat MLP parameter vector (methods/core/mlp.hpp): its erf unit is
// erf(a / sqrt 2), so the output weight there is v_k / sqrt K.
struct FlatNetwork {
  MlpShape shape;
  Eigen::Index inputs = 0;  // without the bias column
  int units = 0;

  FlatNetwork(Eigen::Index d, int K) : shape{d - 1, {K}, Activation::erf}, inputs(d - 1), units(K) {}

  Eigen::VectorXd pack(const Eigen::MatrixXd& w, const Eigen::VectorXd& v) const {
    Eigen::VectorXd theta(shape.parameter_count());
    const double scale = 1.0 / std::sqrt(static_cast<double>(units));
    for (int k = 0; k < units; ++k) {
      for (Eigen::Index j = 0; j < inputs; ++j) theta[shape.weight_offset(0) + k * inputs + j] = w(k, j);
      theta[shape.bias_offset(0) + k] = w(k, inputs);
      theta[shape.weight_offset(1) + k] = v[k] * scale;
    }
    theta[shape.bias_offset(1)] = v[units];
    return theta;
  }

  // Unpacks theta (or a gradient with respect to theta) into the (w, v) layout.
  void unpack(const Eigen::VectorXd& theta, Eigen::MatrixXd& w, Eigen::VectorXd& v, bool gradient) const {
    w.resize(units, inputs + 1);
    v.resize(units + 1);
    const double root_k = std::sqrt(static_cast<double>(units));
    // d/dv_k = d/dtheta_k / sqrt K for a gradient, v_k = sqrt K theta_k for a value
    const double output_factor = gradient ? 1.0 / root_k : root_k;
    for (int k = 0; k < units; ++k) {
      for (Eigen::Index j = 0; j < inputs; ++j) w(k, j) = theta[shape.weight_offset(0) + k * inputs + j];
      w(k, inputs) = theta[shape.bias_offset(0) + k];
      v[k] = theta[shape.weight_offset(1) + k] * output_factor;
    }
    v[units] = theta[shape.bias_offset(1)];
  }
};

// Prior variances of the flat parameters: the initial site variances for w, output_weight_scale
// for v_k (so 1/K times that for theta's output weights), output_bias_variance for v_0.
Eigen::VectorXd flat_prior_precision(const FlatNetwork& net, const Options& o) {
  Eigen::VectorXd precision(net.shape.parameter_count());
  const auto& s = net.shape;
  precision.segment(s.weight_offset(0), net.units * net.inputs).setConstant(1.0 / o.initial_weight_variance);
  precision.segment(s.bias_offset(0), net.units).setConstant(1.0 / o.initial_bias_variance);
  precision.segment(s.weight_offset(1), net.units).setConstant(static_cast<double>(net.units) / o.output_weight_scale);
  precision[s.bias_offset(1)] = 1.0 / o.output_bias_variance;
  return precision;
}

// -log p(theta | y) + const with the noise sd fixed at the initial value.
double flat_objective(const FlatNetwork& net, const Eigen::MatrixXd& inputs, const Eigen::VectorXd& y,
                      const Eigen::VectorXd& prior_precision, double noise_precision, const Eigen::VectorXd& theta,
                      MlpWorkspace& ws, Eigen::VectorXd& gradient) {
  const double error = mlp_squared_error(net.shape, theta, inputs, y, ws, &gradient);
  gradient *= noise_precision;
  gradient += prior_precision.cwiseProduct(theta);
  return noise_precision * error + 0.5 * theta.dot(prior_precision.cwiseProduct(theta));
}

}  // namespace

void make_output_weights_positive(Eigen::MatrixXd& input_weights, Eigen::VectorXd& output_weights) {
  for (Eigen::Index k = 0; k < input_weights.rows(); ++k)
    if (output_weights[k] < 0.0) {  // v g(w'x) = (-v) g(-w'x)
      output_weights[k] = -output_weights[k];
      input_weights.row(k) *= -1.0;
    }
}

double map_objective(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& o,
                     const Eigen::MatrixXd& input_weights, const Eigen::VectorXd& output_weights,
                     Eigen::MatrixXd& d_input_weights, Eigen::VectorXd& d_output_weights) {
  const FlatNetwork net(X.cols(), o.hidden_units);
  const Eigen::MatrixXd inputs = X.leftCols(X.cols() - 1);
  MlpWorkspace ws;
  Eigen::VectorXd gradient;
  const double value =
      flat_objective(net, inputs, y, flat_prior_precision(net, o), 1.0 / (o.initial_noise_sd * o.initial_noise_sd),
                     net.pack(input_weights, output_weights), ws, gradient);
  net.unpack(gradient, d_input_weights, d_output_weights, true);
  return value;
}

MapStart map_start(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& o, Rng& rng) {
  const Eigen::Index d = X.cols();
  const int K = o.hidden_units;
  const FlatNetwork net(d, K);
  const Eigen::MatrixXd inputs = X.leftCols(d - 1);
  const Eigen::VectorXd prior_precision = flat_prior_precision(net, o);
  const double noise_precision = 1.0 / (o.initial_noise_sd * o.initial_noise_sd);

  // Random start: input weights N(0, 1/d) (unit-scale pre-activations on normalized inputs),
  // biases N(0, 1), output weights linspace(1, 2) as in section 3.5.3, v_0 = 0.
  Eigen::MatrixXd w(K, d);
  for (int k = 0; k < K; ++k)
    for (Eigen::Index j = 0; j < d; ++j)
      w(k, j) = standard_normal(rng) * (j + 1 < d ? 1.0 / std::sqrt(static_cast<double>(d)) : 1.0);
  Eigen::VectorXd v = Eigen::VectorXd::Zero(K + 1);
  v.head(K) = Eigen::VectorXd::LinSpaced(K, o.initial_output_low, o.initial_output_high);
  Eigen::VectorXd theta = net.pack(w, v);

  MlpWorkspace ws;
  LBFGSpp::LBFGSParam<double> param;
  param.max_iterations = o.map_iterations;
  param.epsilon = 1e-6;
  const Minimum best = Lbfgs(param).minimize(
      [&](const Eigen::VectorXd& t, Eigen::VectorXd& gradient) {
        return flat_objective(net, inputs, y, prior_precision, noise_precision, t, ws, gradient);
      },
      theta);
  MapStart out;
  net.unpack(best.x, out.input_weights, out.output_weights, false);
  make_output_weights_positive(out.input_weights, out.output_weights);
  out.objective = best.value;
  out.evaluations = best.evaluations;
  return out;
}

}  // namespace bnn::nnep
