#include "bp.hpp"

#include <cmath>
#include <limits>

#include "methods/core/options.hpp"
#include "methods/core/training_loop.hpp"
#include "methods/core/tuning/tune_then_refit.hpp"

namespace bnn::bp {
namespace {
constexpr const char* kName = "bp";

double mean_squared_error(const ReluNetwork& net, const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  ReluCache cache;
  double sse = 0.0;
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const double r = relu_forward(net.weights, X.row(i).transpose(), cache) - y[i];
    sse += r * r;
  }
  return sse / static_cast<double>(X.rows());
}
}  // namespace

void Options::validate() const {
  require_hidden_layers(kName, hidden_layers);
  require_at_least(kName, "epochs", epochs, 1);
  require_at_least(kName, "tuning_evaluations", tuning_evaluations, 1);
  require_in_open_unit(kName, "validation_fraction", validation_fraction);
  require_positive(kName, "learning_rate", learning_rate);
  require_at_least(kName, "momentum", momentum, 0.0);
  require_below(kName, "momentum", momentum, 1.0);
  require_at_least(kName, "weight_decay", weight_decay, 0.0);
}

Hyperparameters from_unit_cube(const Eigen::VectorXd& u) {
  return {std::pow(10.0, -5.0 + 4.5 * u[0]), 0.99 * u[1], std::pow(10.0, -8.0 + 6.0 * u[2])};
}

namespace {
// One SGD step on one point: the backward pass with each layer's momentum update applied as
// soon as its delta is known, in one pass over the layer's weights (no gradient matrix). Per
// weight the same operations as the separate passes that computed BP's committed results (GCC's
// x86-64-v3 code for relu_backward's outer product into a zeroed gradient, then
// MomentumSgd::step with weight decay):
//   g = (scale delta_i) z_j + 0,  v = fma(-fma(wd, w, g), lr, momentum v),  w = w + v
// (builds without FMA: v = momentum v - lr (g + wd w)). This is one layer's step, row by row.
void momentum_step_layer(RowMatrix& W, RowMatrix& velocity, const double* z, double scale, const Eigen::VectorXd& delta,
                         const Hyperparameters& h) {
  for (Eigen::Index i = 0; i < W.rows(); ++i) {
    const double c = scale * delta[i];
    double* __restrict w = W.row(i).data();
    double* __restrict v = velocity.row(i).data();
    for (Eigen::Index j = 0; j < W.cols(); ++j) {
      const double g = c * z[j] + 0.0;
#if defined(__FMA__)
      v[j] = std::fma(-std::fma(h.weight_decay, w[j], g), h.learning_rate, h.momentum * v[j]);
#else  // no fused multiply-add in hardware: none in the separate passes either
      v[j] = h.momentum * v[j] - h.learning_rate * (g + h.weight_decay * w[j]);
#endif
      w[j] += v[j];
    }
  }
}
}  // namespace

void sgd_backward_step(ReluNetwork& net, const ReluCache& cache, double d_output, const Hyperparameters& h,
                       std::vector<RowMatrix>& velocity, ReluDeltas& deltas) {
  relu_backward_pass(net.weights, cache, d_output, deltas,
                     [&](std::size_t l, double scale, const Eigen::VectorXd& delta) {
                       momentum_step_layer(net.weights[l], velocity[l], cache.z[l].data(), scale, delta, h);
                     });
}

bool train(ReluNetwork& net, const Eigen::MatrixXd& X, const Eigen::VectorXd& y, int epochs, const Hyperparameters& h,
           Rng& rng) {
  std::vector<RowMatrix> velocity;
  for (const auto& W : net.weights) velocity.push_back(RowMatrix::Zero(W.rows(), W.cols()));
  const Eigen::MatrixXd Xt = X.transpose();
  ReluCache cache;
  ReluDeltas deltas;
  const TrainingOutcome outcome =
      run_epochs({epochs, 1}, static_cast<std::size_t>(X.rows()), rng, [&](std::span<const std::size_t> rows) {
        const auto i = static_cast<Eigen::Index>(rows[0]);
        const double out = relu_forward(net.weights, Xt.col(i), cache);
        if (!std::isfinite(out)) return false;
        sgd_backward_step(net, cache, out - y[i], h, velocity, deltas);
        return true;
      });
  if (outcome.diverged) return false;
  for (const auto& W : net.weights)
    if (!W.allFinite()) return false;  // the last updates can overflow after a finite output
  return true;
}

double predict_one(const ReluNetwork& net, const Eigen::Ref<const Eigen::VectorXd>& x, ReluCache& cache) {
  return relu_forward(net.weights, x, cache);
}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  Eigen::VectorXd mean(X.rows());
  ReluCache cache;
  for (Eigen::Index i = 0; i < X.rows(); ++i) mean[i] = relu_forward(net_.weights, X.row(i).transpose(), cache);
  return std::make_unique<GaussianPredictive>(mean, Eigen::VectorXd::Constant(X.rows(), noise_variance_));
}

Model fit(const RegressionData& data, const Validated<Options>& valid, Rng& rng) {
  const Options& options = *valid;
  check_training_data(data, kName);
  FitReport report;
  ReluNetwork net;
  tuning::TuneThenRefit<Hyperparameters> search(kName, "SGD", options, 3,
                                                {options.learning_rate, options.momentum, options.weight_decay});
  search.decode = from_unit_cube;
  // Validation RMSE of a network trained on the fit part.
  search.score = [&](const tuning::ValidationSplit& split, const Hyperparameters& h, std::uint64_t seed) {
    Rng run(seed);
    ReluNetwork candidate = ReluNetwork::random(data.X.cols(), options.hidden_layers, 1.0, run);
    if (!train(candidate, split.fit.X, split.fit.y, options.epochs, h, run))
      return std::numeric_limits<double>::infinity();
    const double mse = mean_squared_error(candidate, split.validation.X, split.validation.y);
    return std::isfinite(mse) ? std::sqrt(mse) : std::numeric_limits<double>::infinity();
  };
  search.refit = [&](const Hyperparameters& h) {
    net = ReluNetwork::random(data.X.cols(), options.hidden_layers, 1.0, rng);
    return train(net, data.X, data.y, options.epochs, h, rng);
  };
  search.learning_rate = [](const Hyperparameters& h) { return h.learning_rate; };
  const tuning::Scored<Hyperparameters> used = search.run(data, rng, report).refit;
  const Hyperparameters& chosen = used.config;
  const double validation_rmse = used.validation_score;
  double noise_variance = validation_rmse * validation_rmse;
  const double training_mse = mean_squared_error(net, data.X, data.y);
  if (!std::isfinite(noise_variance)) noise_variance = training_mse;
  report.iterations = options.epochs;
  if (options.tune) report.diagnostics.emplace_back("validation_rmse", validation_rmse);  // of the configuration refit
  report.diagnostics.emplace_back("learning_rate", chosen.learning_rate);
  report.diagnostics.emplace_back("momentum", chosen.momentum);
  report.diagnostics.emplace_back("weight_decay", chosen.weight_decay);
  report.diagnostics.emplace_back("training_mse", training_mse);
  report.diagnostics.emplace_back("noise_variance", noise_variance);
  return Model(std::move(net), noise_variance, std::move(report));
}

}  // namespace bnn::bp
