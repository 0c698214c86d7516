#include "bp.hpp"

#include <cmath>
#include <limits>

#include "methods/core/momentum_sgd.hpp"
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

bool train(ReluNetwork& net, const Eigen::MatrixXd& X, const Eigen::VectorXd& y, int epochs, const Hyperparameters& h,
           Rng& rng) {
  std::vector<RowMatrix> gradient, velocity;
  for (const auto& W : net.weights) {
    gradient.push_back(RowMatrix::Zero(W.rows(), W.cols()));
    velocity.push_back(RowMatrix::Zero(W.rows(), W.cols()));
  }
  const MomentumSgd sgd{h.learning_rate, h.momentum};
  const Eigen::MatrixXd Xt = X.transpose();
  ReluCache cache;
  const TrainingOutcome outcome =
      run_epochs({epochs, 1}, static_cast<std::size_t>(X.rows()), rng, [&](std::span<const std::size_t> rows) {
        const auto i = static_cast<Eigen::Index>(rows[0]);
        const double out = relu_forward(net.weights, Xt.col(i), cache);
        if (!std::isfinite(out)) return false;
        for (auto& g : gradient) g.setZero();
        relu_backward(net.weights, cache, out - y[i], gradient);  // d (r^2/2) / d out = r
        for (std::size_t l = 0; l < net.weights.size(); ++l)
          sgd.step(net.weights[l], velocity[l], gradient[l] + h.weight_decay * net.weights[l]);
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
