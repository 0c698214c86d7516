#include "vi.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "bound_gradient.hpp"
#include "methods/core/momentum_sgd.hpp"
#include "methods/core/options.hpp"
#include "methods/core/training_loop.hpp"
#include "methods/core/tuning/tune_then_refit.hpp"

namespace bnn::vi {
namespace {

constexpr const char* kName = "vi";

// The tuning box: log10 learning rate in [-5, -1], momentum in [0, 0.99].
MomentumSgd from_unit_square(const Eigen::VectorXd& u) { return {std::pow(10.0, -5.0 + 4.0 * u[0]), 0.99 * u[1]}; }

}  // namespace

GaussianPrior adaptive_prior(const std::vector<RowMatrix>& means, const std::vector<RowMatrix>& variances) {
  double count = 0.0, sum = 0.0;
  for (const auto& m : means) {
    count += static_cast<double>(m.size());
    sum += m.sum();
  }
  GaussianPrior prior;
  prior.mean = sum / count;
  double spread = 0.0;
  for (std::size_t l = 0; l < means.size(); ++l)
    spread += variances[l].sum() + (means[l].array() - prior.mean).square().sum();
  prior.variance = spread / count;
  return prior;
}

GaussianPrior adaptive_prior(const Posterior& q) {
  std::vector<RowMatrix> variances;
  for (const auto& rho : q.rho) variances.emplace_back((2.0 * rho.array()).exp());
  return adaptive_prior(q.mean, variances);
}

GaussianPrior prior_for(const Posterior& q, const Options& options) {
  if (options.prior == PriorKind::adaptive) return adaptive_prior(q);
  return {0.0, options.prior_variance};
}

double kl_divergence(const Posterior& q, const GaussianPrior& prior) {
  double kl = 0.0;
  for (std::size_t l = 0; l < q.mean.size(); ++l)
    for (Eigen::Index k = 0; k < q.mean[l].size(); ++k) {
      const double sd = std::exp(q.rho[l].data()[k]);
      const double offset = q.mean[l].data()[k] - prior.mean;
      kl += 0.5 * std::log(prior.variance) - std::log(sd) + (sd * sd + offset * offset) / (2.0 * prior.variance) - 0.5;
    }
  return kl;
}

void Options::validate() const {
  require_hidden_layers(kName, hidden_layers);
  require_at_least(kName, "epochs", epochs, 1);
  require_at_least(kName, "batch_size", batch_size, 1);
  require_at_least(kName, "tuning_evaluations", tuning_evaluations, 1);
  require_in_open_unit(kName, "validation_fraction", validation_fraction);
  require_positive(kName, "learning_rate", learning_rate);
  require_at_least(kName, "momentum", momentum, 0.0);
  require_below(kName, "momentum", momentum, 1.0);
  require_positive(kName, "prior_variance", prior_variance);
  require_positive(kName, "initial_sd", initial_sd);
  require_positive(kName, "initial_noise_variance", initial_noise_variance);
  require_at_least(kName, "predictive_samples", predictive_samples, 2);
}

double point_loss(const Posterior& q, const Eigen::Ref<const Eigen::VectorXd>& x, double y, double n,
                  const Options& options, Rng& rng, BoundGradient& g) {
  StepTerms step;
  step.update(q, options);
  PointBuffers buffers;
  return point_gradient(q, step, x, y, n, options, rng, buffers, g);
}

bool train(Posterior& q, const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& options,
           double learning_rate, double momentum, Rng& rng) {
  const std::size_t L = q.mean.size();
  std::vector<RowMatrix> v_mean(L), v_rho(L);
  for (std::size_t l = 0; l < L; ++l) {
    v_mean[l] = RowMatrix::Zero(q.mean[l].rows(), q.mean[l].cols());
    v_rho[l] = RowMatrix::Zero(q.mean[l].rows(), q.mean[l].cols());
  }
  double v_noise = 0.0;
  const MomentumSgd sgd{learning_rate, momentum};
  const Eigen::MatrixXd Xt = X.transpose();
  const auto n = static_cast<double>(X.rows());
  BoundGradient g, point;
  StepTerms step;
  PointBuffers buffers;
  const EpochSchedule schedule{options.epochs, static_cast<std::size_t>(options.batch_size)};
  const TrainingOutcome outcome =
      run_epochs(schedule, static_cast<std::size_t>(X.rows()), rng, [&](std::span<const std::size_t> rows) {
        // The minibatch's gradient: the mean of its points' per-point gradients (each carrying
        // KL / n), so the step estimates the gradient of the whole bound divided by n.
        step.update(q, options);
        for (std::size_t b = 0; b < rows.size(); ++b) {
          const auto i = static_cast<Eigen::Index>(rows[b]);
          const double loss = point_gradient(q, step, Xt.col(i), y[i], n, options, rng, buffers, b == 0 ? g : point);
          if (!std::isfinite(loss)) return false;
          if (b == 0) continue;
          for (std::size_t l = 0; l < L; ++l) {
            g.d_mean[l] += point.d_mean[l];
            g.d_rho[l] += point.d_rho[l];
          }
          g.d_log_noise += point.d_log_noise;
        }
        if (rows.size() > 1) {
          const double inverse = 1.0 / static_cast<double>(rows.size());
          for (std::size_t l = 0; l < L; ++l) {
            g.d_mean[l] *= inverse;
            g.d_rho[l] *= inverse;
          }
          g.d_log_noise *= inverse;
        }
        for (std::size_t l = 0; l < L; ++l) {
          sgd.step(q.mean[l], v_mean[l], g.d_mean[l]);
          sgd.step(q.rho[l], v_rho[l], g.d_rho[l]);
        }
        sgd.step(q.log_noise_variance, v_noise, g.d_log_noise);
        return true;
      });
  if (outcome.diverged) return false;
  for (std::size_t l = 0; l < L; ++l)
    if (!q.mean[l].allFinite() || !q.rho[l].allFinite()) return false;  // the last updates can overflow
  return std::isfinite(q.log_noise_variance);
}

namespace {

Posterior initial_posterior(Eigen::Index inputs, const Options& options, Rng& rng) {
  const ReluNetwork net = ReluNetwork::random(inputs, options.hidden_layers, 1.0, rng);
  Posterior q;
  const double rho0 = std::log(options.initial_sd);
  for (const auto& W : net.weights) {
    q.mean.push_back(W);
    q.rho.push_back(RowMatrix::Constant(W.rows(), W.cols(), rho0));
  }
  q.log_noise_variance = std::log(options.initial_noise_variance);
  return q;
}

// Output draws f_s(x_i) for S weight draws: (points x draws).
Eigen::MatrixXd output_draws(const Posterior& q, const Eigen::MatrixXd& X, int draws, Rng& rng) {
  Eigen::MatrixXd out(X.rows(), draws);
  std::vector<RowMatrix> w(q.mean.size()), sd(q.mean.size());
  for (std::size_t l = 0; l < q.mean.size(); ++l) sd[l] = q.rho[l].array().exp();
  ReluCache cache;
  for (int s = 0; s < draws; ++s) {
    for (std::size_t l = 0; l < q.mean.size(); ++l) {
      w[l].resize(q.mean[l].rows(), q.mean[l].cols());
      for (Eigen::Index k = 0; k < w[l].size(); ++k)
        w[l].data()[k] = q.mean[l].data()[k] + sd[l].data()[k] * standard_normal(rng);
    }
    for (Eigen::Index i = 0; i < X.rows(); ++i) out(i, s) = relu_forward(w, X.row(i).transpose(), cache);
  }
  return out;
}

std::unique_ptr<Predictive> predictive_from(const Eigen::MatrixXd& draws, double noise, PredictiveKind kind) {
  if (kind == PredictiveKind::mixture)
    return std::make_unique<GaussianMixturePredictive>(draws,
                                                       Eigen::MatrixXd::Constant(draws.rows(), draws.cols(), noise));
  const Eigen::VectorXd mean = draws.rowwise().mean();
  const Eigen::VectorXd variance =
      ((draws.colwise() - mean).array().square().rowwise().sum() / static_cast<double>(draws.cols())).matrix();
  return std::make_unique<GaussianPredictive>(mean, (variance.array() + noise).matrix());
}

}  // namespace

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  Rng rng(seed_);
  return predictive_from(output_draws(q_, X, options_.predictive_samples, rng), std::exp(q_.log_noise_variance),
                         options_.predictive);
}

