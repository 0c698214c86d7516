#include "mc_dropout.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "methods/core/adam.hpp"
#include "methods/core/draws_predictive.hpp"
#include "methods/core/options.hpp"
#include "methods/core/training_loop.hpp"

namespace bnn::mc_dropout {
namespace {
constexpr const char* kName = "mc-dropout";
// Passes run together when scoring the grid: a block of outputs per row at a time.
constexpr int kPassBlock = 128;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

RegressionData rows(const RegressionData& data, Eigen::Index first, Eigen::Index count) {
  return {data.X.middleRows(first, count), data.y.segment(first, count), data.target_scale};
}
}  // namespace

void Options::validate() const {
  require_units(kName, "hidden_units", hidden_units);
  require_at_least(kName, "epochs", epochs, 1);
  require_at_least(kName, "batch_size", batch_size, 1);
  if (dropout_rates.empty()) throw std::invalid_argument("mc-dropout: dropout_rates is empty, but needs at least one");
  for (double p : dropout_rates) {
    require_at_least(kName, "dropout_rates", p, 0.0);
    require_below(kName, "dropout_rates", p, 1.0);
  }
  for (double tau : taus) require_positive(kName, "taus", tau);
  if (taus.empty() && taus_normalized.empty())
    throw std::invalid_argument("mc-dropout: taus and taus_normalized are both empty, but one needs a value");
  for (double tau : taus_normalized) require_positive(kName, "taus_normalized", tau);
  require_positive(kName, "length_scale", length_scale);
  require_in_open_unit(kName, "validation_fraction", validation_fraction);
  require_count(kName, "samples", samples, 1'000'000, "each pass is stored, 4 bytes per test point");
  require_positive(kName, "learning_rate", learning_rate);
}

double weight_decay(const Options& options, const Setting& setting, Eigen::Index n) {
  return options.length_scale * options.length_scale * (1.0 - setting.dropout) /
         (2.0 * static_cast<double>(n) * setting.tau);
}

template <class Scalar>
double batch_loss(const BasicDenseNetwork<Scalar>& net, const DenseInput<Scalar>& X,
                  const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& y, const BasicDropoutMasks<Scalar>& masks,
                  double decay, BasicDenseCache<Scalar>& cache, Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& gradient) {
  dense_forward(net, X, masks, cache);
  const Eigen::Matrix<Scalar, Eigen::Dynamic, 1> residual = cache.output.col(0) - y;
  const double n = static_cast<double>(X.rows());
  const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> d_output = static_cast<Scalar>(2.0 / n) * residual;
  dense_backward(net, cache, masks, d_output, gradient, nullptr);
  const Eigen::Index w1 = net.b1_offset(), w2 = net.W2_offset(), w2_size = net.b2_offset() - w2;
  const auto twice_decay = static_cast<Scalar>(2.0 * decay);
  gradient.head(w1) += twice_decay * net.theta.head(w1);
  gradient.segment(w2, w2_size) += twice_decay * net.theta.segment(w2, w2_size);
  return static_cast<double>(residual.squaredNorm()) / n +
         decay * static_cast<double>(net.theta.head(w1).squaredNorm() + net.theta.segment(w2, w2_size).squaredNorm());
}
template double batch_loss<double>(const DenseNetwork&, const DenseInput<double>&, const Eigen::VectorXd&,
                                   const DropoutMasks&, double, DenseCache&, Eigen::VectorXd&);
template double batch_loss<float>(const DenseNetwork32&, const DenseInput<float>&, const Eigen::VectorXf&,
                                  const DropoutMasks32&, double, DenseCache32&, Eigen::VectorXf&);

DenseNetwork32 train(const RegressionData& data, const Options& options, const Setting& setting, Rng& rng) {
  const Eigen::MatrixXf X = data.X.cast<float>();
  const Eigen::VectorXf y = data.y.cast<float>();
  DenseNetwork32 net = DenseNetwork32::glorot_uniform({X.cols(), options.hidden_units, 1}, rng);
  AdamState32 adam(Adam{options.learning_rate}, net.theta.size());
  const double decay = weight_decay(options, setting, X.rows());
  DenseCache32 cache;
  DropoutMasks32 masks;
  std::vector<std::uint32_t> uniforms;
  Eigen::VectorXf gradient;
  const EpochSchedule schedule{options.epochs, static_cast<std::size_t>(options.batch_size)};
  run_epochs(schedule, static_cast<std::size_t>(X.rows()), rng,
             gathered_rows(X, y, [&](const Eigen::MatrixXf& Xb, const Eigen::VectorXf& yb) {
               if (setting.dropout > 0.0) {  // p = 0 draws nothing: a plain network, bit for bit
                 draw_dropout_mask(Xb.rows(), Xb.cols(), setting.dropout, rng, masks.input, uniforms);
                 draw_dropout_mask(Xb.rows(), Eigen::Index{options.hidden_units}, setting.dropout, rng, masks.hidden,
                                   uniforms);
               }
               batch_loss(net, Xb, yb, masks, decay, cache, gradient);
               adam.step(net.theta, gradient);
               return true;
             }));
  return net;
}

namespace {
// Rows of a pass processed together: a block's hidden layer (rows x units) stays in cache, so a
// pass costs its matrix products and mask draws rather than memory traffic.
constexpr Eigen::Index kRowBlock = 256;

struct PassWorkspace {
  Eigen::MatrixXf input, hidden;
  std::vector<std::uint32_t> uniforms;
};

// One stochastic pass (dropout on) over the rows of X, block by block: out[i] = f_t(x_i).
void stochastic_pass(const DenseNetwork32& net, const Eigen::MatrixXf& X, double dropout, Rng& rng, PassWorkspace& ws,
                     Eigen::Ref<Eigen::VectorXf> out) {
  const auto W1 = net.W1();
  const auto b1 = net.b1();
  const auto w2 = net.W2().col(0);
  const float b2 = net.b2()[0];
  for (Eigen::Index start = 0; start < X.rows(); start += kRowBlock) {
    const Eigen::Index rows = std::min(kRowBlock, X.rows() - start);
    ws.input = X.middleRows(start, rows);
    if (dropout > 0.0) apply_dropout(ws.input.data(), ws.input.size(), dropout, rng, ws.uniforms);
    ws.hidden.noalias() = ws.input * W1;
    ws.hidden.rowwise() += b1;
    ws.hidden = ws.hidden.cwiseMax(0.0F);
    if (dropout > 0.0) apply_dropout(ws.hidden.data(), ws.hidden.size(), dropout, rng, ws.uniforms);
    out.segment(start, rows).noalias() = ws.hidden * w2;
    out.segment(start, rows).array() += b2;
  }
}

// Runs `passes` stochastic passes in blocks of passes; sink(first_pass, block) gets rows x
// passes-in-block.
template <class Sink>
void run_passes(const DenseNetwork32& net, const Eigen::MatrixXd& X, double dropout, int passes, int block, Rng& rng,
                Sink&& sink) {
  const Eigen::MatrixXf X32 = X.cast<float>();
  PassWorkspace ws;
  Eigen::MatrixXf outputs(X.rows(), std::min(block, passes));
  for (int first = 0; first < passes; first += block) {
    const int count = std::min(block, passes - first);
    for (int t = 0; t < count; ++t) stochastic_pass(net, X32, dropout, rng, ws, outputs.col(t));
    sink(first, outputs.leftCols(count));
  }
}
}  // namespace

Draws stochastic_outputs(const DenseNetwork32& net, const Eigen::MatrixXd& X, double dropout, int passes, Rng& rng) {
  Draws all(X.rows(), passes);
  run_passes(net, X, dropout, passes, kPassBlock, rng,
             [&](int first, const auto& block) { all.middleCols(first, block.cols()) = block; });
  return all;
}

double mean_log_likelihood(const DenseNetwork32& net, const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                           double dropout, double noise_variance, int passes, Rng& rng) {
  // A running log-sum-exp per row: its largest term so far and the sum of exp(term - largest).
  Eigen::ArrayXd largest = Eigen::ArrayXd::Constant(X.rows(), -std::numeric_limits<double>::infinity());
  Eigen::ArrayXd sum = Eigen::ArrayXd::Zero(X.rows());
  Eigen::ArrayXXd terms;  // kept across blocks: a fresh rows x 128 array each block would be mapped and faulted in
  run_passes(net, X, dropout, passes, kPassBlock, rng, [&](int, const auto& block) {
    terms = (-0.5 / noise_variance) * (block.template cast<double>().array().colwise() - y.array()).square();
    const Eigen::ArrayXd block_max = terms.rowwise().maxCoeff();
    const Eigen::ArrayXd new_largest = largest.max(block_max);
    sum = sum * (largest - new_largest).exp() + (terms.colwise() - new_largest).exp().rowwise().sum();
    largest = new_largest;
  });
  const Eigen::ArrayXd ll = largest + sum.log() - std::log(static_cast<double>(passes)) -
                            0.5 * std::log(2.0 * std::numbers::pi * noise_variance);
  return ll.mean();
}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  Rng rng(seed_);
  return std::make_unique<DrawsPredictive>(stochastic_outputs(net_, X, dropout_, samples_, rng), noise_variance_);
}

