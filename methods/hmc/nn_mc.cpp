#include "nn_mc.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>

#include "diagnostics.hpp"
#include "methods/core/minimize.hpp"
#include "methods/core/options.hpp"
#include "methods/core/parallel_pieces.hpp"
#include "sampler.hpp"

namespace bnn::hmc {

void Options::validate(std::string_view method) const {
  require_hidden_layers(method, hidden_layers);
  parse_activation(activation);
  if (prior != "ard" && prior != "ard2" && prior != "layer" && prior != "shared")
    throw std::invalid_argument(std::string(method) + ": prior is '" + prior + "', but must be ard, ard2, layer or shared");
  require_positive(method, "weight_prior_shape", weight_prior_shape);
  require_positive(method, "input_individual_shape", input_individual_shape);
  require_positive(method, "input_prior_scale", input_prior_scale);
  require_positive(method, "weight_prior_scale", weight_prior_scale);
  require_positive(method, "bias_prior_scale", bias_prior_scale);
  require_positive(method, "output_prior_scale", output_prior_scale);
  require_positive(method, "noise_prior_shape", noise_prior_shape);
  require_positive(method, "noise_prior_scale", noise_prior_scale);
  require_at_least(method, "chains", chains, 1);
  require_at_least(method, "warmup", warmup, 20);
  require_at_least(method, "thin", thin, 1);
  require_at_least(method, "samples", samples, 4.0 * chains * thin);
  if (hyperparameters != "gibbs" && hyperparameters != "integrated")
    throw std::invalid_argument(std::string(method) + ": hyperparameters is '" + hyperparameters +
                                "', but must be gibbs or integrated");
  if (metric != "neal" && metric != "adapted")
    throw std::invalid_argument(std::string(method) + ": metric is '" + metric + "', but must be neal or adapted");
  require_at_least(method, "leapfrog_steps", leapfrog_steps, 1);
  require_in_open_unit(method, "target_accept", target_accept);
  require_at_least(method, "step_jitter", step_jitter, 0.0);
  require_below(method, "step_jitter", step_jitter, 1.0);
  require_at_least(method, "hyper_delay", hyper_delay, 0);
  require_below(method, "hyper_delay", hyper_delay, warmup);
  require_positive(method, "initial_sd", initial_sd);
  require_at_least(method, "initial_optimization", initial_optimization, 0);
  require_at_least(method, "diagnostic_points", diagnostic_points, 1);
  require_at_least(method, "tempering_replicas", tempering_replicas, 1);
  require_in_open_unit(method, "tempering_min_beta", tempering_min_beta);
}

Options relu_defaults() {
  Options o;
  o.hidden_layers = {50};
  o.activation = "relu";
  o.prior = "layer";
  return o;
}

PriorGroups make_prior_groups(const MlpShape& shape, const Options& o) {
  PriorGroups g;
  const Eigen::Index P = shape.parameter_count();
  g.group.assign(static_cast<std::size_t>(P), -1);
  g.multiplier = Eigen::VectorXd::Ones(P);
  std::vector<double> shapes, rates;
  const auto add_group = [&](std::string name, double scale) {
    g.names.push_back(std::move(name));
    shapes.push_back(o.weight_prior_shape);
    rates.push_back(o.weight_prior_shape * scale * scale);  // E[precision] = 1 / scale^2
    return static_cast<int>(g.names.size()) - 1;
  };
  const auto assign = [&](Eigen::Index begin, Eigen::Index count, int group, double multiplier) {
    for (Eigen::Index i = begin; i < begin + count; ++i) {
      g.group[static_cast<std::size_t>(i)] = group;
      g.multiplier[i] = multiplier;
    }
  };
  const std::size_t L = shape.hidden.size();
  if (o.prior == "shared") {
    const int all = add_group("weights", o.weight_prior_scale);
    for (std::size_t l = 0; l <= L; ++l) {
      const double fan_in = static_cast<double>(shape.layer_inputs(l) + 1);
      assign(shape.weight_offset(l), shape.layer_units(l) * (shape.layer_inputs(l) + 1), all, fan_in);
    }
  } else {
    for (std::size_t l = 0; l <= L; ++l) {
      const Eigen::Index units = shape.layer_units(l), inputs = shape.layer_inputs(l);
      const Eigen::Index w0 = shape.weight_offset(l);
      const bool output = l == L;
      if (l == 0 && !output && (o.prior == "ard" || o.prior == "ard2")) {
        for (Eigen::Index j = 0; j < inputs; ++j) {
          const int group = add_group("input " + std::to_string(j + 1), o.input_prior_scale);
          for (Eigen::Index k = 0; k < units; ++k) assign(w0 + k * inputs + j, 1, group, 1.0);
          if (o.prior == "ard2") {
            g.linked.push_back(group);
            shapes[static_cast<std::size_t>(group)] = o.input_individual_shape;
          }
        }
      } else if (l == 0 && !output) {
        assign(w0, units * inputs, add_group("input weights", o.input_prior_scale), 1.0);
      } else if (!output) {
        assign(w0, units * inputs, add_group("layer " + std::to_string(l + 1) + " weights", o.weight_prior_scale),
               static_cast<double>(inputs));
      } else {
        // Output weights: variance scale^2 / units, so the prior of f stays put as units grow.
        assign(w0, inputs, add_group("output weights", o.output_prior_scale), L == 0 ? 1.0 : static_cast<double>(inputs));
      }
      assign(shape.bias_offset(l), units,
             add_group(output ? "output bias" : "layer " + std::to_string(l + 1) + " biases", o.bias_prior_scale), 1.0);
    }
  }
  g.shape = Eigen::Map<Eigen::VectorXd>(shapes.data(), static_cast<Eigen::Index>(shapes.size()));
  g.rate = Eigen::Map<Eigen::VectorXd>(rates.data(), static_cast<Eigen::Index>(rates.size()));
  if (!g.linked.empty()) {
    g.common_shape = o.weight_prior_shape;
    g.common_rate = o.weight_prior_shape * o.input_prior_scale * o.input_prior_scale;  // E[1/u] = 1/scale^2
    g.set_common_variance(o.input_prior_scale * o.input_prior_scale);
  }
  return g;
}

void PriorGroups::set_common_variance(double u) {
  common_variance = u;
  for (const int g : linked) rate[g] = shape[g] * u;
}

double draw_common_variance(const PriorGroups& groups, const Eigen::VectorXd& precision, double u, Rng& rng) {
  // log p(v | precisions), v = log u: sum_j [a_j v - a_j e^v tau_j] - a0 v - r0 e^-v (the
  // Gamma(a0, r0) prior on 1/u with its Jacobian), a concave function of v.
  double shape_sum = 0.0, weighted = 0.0;
  for (const int g : groups.linked) {
    shape_sum += groups.shape[g];
    weighted += groups.shape[g] * precision[g];
  }
  const double a0 = groups.common_shape, r0 = groups.common_rate;
  const auto log_density = [&](double v) { return (shape_sum - a0) * v - weighted * std::exp(v) - r0 * std::exp(-v); };
  // Neal's (2003) slice sampler: stepping out by unit widths, then shrinkage.
  const double v0 = std::log(u);
  const double level = log_density(v0) + std::log(uniform01(rng));
  constexpr double width = 1.0;
  double lower = v0 - width * uniform01(rng), upper = lower + width;
  for (int steps = 0; steps < 50 && log_density(lower) > level; ++steps) lower -= width;
  for (int steps = 0; steps < 50 && log_density(upper) > level; ++steps) upper += width;
  while (upper - lower > 1e-12 * (1.0 + std::abs(v0))) {
    const double v = lower + (upper - lower) * uniform01(rng);
    if (log_density(v) >= level) return std::exp(v);
    if (v < v0) lower = v;
    else upper = v;
  }
  return u;  // the interval shrank onto the current point
}

Eigen::VectorXd gibbs_precisions(const PriorGroups& groups, const Eigen::VectorXd& theta, Rng& rng) {
  const Eigen::Index G = groups.shape.size();
  Eigen::VectorXd count = Eigen::VectorXd::Zero(G), sum_squares = Eigen::VectorXd::Zero(G);
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    const int g = groups.group[static_cast<std::size_t>(i)];
    count[g] += 1.0;
    sum_squares[g] += groups.multiplier[i] * theta[i] * theta[i];
  }
  Eigen::VectorXd precision(G);
  for (Eigen::Index g = 0; g < G; ++g)  // Gamma(a + m/2, b + sum c w^2 / 2)
    precision[g] = gamma_draw(rng, groups.shape[g] + 0.5 * count[g]) / (groups.rate[g] + 0.5 * sum_squares[g]);
  return precision;
}

