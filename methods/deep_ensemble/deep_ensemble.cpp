#include "deep_ensemble.hpp"

#include <cmath>

#include "methods/core/adam.hpp"
#include "methods/core/options.hpp"
#include "methods/core/training_loop.hpp"

namespace bnn::deep_ensemble {
namespace {
constexpr const char* kName = "deep-ensemble";

double softplus(double g) { return g > 0.0 ? g + std::log1p(std::exp(-g)) : std::log1p(std::exp(g)); }
double sigmoid(double g) { return g >= 0.0 ? 1.0 / (1.0 + std::exp(-g)) : std::exp(g) / (1.0 + std::exp(g)); }
}  // namespace

void Options::validate() const {
  require_count(kName, "members", members, 10'000, "each member is a network trained and kept");
  require_units(kName, "hidden_units", hidden_units);
  require_at_least(kName, "epochs", epochs, 1);
  require_at_least(kName, "batch_size", batch_size, 1);
  require_positive(kName, "learning_rate", learning_rate);
  require_positive(kName, "adversarial_epsilon", adversarial_epsilon);
  require_positive(kName, "min_variance", min_variance);
}

double gaussian_nll(const Eigen::MatrixXd& outputs, const Eigen::VectorXd& y, double min_variance,
                    Eigen::MatrixXd& d_outputs) {
  const Eigen::Index n = outputs.rows();
  d_outputs.resize(n, 2);
  double loss = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double variance = softplus(outputs(i, 1)) + min_variance;
    const double r = y[i] - outputs(i, 0);
    loss += 0.5 * std::log(variance) + 0.5 * r * r / variance;
    d_outputs(i, 0) = -r / variance;
    d_outputs(i, 1) = (0.5 / variance - 0.5 * r * r / (variance * variance)) * sigmoid(outputs(i, 1));
  }
  d_outputs /= static_cast<double>(n);
  return loss / static_cast<double>(n);
}

double batch_loss(const DenseNetwork& net, const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& options,
                  const Eigen::RowVectorXd& epsilon_per_input, DenseCache& cache, Eigen::VectorXd& gradient) {
  const DropoutMasks none;
  Eigen::MatrixXd d_outputs, d_input;
  dense_forward(net, X, none, cache);
  double loss = gaussian_nll(cache.output, y, options.min_variance, d_outputs);
  const bool adversarial = epsilon_per_input.size() > 0;
  dense_backward(net, cache, none, d_outputs, gradient, adversarial ? &d_input : nullptr);
  if (adversarial) {
    // x' = x + epsilon sign(d loss / d x) (the fast gradient sign, Goodfellow et al. 2015); the
    // loss at x' is added to the loss at x.
    const Eigen::MatrixXd X_adversarial = X + (d_input.array().sign().rowwise() * epsilon_per_input.array()).matrix();
    Eigen::VectorXd gradient_adversarial;
    dense_forward(net, X_adversarial, none, cache);
    loss += gaussian_nll(cache.output, y, options.min_variance, d_outputs);
    dense_backward(net, cache, none, d_outputs, gradient_adversarial, nullptr);
    gradient += gradient_adversarial;
  }
  return loss;
}

DenseNetwork torch_initialization(const DenseShape& shape, Rng& rng) {
  DenseNetwork net(shape);
  const double a1 = 1.0 / std::sqrt(static_cast<double>(shape.inputs));
  const double a2 = 1.0 / std::sqrt(static_cast<double>(shape.hidden));
  for (Eigen::Index k = 0; k < net.W2_offset(); ++k) net.theta[k] = uniform(rng, -a1, a1);
  for (Eigen::Index k = net.W2_offset(); k < net.theta.size(); ++k) net.theta[k] = uniform(rng, -a2, a2);
  return net;
}

DenseNetwork train_member(const RegressionData& data, const Options& options, Rng& rng) {
  DenseNetwork net = torch_initialization({data.X.cols(), options.hidden_units, 2}, rng);
  AdamState adam(Adam{options.learning_rate}, net.theta.size());
  Eigen::RowVectorXd epsilon;
  if (options.adversarial)
    epsilon = options.adversarial_epsilon * (data.X.colwise().maxCoeff() - data.X.colwise().minCoeff());
  DenseCache cache;
  Eigen::VectorXd gradient;
  const EpochSchedule schedule{options.epochs, static_cast<std::size_t>(options.batch_size)};
  run_epochs(schedule, static_cast<std::size_t>(data.X.rows()), rng,
             gathered_rows(data.X, data.y, [&](const Eigen::MatrixXd& Xb, const Eigen::VectorXd& yb) {
               batch_loss(net, Xb, yb, options, epsilon, cache, gradient);
               adam.step(net.theta, gradient);
               return true;
             }));
  return net;
}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  const auto M = static_cast<Eigen::Index>(members_.size());
  Eigen::MatrixXd means(X.rows(), M), variances(X.rows(), M);
  DenseCache cache;
  for (Eigen::Index m = 0; m < M; ++m) {
    dense_forward(members_[static_cast<std::size_t>(m)], X, {}, cache);
    means.col(m) = cache.output.col(0);
    for (Eigen::Index i = 0; i < X.rows(); ++i) variances(i, m) = softplus(cache.output(i, 1)) + min_variance_;
  }
  return std::make_unique<GaussianMixturePredictive>(std::move(means), std::move(variances));
}

Model fit(const RegressionData& train, const Validated<Options>& validated, Rng& rng) {
  check_training_data(train, kName);
  const Options& options = *validated;
  FitReport report;
  std::vector<DenseNetwork> members;
  for (int m = 0; m < options.members; ++m) {
    members.push_back(train_member(train, options, rng));
    if (!members.back().theta.allFinite()) {
      report.status = FitStatus::numerical_error;
      report.message = "member " + std::to_string(m + 1) + " diverged (non-finite weights)";
    }
  }
  return Model(std::move(members), options.min_variance, std::move(report));
}

}  // namespace bnn::deep_ensemble
