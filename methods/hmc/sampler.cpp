#include "sampler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace bnn::hmc {
namespace {
constexpr double kDivergence = 1000.0;  // energy error that marks a divergent trajectory
}

double kinetic_energy(const Eigen::VectorXd& p, const Eigen::VectorXd& inverse_metric) {
  return 0.5 * p.cwiseProduct(inverse_metric).dot(p);
}

bool leapfrog(const Potential& potential, const Eigen::VectorXd& inverse_metric, double step, int steps,
              PhasePoint& s) {
  for (int i = 0; i < steps; ++i) {
    s.p.noalias() -= 0.5 * step * s.gradient;
    s.q.noalias() += step * inverse_metric.cwiseProduct(s.p);
    s.potential = potential(s.q, s.gradient);
    if (!std::isfinite(s.potential) || !s.gradient.allFinite()) return false;
    s.p.noalias() -= 0.5 * step * s.gradient;
  }
  return true;
}

TransitionInfo hmc_transition(const Potential& potential, const Eigen::VectorXd& inverse_metric, double step, int steps,
                              double jitter, PhasePoint& current, Rng& rng) {
  TransitionInfo info;
  PhasePoint proposal = current;
  proposal.p.resize(current.q.size());  // fresh momenta: the caller's p need not be sized
  for (Eigen::Index i = 0; i < proposal.p.size(); ++i)
    proposal.p[i] = standard_normal(rng) / std::sqrt(inverse_metric[i]);
  const double h0 = current.potential + kinetic_energy(proposal.p, inverse_metric);
  const double this_step = step * (1.0 + jitter * (2.0 * uniform01(rng) - 1.0));
  const bool finite = leapfrog(potential, inverse_metric, this_step, steps, proposal);
  const double h1 = finite ? proposal.potential + kinetic_energy(proposal.p, inverse_metric)
                           : std::numeric_limits<double>::infinity();
  const double delta = h1 - h0;
  info.divergent = !std::isfinite(delta) || delta > kDivergence;
  info.accept_probability = std::isfinite(delta) ? std::min(1.0, std::exp(-delta)) : 0.0;
  if (!info.divergent && uniform01(rng) < info.accept_probability) {
    info.accepted = true;
    current.q = std::move(proposal.q);
    current.gradient = std::move(proposal.gradient);
    current.potential = proposal.potential;
  }
  return info;
}

double find_initial_step(const Potential& potential, const Eigen::VectorXd& inverse_metric, const PhasePoint& current,
                         double step, Rng& rng) {
  const auto accept = [&](double eps) {
    PhasePoint trial = current;
    trial.p.resize(current.q.size());
    for (Eigen::Index i = 0; i < trial.p.size(); ++i) trial.p[i] = standard_normal(rng) / std::sqrt(inverse_metric[i]);
    const double h0 = trial.potential + kinetic_energy(trial.p, inverse_metric);
    if (!leapfrog(potential, inverse_metric, eps, 1, trial)) return 0.0;
    const double delta = trial.potential + kinetic_energy(trial.p, inverse_metric) - h0;
    return std::isfinite(delta) ? std::min(1.0, std::exp(-delta)) : 0.0;
  };
  const double direction = accept(step) > 0.5 ? 1.0 : -1.0;
  for (int i = 0; i < 20; ++i) {  // at most a factor 2^20 either way
    const double next = step * std::pow(2.0, direction);
    const double a = accept(next);
    if ((direction > 0 && a <= 0.5) || (direction < 0 && a > 0.5)) return direction > 0 ? step : next;
    step = next;
  }
  return step;
}

void StepSizeAdapter::restart(double step) {
  mu_ = std::log(10.0 * step);
  log_step_ = std::log(step);
  log_step_bar_ = 0.0;
  h_bar_ = 0.0;
  t_ = 0;
}

double StepSizeAdapter::update(double accept_probability) {
  // Hoffman & Gelman (2014), eq. (6), with gamma = 0.05, t0 = 10, kappa = 0.75.
  constexpr double gamma = 0.05, t0 = 10.0, kappa = 0.75;
  ++t_;
  const double t = static_cast<double>(t_);
  const double w = 1.0 / (t + t0);
  h_bar_ = (1.0 - w) * h_bar_ + w * (target_ - accept_probability);
  log_step_ = mu_ - std::sqrt(t) / gamma * h_bar_;
  const double eta = std::pow(t, -kappa);
  log_step_bar_ = eta * log_step_ + (1.0 - eta) * log_step_bar_;
  return std::exp(log_step_);
}

double StepSizeAdapter::final_step() const { return std::exp(t_ > 0 ? log_step_bar_ : log_step_); }

WarmupSchedule::WarmupSchedule(long warmup) {
  // Stan's proportions for 1000 iterations: buffer 75, first window 25, terminal buffer 50.
  init_buffer_ = static_cast<long>(0.075 * static_cast<double>(warmup));
  const long term_buffer = static_cast<long>(0.05 * static_cast<double>(warmup));
  term_start_ = warmup - term_buffer;
  long window = std::max<long>(5, static_cast<long>(0.025 * static_cast<double>(warmup)));
  long start = init_buffer_;
  while (start < term_start_) {
    long end = start + window;
    if (end + 2 * window > term_start_) end = term_start_;
    ends_.push_back(end);
    start = end;
    window *= 2;
  }
}

bool WarmupSchedule::collecting(long iteration) const { return iteration >= init_buffer_ && iteration < term_start_; }

bool WarmupSchedule::window_end(long iteration) const {
  return std::find(ends_.begin(), ends_.end(), iteration + 1) != ends_.end();
}

void VarianceWindow::add(const Eigen::VectorXd& q) {
  if (n_ == 0) {
    mean_ = Eigen::VectorXd::Zero(q.size());
    m2_ = Eigen::VectorXd::Zero(q.size());
  }
  ++n_;
  const Eigen::VectorXd delta = q - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta.cwiseProduct(q - mean_);
}

Eigen::VectorXd VarianceWindow::regularized_variance() const {
  const double n = static_cast<double>(n_);
  const Eigen::VectorXd variance = m2_ / std::max(1.0, n - 1.0);
  return (n / (n + 5.0)) * variance.array() + 1e-3 * (5.0 / (n + 5.0));
}

}  // namespace bnn::hmc