namespace {

constexpr const char* kName = "nn-mc";

// The per-parameter prior precisions of the current group precisions.
Eigen::VectorXd prior_precisions(const PriorGroups& groups, const Eigen::VectorXd& precision) {
  Eigen::VectorXd p(groups.multiplier.size());
  for (Eigen::Index i = 0; i < p.size(); ++i) p[i] = groups.multiplier[i] * precision[groups.group[static_cast<std::size_t>(i)]];
  return p;
}

}  // namespace

Eigen::VectorXd neal_curvature(const MlpShape& shape, const PriorGroups& groups, const Eigen::VectorXd& precision,
                               double noise_precision, const Eigen::VectorXd& input_sum_squares, double n) {
  const Eigen::VectorXd prior = prior_precisions(groups, precision);
  Eigen::VectorXd curvature = prior;
  const std::size_t L = shape.hidden.size();
  // sensitivity of f to the outputs of layer l's units, in expectation over the prior of
  // the weights above: 1 at the output, units x mean weight variance x sensitivity below it.
  double sensitivity = 1.0;
  for (std::size_t l = L + 1; l-- > 0;) {
    const Eigen::Index units = shape.layer_units(l), inputs = shape.layer_inputs(l);
    const Eigen::Index w0 = shape.weight_offset(l), b0 = shape.bias_offset(l);
    for (Eigen::Index k = 0; k < units; ++k) {
      for (Eigen::Index j = 0; j < inputs; ++j) {
        const double input_ss = l == 0 ? input_sum_squares[j] : n;  // |g| <= 1 for tanh and erf
        curvature[w0 + k * inputs + j] += noise_precision * sensitivity * input_ss;
      }
      curvature[b0 + k] += noise_precision * sensitivity * n;
    }
    double mean_variance = 0.0;
    for (Eigen::Index i = w0; i < b0; ++i) mean_variance += 1.0 / prior[i];
    mean_variance /= static_cast<double>(b0 - w0);
    sensitivity *= static_cast<double>(units) * mean_variance;
  }
  return curvature;
}