Model fit(const RegressionData& data, const Validated<Options>& valid, Rng& rng) {
  const Options& options = *valid;
  check_training_data(data, kName);
  FitReport report;
  Posterior q;
  tuning::TuneThenRefit<MomentumSgd> search(kName, "the bound", options, 2, {options.learning_rate, options.momentum});
  search.decode = from_unit_square;
  // The validation negative mean log predictive density.
  search.score = [&](const tuning::ValidationSplit& split, const MomentumSgd& sgd, std::uint64_t seed) {
    Rng run(seed);
    Posterior candidate = initial_posterior(data.X.cols(), options, run);
    if (!train(candidate, split.fit.X, split.fit.y, options, sgd.learning_rate, sgd.momentum, run))
      return std::numeric_limits<double>::infinity();
    const auto p = predictive_from(output_draws(candidate, split.validation.X, 20, run),
                                   std::exp(candidate.log_noise_variance), options.predictive);
    double nll = 0.0;
    for (Eigen::Index i = 0; i < split.validation.X.rows(); ++i) nll -= p->log_density(i, split.validation.y[i]);
    nll /= static_cast<double>(split.validation.X.rows());
    return std::isfinite(nll) ? nll : std::numeric_limits<double>::infinity();
  };
  search.refit = [&](const MomentumSgd& sgd) {
    q = initial_posterior(data.X.cols(), options, rng);
    return train(q, data.X, data.y, options, sgd.learning_rate, sgd.momentum, rng);
  };
  search.learning_rate = [](const MomentumSgd& sgd) { return sgd.learning_rate; };
  const tuning::Tuned<MomentumSgd> tuned = search.run(data, rng, report);
  if (options.tune) report.diagnostics.emplace_back("validation_nll", tuned.best_validation_score);
  report.iterations = options.epochs;
  report.diagnostics.emplace_back("learning_rate", tuned.refit.config.learning_rate);
  report.diagnostics.emplace_back("momentum", tuned.refit.config.momentum);
  report.diagnostics.emplace_back("noise_variance", std::exp(q.log_noise_variance));
  const std::uint64_t predict_seed = rng();
  return Model(std::move(q), options, predict_seed, std::move(report));
}

}  // namespace bnn::vi
