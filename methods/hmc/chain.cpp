// One NN-MC chain (run_chain): HMC trajectories for the weights alternating with Gibbs draws of
// the precisions, optionally with parallel tempering of the likelihood.
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "hmc.hpp"
#include "methods/core/minimize.hpp"
#include "sampler.hpp"

namespace bnn::hmc {

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
      const Minimum best = Lbfgs(param).minimize(u, state.q);
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
      integrated_ = o_.hyperparameters == HyperparameterUpdate::integrated;
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
  double log_likelihood() const {
    return -0.5 * n_ * std::log(2.0 * std::numbers::pi / noise_precision) - noise_precision * squared_error;
  }

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
  bool neal() const { return o_.metric == Metric::neal; }
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

}  // namespace bnn::hmc