namespace {

double gaussian_log_likelihood(double squared_error_half, double noise_variance, double n) {
  return -0.5 * n * std::log(2.0 * std::numbers::pi * noise_variance) - squared_error_half / noise_variance;
}

Chains per_chain(const std::vector<ChainResult>& chains, const std::function<double(const ChainResult&, std::size_t)>& value) {
  Chains out;
  for (const auto& c : chains) {
    std::vector<double> v;
    for (std::size_t s = 0; s < c.draws.size(); ++s) v.push_back(value(c, s));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

namespace {

// One copy of a chain's state targeting p(y | theta, tau)^beta p(theta | precisions) p(...):
// weights, precisions, noise precision, and its own step size and metric. beta = 1 is the
// posterior; parallel tempering runs copies at beta < 1 beside it and swaps their states.
class Replica {
 public:
  Replica(const MlpShape& shape, const PriorGroups& prior_groups, const RegressionData& train, const Options& o,
          double beta, std::uint64_t seed)
      : groups(prior_groups), rng(seed), shape_(shape), train_(train), o_(o), beta_(beta) {
    P_ = shape.parameter_count();
    n_ = static_cast<double>(train.y.size());
    precision = (groups.shape.array() / groups.rate.array()).matrix();  // prior means
    noise_precision = 1.0 / (o.noise_prior_scale * o.noise_prior_scale);
    noise_rate_ = o.noise_prior_shape * o.noise_prior_scale * o.noise_prior_scale;
    prior_precision_ = prior_precisions(groups, precision);
    noise_shape_post_ = o.noise_prior_shape + 0.5 * beta * n_;
    group_shape_post_ = groups.shape;
    for (std::size_t i = 0; i < groups.group.size(); ++i) group_shape_post_[groups.group[i]] += 0.5;
    group_sum_.resize(groups.shape.size());
    group_weight_.resize(groups.shape.size());
    error_gradient_.resize(P_);
    input_sum_squares_ = train.X.colwise().squaredNorm().transpose();
  }

  // U(theta) = beta tau E(theta) + 1/2 sum_i p_i theta_i^2, E the half sum of squared errors.
  // With the precisions integrated out against their Gamma(a, b) priors the data term becomes
  // (a + beta n/2) log(b + beta E) and each group's prior term (a_g + m_g/2) log(b_g + S_g/2),
  // S_g the group's sum of multiplier x weight^2.
  double combine(double E, const Eigen::VectorXd& q, Eigen::VectorXd& gradient) {
    if (!integrated_) {
      gradient = (beta_ * noise_precision) * error_gradient_ + prior_precision_.cwiseProduct(q);
      return beta_ * noise_precision * E + 0.5 * q.dot(prior_precision_.cwiseProduct(q));
    }
    group_sum_.setZero();
    for (Eigen::Index i = 0; i < P_; ++i)
      group_sum_[groups.group[static_cast<std::size_t>(i)]] += groups.multiplier[i] * q[i] * q[i];
    double value = noise_shape_post_ * std::log(noise_rate_ + beta_ * E);
    for (Eigen::Index g = 0; g < group_sum_.size(); ++g) {
      const double denominator = groups.rate[g] + 0.5 * group_sum_[g];
      value += group_shape_post_[g] * std::log(denominator);
      group_weight_[g] = group_shape_post_[g] / denominator;  // the conditional mean precision
    }
    gradient = (noise_shape_post_ * beta_ / (noise_rate_ + beta_ * E)) * error_gradient_;
    for (Eigen::Index i = 0; i < P_; ++i)
      gradient[i] += group_weight_[groups.group[static_cast<std::size_t>(i)]] * groups.multiplier[i] * q[i];
    return value;
  }
  double evaluate(const Eigen::VectorXd& q, Eigen::VectorXd& gradient) {
    last_error = mlp_squared_error(shape_, q, train_.X, train_.y, ws_, &error_gradient_);
    return combine(last_error, q, gradient);
  }
  Potential potential() {
    return [this](const Eigen::VectorXd& q, Eigen::VectorXd& gradient) { return evaluate(q, gradient); };
  }

  // Random start, then (optionally) L-BFGS towards the mode of the weights' marginal posterior
  // (all precisions integrated out): a start inside the typical set shortens warm-up.
  bool start(ChainResult& out) {
    state.q.resize(P_);
    for (Eigen::Index i = 0; i < P_; ++i) state.q[i] = o_.initial_sd * standard_normal(rng);
    state.p = Eigen::VectorXd::Zero(P_);
    const Potential u = potential();
    if (o_.initial_optimization > 0) {
      integrated_ = true;
      LBFGSpp::LBFGSParam<double> param;
      param.max_iterations = o_.initial_optimization;
      param.epsilon = 1e-6;
      const BestPoint best = minimize_keeping_best(u, state.q, param);
      state.q = best.x;
      // Precisions start at their conditional means given these weights.
      Eigen::VectorXd unused(P_);
      u(state.q, unused);  // fills group_weight_ and the squared error
      out.initial_rmse = std::sqrt(2.0 * last_error / n_);
      out.initial_evaluations = best.evaluations;
      if (o_.update_hyperparameters) {
        precision = group_weight_;
        noise_precision = noise_shape_post_ / (noise_rate_ + beta_ * last_error);
        prior_precision_ = prior_precisions(groups, precision);
      }
      integrated_ = false;
    }
    state.potential = u(state.q, state.gradient);
    if (!std::isfinite(state.potential)) return false;
    metric_noise_precision_ = noise_precision;
    metric_precision_ = precision;
    inverse_metric = neal() ? neal_inverse_metric() : Eigen::VectorXd::Ones(P_);
    adapter_ = StepSizeAdapter(o_.target_accept);
    step = find_initial_step(u, inverse_metric, state, 0.1, rng);
    adapter_.restart(step);
    return true;
  }

  // One HMC trajectory (with warm-up adaptation) and the Gibbs draws of the precisions.
  // Returns false when the log posterior is no longer finite.
  bool iterate(long it, const WarmupSchedule& schedule, TransitionInfo& info) {
    const bool warming = it < o_.warmup;
    const Potential u = potential();
    info = hmc_transition(u, inverse_metric, step, o_.leapfrog_steps, o_.step_jitter, state, rng);
    if (warming) {
      step = adapter_.update(info.accept_probability);
      if (!neal() && schedule.collecting(it)) {
        window_.add(state.q);
        if (schedule.window_end(it)) {
          inverse_metric = window_.regularized_variance();
          window_.clear();
          step = find_initial_step(u, inverse_metric, state, step, rng);
          adapter_.restart(step);
        }
      }
      if (it + 1 == o_.warmup) step = adapter_.final_step();
    }
    // Gibbs step for the precisions given the weights (E at the current weights).
    squared_error = mlp_squared_error(shape_, state.q, train_.X, train_.y, ws_, &error_gradient_);
    if (o_.update_hyperparameters && it >= o_.hyper_delay) {
      precision = gibbs_precisions(groups, state.q, rng);
      if (!groups.linked.empty())
        groups.set_common_variance(draw_common_variance(groups, precision, groups.common_variance, rng));
      prior_precision_ = prior_precisions(groups, precision);
      noise_precision = gamma_draw(rng, noise_shape_post_) / (noise_rate_ + beta_ * squared_error);
      integrated_ = o_.hyperparameters == "integrated";
      // With the precisions integrated out, the metric's precisions are frozen after warm-up
      // (they must not depend on the weights of the current trajectory).
      if (warming || !integrated_) {
        metric_noise_precision_ = noise_precision;
        metric_precision_ = precision;
        if (neal()) inverse_metric = neal_inverse_metric();
      }
    }
    return refresh();
  }

  // Potential and gradient at the current state (after a Gibbs step or a swap).
  bool refresh() {
    state.potential = combine(squared_error, state.q, state.gradient);
    return std::isfinite(state.potential) && state.gradient.allFinite();
  }

  double beta() const { return beta_; }
  double log_likelihood() const { return -0.5 * n_ * std::log(2.0 * std::numbers::pi / noise_precision) - noise_precision * squared_error; }

  // The state a swap exchanges: weights, precisions, noise precision, the common variance.
  void swap_state(Replica& other) {
    std::swap(state.q, other.state.q);
    std::swap(precision, other.precision);
    std::swap(noise_precision, other.noise_precision);
    std::swap(squared_error, other.squared_error);
    std::swap(error_gradient_, other.error_gradient_);
    const double u = groups.common_variance;
    if (!groups.linked.empty()) {
      groups.set_common_variance(other.groups.common_variance);
      other.groups.set_common_variance(u);
    }
    prior_precision_ = prior_precisions(groups, precision);
    other.prior_precision_ = prior_precisions(other.groups, other.precision);
  }

  PhasePoint state;
  PriorGroups groups;  // the linked rates follow this replica's common variance
  Eigen::VectorXd precision, inverse_metric;
  double noise_precision = 0.0, step = 0.0, last_error = 0.0, squared_error = 0.0;
  Rng rng;

 private:
  bool neal() const { return o_.metric == "neal"; }
  Eigen::VectorXd neal_inverse_metric() const {
    return neal_curvature(shape_, groups, metric_precision_, beta_ * metric_noise_precision_, input_sum_squares_, n_)
        .cwiseInverse();
  }
  const MlpShape& shape_;
  const RegressionData& train_;
  const Options& o_;
  double beta_;
  Eigen::Index P_ = 0;
  double n_ = 0.0, noise_rate_ = 0.0, noise_shape_post_ = 0.0;
  Eigen::VectorXd prior_precision_, group_shape_post_, group_sum_, group_weight_, error_gradient_, input_sum_squares_;
  Eigen::VectorXd metric_precision_;
  double metric_noise_precision_ = 0.0;
  bool integrated_ = false;
  MlpWorkspace ws_;
  StepSizeAdapter adapter_;
  VarianceWindow window_;
};

}  // namespace

ChainResult run_chain(const MlpShape& shape, const PriorGroups& prior_groups, const RegressionData& train,
                      const Options& o, const Eigen::MatrixXd& diagnostic_inputs, std::uint64_t seed) {
  ChainResult out;
  const double n = static_cast<double>(train.y.size());
  // Replica 0 is the posterior (beta = 1, the chain's own random stream); with tempering the
  // others sit at betas falling geometrically to tempering_min_beta, each with its own stream.
  const int R = o.tempering_replicas;
  std::vector<std::unique_ptr<Replica>> replicas;
  for (int r = 0; r < R; ++r) {
    const double beta = r == 0 ? 1.0 : std::pow(o.tempering_min_beta, static_cast<double>(r) / (R - 1));
    replicas.push_back(std::make_unique<Replica>(shape, prior_groups, train, o, beta,
                                                 r == 0 ? seed : derive_seed(seed, static_cast<std::uint64_t>(r))));
  }
  for (int r = 0; r < R; ++r) {
    ChainResult start_report;
    if (!replicas[r]->start(r == 0 ? out : start_report)) {
      out.error = "non-finite log posterior at the initial weights";
      return out;
    }
  }
  Rng swap_rng(derive_seed(seed, "tempering swaps"));
  long swaps_proposed = 0, swaps_accepted = 0;
  const WarmupSchedule schedule(o.warmup);
  Replica& posterior = *replicas.front();

  const long per_chain = (o.samples + o.chains - 1) / o.chains;
  const long kept = per_chain / o.thin;
  double accept_sum = 0.0, common_variance_sum = 0.0;
  Eigen::VectorXd precision_sum = Eigen::VectorXd::Zero(posterior.precision.size());
  long precision_count = 0;
  MlpWorkspace ws;
  Eigen::VectorXd outputs;
  for (long it = 0; it < o.warmup + kept * o.thin; ++it) {
    const bool warming = it < o.warmup;
    for (int r = 0; r < R; ++r) {
      TransitionInfo info;
      if (!replicas[r]->iterate(it, schedule, info)) {
        out.error = "non-finite log posterior at iteration " + std::to_string(it) +
                    (r == 0 ? std::string() : " (tempered replica " + std::to_string(r) + ")");
        return out;
      }
      if (r > 0) continue;
      if (warming) {
        out.divergent_warmup += info.divergent;
      } else {
        out.divergent += info.divergent;
        accept_sum += info.accept_probability;
      }
    }
    // Swaps between neighbouring temperatures, even pairs on even iterations and odd pairs on
    // odd ones: accepted with probability min(1, (L_b / L_a)^(beta_a - beta_b)).
    for (int r = static_cast<int>(it % 2); r + 1 < R; r += 2) {
      Replica& a = *replicas[r];
      Replica& b = *replicas[r + 1];
      ++swaps_proposed;
      const double log_ratio = (a.beta() - b.beta()) * (b.log_likelihood() - a.log_likelihood());
      if (std::log(uniform01(swap_rng)) >= log_ratio) continue;
      ++swaps_accepted;
      a.swap_state(b);
      if (!a.refresh() || !b.refresh()) {
        out.error = "non-finite log posterior after a tempering swap at iteration " + std::to_string(it);
        return out;
      }
    }
    if (!warming) {
      precision_sum += posterior.precision;
      common_variance_sum += posterior.groups.common_variance;
      ++precision_count;
      if ((it - o.warmup) % o.thin == o.thin - 1) {
        const double noise_variance = 1.0 / posterior.noise_precision;
        out.draws.push_back({posterior.state.q, noise_variance});
        out.log_likelihood.push_back(gaussian_log_likelihood(posterior.squared_error, noise_variance, n));
        mlp_outputs(shape, posterior.state.q, diagnostic_inputs, ws, outputs);
        out.diagnostic.push_back(outputs);
      }
    }
  }
  out.step = posterior.step;
  out.accept_rate = accept_sum / static_cast<double>(std::max<long>(1, kept * o.thin));
  out.mean_precisions = precision_sum / static_cast<double>(std::max<long>(1, precision_count));
  out.mean_common_variance = common_variance_sum / static_cast<double>(std::max<long>(1, precision_count));
  out.swap_rate = swaps_proposed > 0 ? static_cast<double>(swaps_accepted) / static_cast<double>(swaps_proposed) : 0.0;
  return out;
}

Model fit(const RegressionData& train, const Options& options, Rng& rng) {
  options.validate();
  check_training_data(train, kName);
  MlpShape shape{train.X.cols(), options.hidden_layers, parse_activation(options.activation)};
  const PriorGroups groups = make_prior_groups(shape, options);

  // Diagnostic points: evenly spaced training rows.
  const Eigen::Index n = train.X.rows();
  const Eigen::Index m = std::min<Eigen::Index>(n, options.diagnostic_points);
  Eigen::MatrixXd diagnostic_inputs(m, train.X.cols());
  for (Eigen::Index i = 0; i < m; ++i) diagnostic_inputs.row(i) = train.X.row(i * n / m);

  const std::uint64_t base_seed = rng();
  std::vector<ChainResult> chains(static_cast<std::size_t>(options.chains));
  // Chains run as parallel pieces (threads of the harness with no job left take them up);
  // each has its own seed and slot, so the result does not depend on it.
  const PiecesReport pieces = run_pieces(options.chains, [&](int c) {
    try {
      chains[static_cast<std::size_t>(c)] =
          run_chain(shape, groups, train, options, diagnostic_inputs, derive_seed(base_seed, static_cast<std::uint64_t>(c)));
    } catch (const std::exception& e) {
      chains[static_cast<std::size_t>(c)].error = e.what();
    }
  });

  FitReport report;
  report.cpu_seconds_elsewhere = pieces.cpu_seconds_elsewhere;
  report.iterations = options.warmup + (options.samples + options.chains - 1) / options.chains;
  std::vector<std::vector<Draw>> draws;
  std::vector<ChainResult> good;
  for (std::size_t c = 0; c < chains.size(); ++c) {
    if (!chains[c].error.empty()) {
      report.warnings.push_back("chain " + std::to_string(c + 1) + " failed: " + chains[c].error);
      continue;
    }
    draws.push_back(chains[c].draws);
    good.push_back(std::move(chains[c]));
  }
  if (good.empty()) {
    report.status = FitStatus::numerical_error;
    report.message = "every chain failed";
    return Model(shape, {}, report);
  }
  double accept = 0.0, step = 0.0, initial_rmse = 0.0, initial_evaluations = 0.0;
  long divergent = 0, divergent_warmup = 0;
  Eigen::VectorXd precisions = Eigen::VectorXd::Zero(groups.shape.size());
  double common_variance = 0.0;
  for (const auto& c : good) {
    common_variance += c.mean_common_variance / static_cast<double>(good.size());
    accept += c.accept_rate / static_cast<double>(good.size());
    step += c.step / static_cast<double>(good.size());
    divergent += c.divergent;
    divergent_warmup += c.divergent_warmup;
    precisions += c.mean_precisions / static_cast<double>(good.size());
    initial_rmse += c.initial_rmse / static_cast<double>(good.size());
    initial_evaluations += static_cast<double>(c.initial_evaluations) / static_cast<double>(good.size());
  }
  const Chains loglik = per_chain(good, [](const ChainResult& c, std::size_t s) { return c.log_likelihood[s]; });
  const Chains noise = per_chain(good, [](const ChainResult& c, std::size_t s) { return c.draws[s].noise_variance; });
  double rhat_pred = 0.0, ess_pred = std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < m; ++i) {
    const Chains f = per_chain(good, [i](const ChainResult& c, std::size_t s) { return c.diagnostic[s][i]; });
    rhat_pred = std::max(rhat_pred, split_rhat(f));
    ess_pred = std::min(ess_pred, ess_bulk(f));
  }
  auto& d = report.diagnostics;
  d.emplace_back("accept_rate", accept);
  d.emplace_back("step_size", step);
  d.emplace_back("divergent", static_cast<double>(divergent));
  d.emplace_back("divergent_warmup", static_cast<double>(divergent_warmup));
  d.emplace_back("draws", static_cast<double>(good.size() * good.front().draws.size()));
  if (options.initial_optimization > 0) {
    d.emplace_back("initial_train_rmse", initial_rmse);  // normalized scale, mean over chains
    d.emplace_back("initial_evaluations", initial_evaluations);
  }
  const double rhat_loglik = split_rhat(loglik);
  d.emplace_back("rhat_loglik", rhat_loglik);
  d.emplace_back("ess_loglik", ess_bulk(loglik));
  d.emplace_back("rhat_noise", split_rhat(noise));
  d.emplace_back("rhat_train_pred_max", rhat_pred);
  d.emplace_back("ess_train_pred_min", ess_pred);
  for (Eigen::Index g = 0; g < precisions.size(); ++g)
  {
    std::string name = "sd." + groups.names[static_cast<std::size_t>(g)];  // posterior mean precision as an sd
    std::replace(name.begin(), name.end(), ' ', '_');
    d.emplace_back(name, 1.0 / std::sqrt(precisions[g]));
  }
  if (!groups.linked.empty()) d.emplace_back("sd.inputs_common", std::sqrt(common_variance));  // posterior mean u as an sd
  if (options.tempering_replicas > 1) {
    double swap_rate = 0.0;
    for (const auto& c : good) swap_rate += c.swap_rate / static_cast<double>(good.size());
    d.emplace_back("swap_rate", swap_rate);
  }
  if (divergent > 0) report.warnings.push_back(std::to_string(divergent) + " divergent trajectories after warm-up");
  if (rhat_loglik > 1.1) report.warnings.push_back("R-hat of the training log-likelihood is above 1.1");
  if (rhat_pred > 1.1) report.warnings.push_back("R-hat of predictions at training points is above 1.1");
  return Model(shape, std::move(draws), report);
}

std::size_t Model::draw_count() const {
  std::size_t count = 0;
  for (const auto& c : chains_) count += c.size();
  return count;
}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  const std::size_t S = draw_count();
  if (S == 0) throw std::runtime_error("nn-mc: the fit produced no draws (" + report_.message + ")");
  Eigen::MatrixXd means(X.rows(), static_cast<Eigen::Index>(S)), variances(X.rows(), static_cast<Eigen::Index>(S));
  MlpWorkspace ws;
  Eigen::VectorXd outputs;
  Eigen::Index s = 0;
  for (const auto& chain : chains_)
    for (const auto& draw : chain) {
      mlp_outputs(shape_, draw.theta, X, ws, outputs);
      means.col(s) = outputs;
      variances.col(s).setConstant(draw.noise_variance);
      ++s;
    }
  // Convergence of the predictions at these points (up to 1000, evenly spaced).
  if (chains_.size() > 1 && X.rows() > 0) {
    const Eigen::Index m = std::min<Eigen::Index>(X.rows(), 1000);
    const Eigen::Index per = static_cast<Eigen::Index>(chains_.front().size());
    double ess = std::numeric_limits<double>::infinity();
    std::vector<double> rhats;
    for (Eigen::Index k = 0; k < m; ++k) {
      const Eigen::Index i = k * X.rows() / m;
      Chains f(chains_.size());
      for (std::size_t c = 0; c < chains_.size(); ++c)
        for (Eigen::Index t = 0; t < per; ++t) f[c].push_back(means(i, static_cast<Eigen::Index>(c) * per + t));
      rhats.push_back(split_rhat(f));
      ess = std::min(ess, ess_bulk(f));
    }
    std::sort(rhats.begin(), rhats.end());
    const double rhat = rhats.back();
    auto& d = report_.diagnostics;
    std::erase_if(d, [](const auto& kv) { return kv.first.starts_with("rhat_pred_") || kv.first == "ess_pred_min"; });
    d.emplace_back("rhat_pred_max", rhat);
    d.emplace_back("rhat_pred_median", rhats[rhats.size() / 2]);
    d.emplace_back("rhat_pred_above_1.1", static_cast<double>(std::count_if(rhats.begin(), rhats.end(), [](double r) { return r > 1.1; })) /
                                              static_cast<double>(rhats.size()));
    d.emplace_back("ess_pred_min", ess);
    if (rhat > 1.1 && std::find(report_.warnings.begin(), report_.warnings.end(), std::string("R-hat of predictions is above 1.1")) == report_.warnings.end())
      report_.warnings.push_back("R-hat of predictions is above 1.1");
  }
  return std::make_unique<GaussianMixturePredictive>(std::move(means), std::move(variances));
}

}  // namespace bnn::hmc
