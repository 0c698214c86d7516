#include "vi.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "methods/core/momentum_sgd.hpp"
#include "methods/core/normal.hpp"
#include "methods/core/options.hpp"
#include "methods/core/training_loop.hpp"
#include "methods/core/tuning/tune_then_refit.hpp"

namespace bnn::vi {
namespace {

constexpr const char* kName = "vi";

// The tuning box: log10 learning rate in [-5, -1], momentum in [0, 0.99].
MomentumSgd from_unit_square(const Eigen::VectorXd& u) { return {std::pow(10.0, -5.0 + 4.0 * u[0]), 0.99 * u[1]}; }

// Adds the KL gradient (divided by n) with respect to mean and sd; d_sd is turned into d_rho
// by the caller. For the adaptive prior this is also the total gradient: the prior's mean and
// variance minimize the KL, so their own dependence on q contributes nothing.
void add_kl_gradient(const Posterior& q, const GaussianPrior& prior, double n, BoundGradient& g,
                     std::vector<RowMatrix>& d_sd) {
  for (std::size_t l = 0; l < q.mean.size(); ++l) {
    const auto mu = q.mean[l].array();
    const Eigen::ArrayXXd sd = q.rho[l].array().exp();
    g.d_mean[l].array() += (mu - prior.mean) / (prior.variance * n);
    d_sd[l].array() += (-1.0 / sd + sd / prior.variance) / n;
  }
}

struct LocalCache {
  std::vector<Eigen::VectorXd> z, var_a, eps, a;
};

}  // namespace

GaussianPrior adaptive_prior(const Posterior& q) {
  double count = 0.0, sum = 0.0;
  for (const auto& m : q.mean) {
    count += static_cast<double>(m.size());
    sum += m.sum();
  }
  GaussianPrior prior;
  prior.mean = sum / count;
  double spread = 0.0;
  for (std::size_t l = 0; l < q.mean.size(); ++l)
    spread += (2.0 * q.rho[l].array()).exp().sum() + (q.mean[l].array() - prior.mean).square().sum();
  prior.variance = spread / count;
  return prior;
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
  const std::size_t L = q.mean.size();
  g.d_mean.resize(L);
  g.d_rho.resize(L);
  std::vector<RowMatrix> d_sd(L);
  for (std::size_t l = 0; l < L; ++l) {
    g.d_mean[l] = RowMatrix::Zero(q.mean[l].rows(), q.mean[l].cols());
    d_sd[l] = RowMatrix::Zero(q.mean[l].rows(), q.mean[l].cols());
  }
  const double noise = std::exp(q.log_noise_variance);
  double output = 0.0;
  double d_output = 0.0;
  if (options.estimator == Estimator::weights || options.estimator == Estimator::graves) {
    // One draw of every weight, w = mu + sd eps (Graves 2011).
    std::vector<RowMatrix> eps(L), w(L);
    for (std::size_t l = 0; l < L; ++l) {
      eps[l].resize(q.mean[l].rows(), q.mean[l].cols());
      for (Eigen::Index k = 0; k < eps[l].size(); ++k) eps[l].data()[k] = standard_normal(rng);
      w[l] = q.mean[l].array() + q.rho[l].array().exp() * eps[l].array();
    }
    ReluCache cache;
    output = relu_forward(w, x, cache);
    d_output = (output - y) / noise;
    std::vector<RowMatrix> g_w(L);
    for (std::size_t l = 0; l < L; ++l) g_w[l] = RowMatrix::Zero(w[l].rows(), w[l].cols());
    relu_backward(w, cache, d_output, g_w);
    for (std::size_t l = 0; l < L; ++l) {
      g.d_mean[l] += g_w[l];
      if (options.estimator == Estimator::graves)
        // Graves (2011), sec. 5: d E[L]/d sd^2 ~ 1/2 (dL/dw)^2 (diagonal Fisher in place of the
        // Hessian), so d/d sd = sd (dL/dw)^2.
        d_sd[l].array() += q.rho[l].array().exp() * g_w[l].array().square();
      else
        d_sd[l].array() += g_w[l].array() * eps[l].array();
    }
  } else {
    // Local reparameterization: a_i = mu_a,i + sqrt(var_a,i) eps_i given the layer input z,
    // mu_a = M z s, var_a = (sd^2) (z^2) s^2 with s = 1/sqrt(inputs + 1).
    LocalCache c;
    c.z.resize(L);
    c.var_a.resize(L);
    c.eps.resize(L);
    c.a.resize(L);
    c.z[0].resize(x.size() + 1);
    c.z[0] << x, 1.0;
    std::vector<RowMatrix> variance(L);
    for (std::size_t l = 0; l < L; ++l) {
      variance[l] = (2.0 * q.rho[l].array()).exp();
      const double s = 1.0 / std::sqrt(static_cast<double>(q.mean[l].cols()));
      const Eigen::VectorXd mean_a = s * (q.mean[l] * c.z[l]);
      c.var_a[l] = (s * s) * (variance[l] * c.z[l].array().square().matrix());
      c.eps[l].resize(mean_a.size());
      for (Eigen::Index i = 0; i < mean_a.size(); ++i) c.eps[l][i] = standard_normal(rng);
      c.a[l] = mean_a.array() + c.var_a[l].array().sqrt() * c.eps[l].array();
      if (l + 1 == L) break;
      c.z[l + 1].resize(c.a[l].size() + 1);
      c.z[l + 1] << c.a[l].cwiseMax(0.0), 1.0;
    }
    output = c.a[L - 1][0];
    d_output = (output - y) / noise;
    Eigen::VectorXd delta = Eigen::VectorXd::Constant(1, d_output);  // d loss / d a_l
    for (std::size_t l = L; l-- > 0;) {
      const double s = 1.0 / std::sqrt(static_cast<double>(q.mean[l].cols()));
      const Eigen::ArrayXd root = c.var_a[l].array().sqrt().max(1e-300);
      const Eigen::VectorXd d_var_a = (delta.array() * c.eps[l].array() / (2.0 * root)).matrix();  // d loss / d var_a
      const Eigen::ArrayXd z2 = c.z[l].array().square();
      g.d_mean[l].noalias() += s * delta * c.z[l].transpose();
      // d var_a,i / d sd_ij = 2 sd_ij z_j^2 s^2
      const Eigen::ArrayXXd sd = variance[l].array().sqrt();
      d_sd[l].array() += 2.0 * (s * s) * sd * (d_var_a * z2.matrix().transpose()).array();
      if (l == 0) break;
      // d loss / d z_j = sum_i delta_i M_ij s + d_var_a,i 2 z_j var_ij s^2
      Eigen::VectorXd d_z = s * (q.mean[l].transpose() * delta);
      d_z.array() += 2.0 * (s * s) * c.z[l].array() * (variance[l].transpose() * d_var_a).array();
      const Eigen::Index units = c.a[l - 1].size();
      delta = (c.a[l - 1].array() > 0.0).select(d_z.head(units), 0.0);
    }
  }
  add_kl_gradient(q, prior_for(q, options), n, g, d_sd);
  for (std::size_t l = 0; l < L; ++l) g.d_rho[l] = d_sd[l].array() * q.rho[l].array().exp();  // d sd / d log sd = sd
  const double r = output - y;
  g.d_log_noise = 0.5 - 0.5 * r * r / noise;
  // The data term of the per-point loss (the KL term's value is not needed for the updates).
  return -normal_log_pdf(y, output, noise);
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
  const EpochSchedule schedule{options.epochs, static_cast<std::size_t>(options.batch_size)};
  const TrainingOutcome outcome =
      run_epochs(schedule, static_cast<std::size_t>(X.rows()), rng, [&](std::span<const std::size_t> rows) {
        // The minibatch's gradient: the mean of its points' per-point gradients (each carrying
        // KL / n), so the step estimates the gradient of the whole bound divided by n.
        for (std::size_t b = 0; b < rows.size(); ++b) {
          const auto i = static_cast<Eigen::Index>(rows[b]);
          const double loss = point_loss(q, Xt.col(i), y[i], n, options, rng, b == 0 ? g : point);
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
  std::vector<RowMatrix> w(q.mean.size());
  ReluCache cache;
  for (int s = 0; s < draws; ++s) {
    for (std::size_t l = 0; l < q.mean.size(); ++l) {
      w[l].resize(q.mean[l].rows(), q.mean[l].cols());
      for (Eigen::Index k = 0; k < w[l].size(); ++k)
        w[l].data()[k] = q.mean[l].data()[k] + std::exp(q.rho[l].data()[k]) * standard_normal(rng);
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
