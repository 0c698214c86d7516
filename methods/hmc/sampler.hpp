#pragma once
// Hamiltonian Monte Carlo on a differentiable potential U(q) = -log p(q) + const, with a
// diagonal metric: momenta p ~ N(0, M), M = diag(1 / inverse_metric). Warm-up adapts the
// step size by dual averaging (Hoffman & Gelman 2014, section 3.2) towards a target
// acceptance probability and the metric from the variances of the draws in doubling windows
// (as Stan does); both are frozen after warm-up, so the kept draws come from a valid chain.
#include <Eigen/Core>
#include <functional>
#include <vector>

#include "methods/core/rng.hpp"

namespace bnn::hmc {

// Returns U(q) and writes dU/dq into `gradient`.
using Potential = std::function<double(const Eigen::VectorXd& q, Eigen::VectorXd& gradient)>;

struct PhasePoint {
  Eigen::VectorXd q, p, gradient;
  double potential = 0.0;
};

// `steps` leapfrog steps of size `step` from `state` (q, p, gradient, potential), in place.
// Returns false as soon as the potential or the gradient is not finite.
bool leapfrog(const Potential& potential, const Eigen::VectorXd& inverse_metric, double step, int steps,
              PhasePoint& state);

double kinetic_energy(const Eigen::VectorXd& p, const Eigen::VectorXd& inverse_metric);

struct TransitionInfo {
  double accept_probability = 0.0;
  bool accepted = false;
  bool divergent = false;  // energy error above the divergence threshold, or non-finite
};

// One HMC transition from `current` (whose potential and gradient must be up to date).
// The step is jittered uniformly by +-`jitter` (a fraction) to avoid periodic trajectories.
TransitionInfo hmc_transition(const Potential& potential, const Eigen::VectorXd& inverse_metric, double step, int steps,
                              double jitter, PhasePoint& current, Rng& rng);

// Hoffman & Gelman (2014), Algorithm 4: doubles or halves `step` until the acceptance
// probability of one leapfrog step from `current` crosses 1/2.
double find_initial_step(const Potential& potential, const Eigen::VectorXd& inverse_metric, const PhasePoint& current,
                         double step, Rng& rng);

// Dual averaging of log(step) towards the target acceptance probability.
class StepSizeAdapter {
 public:
  explicit StepSizeAdapter(double target_accept = 0.8) : target_(target_accept) {}
  void restart(double step);
  double update(double accept_probability);  // returns the next step to try
  double final_step() const;                 // the averaged step, used after warm-up

 private:
  double target_, mu_ = 0.0, log_step_ = 0.0, log_step_bar_ = 0.0, h_bar_ = 0.0;
  long t_ = 0;
};

// Warm-up schedule: an initial buffer (step size only), metric windows that double in
// length, a terminal buffer (step size only). Iterations are counted from 0.
class WarmupSchedule {
 public:
  explicit WarmupSchedule(long warmup);
  bool collecting(long iteration) const;  // draw enters the current metric window
  bool window_end(long iteration) const;  // update the metric after this iteration

 private:
  long init_buffer_ = 0, term_start_ = 0;
  std::vector<long> ends_;
};

// Streaming mean and variance (Welford) of the draws in one metric window.
class VarianceWindow {
 public:
  void add(const Eigen::VectorXd& q);
  // Regularized towards 1e-3 as Stan does: (n / (n + 5)) var + 1e-3 * 5 / (n + 5).
  Eigen::VectorXd regularized_variance() const;
  void clear() { n_ = 0; }
  long count() const { return n_; }

 private:
  long n_ = 0;
  Eigen::VectorXd mean_, m2_;
};

}  // namespace bnn::hmc