RegressionData fit_order(const RegressionData& train, ValidationRule rule, Rng& rng) {
  if (rule == ValidationRule::last) return train;
  return tuning::order_by_content(train, rng());
}

tuning::ValidationSplit grid_parts(const RegressionData& ordered, double fraction) {
  const auto n_fit = static_cast<Eigen::Index>(std::floor((1.0 - fraction) * static_cast<double>(ordered.X.rows())));
  if (n_fit < 1 || n_fit >= ordered.X.rows())
    throw std::invalid_argument("mc-dropout: " + std::to_string(ordered.X.rows()) +
                                " training rows are too few to hold out a validation part");
  return {rows(ordered, 0, n_fit), rows(ordered, n_fit, ordered.X.rows() - n_fit)};
}

Model fit(const RegressionData& train_data, const Validated<Options>& validated, Rng& rng) {
  check_training_data(train_data, kName);
  const Options& options = *validated;
  const double scale2 = train_data.target_scale * train_data.target_scale;
  // The model's noise variance on the harness's normalized scale: 1 / (tau s^2).
  const auto noise_variance = [&](double tau) { return 1.0 / (tau * scale2); };
  std::vector<double> taus = options.taus;
  if (taus.empty())
    for (double relative : options.taus_normalized) taus.push_back(relative / scale2);
  FitReport report;
  Setting best{options.dropout_rates.front(), taus.front()};
  const auto grid_start = std::chrono::steady_clock::now();
  const RegressionData ordered =
      options.validation == ValidationRule::random ? fit_order(train_data, options.validation, rng) : RegressionData{};
  const RegressionData& data = options.validation == ValidationRule::random ? ordered : train_data;
  if (options.dropout_rates.size() * taus.size() > 1) {
    const auto [fit_part, validation] = grid_parts(data, options.validation_fraction);
    double best_ll = -std::numeric_limits<double>::infinity();
    for (double p : options.dropout_rates)
      for (double tau : taus) {
        const DenseNetwork32 net = train(fit_part, options, {p, tau}, rng);
        const double ll =
            mean_log_likelihood(net, validation.X, validation.y, p, noise_variance(tau), options.samples, rng);
        if (ll > best_ll) {  // the first of equals wins; a NaN never does
          best_ll = ll;
          best = {p, tau};
        }
      }
    if (!std::isfinite(best_ll)) {
      report.status = FitStatus::numerical_error;
      report.message = "no grid setting gave a finite validation log-likelihood";
    }
    // On the original scale, as the authors' code prints it.
    report.diagnostics.push_back({"validation_ll", best_ll - std::log(train_data.target_scale)});
  }
  const double grid_seconds = seconds_since(grid_start);
  const auto refit_start = std::chrono::steady_clock::now();
  DenseNetwork32 net = train(data, options, best, rng);
  report.diagnostics.push_back({"dropout", best.dropout});
  report.diagnostics.push_back({"tau", best.tau});
  report.diagnostics.push_back({"grid_seconds", grid_seconds});
  report.diagnostics.push_back({"refit_seconds", seconds_since(refit_start)});
  if (!net.theta.allFinite()) {
    report.status = FitStatus::numerical_error;
    report.message = "training diverged (non-finite weights)";
  }
  const std::uint64_t seed = rng();
  return Model(std::move(net), best.dropout, noise_variance(best.tau), options.samples, seed, std::move(report));
}

}  // namespace bnn::mc_dropout
