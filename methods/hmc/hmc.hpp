#pragma once
// NN-MC: Neal's (1996) Bayesian multilayer perceptron sampled by Hamiltonian Monte Carlo,
// the reference method of both the EP-NN and the PBP papers. Gaussian priors on the weights
// whose precisions have Gamma hyperpriors (one per input for the input weights under ARD,
// one per layer for hidden biases and further weights, one for the output weights with
// variance scaled by 1/units, one for the output bias) and a Gamma prior on the noise
// precision. Each iteration is one HMC trajectory for all weights with the precisions
// fixed, then a Gibbs draw of every precision from its Gamma conditional (as in Neal's
// software and MCMCstuff) -- or, by default, the trajectory targets the weights with all
// precisions integrated out (Gamma-Gaussian gives Student-t forms) and the precisions are
// then drawn from their conditionals: the same posterior, but the alternation of precisions
// and weights mixes slowly (see the issue notes for measurements on housing). Several chains from dispersed starts;
// predictions are the Gaussian mixture over the kept draws, so the log predictive density is a log-mean-exp.
//
// A Gamma(shape a, rate b) prior on a precision is given by its shape and a "scale" s, the
// prior's typical standard deviation of the weights: b = a s^2, so E[precision] = 1 / s^2.
// Registered as nn-mc (tanh, ARD: the EP-NN paper's NN-MC) and hmc (ReLU: the PBP paper's HMC)
// by registration.cpp: one sampler, two sets of defaults.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "methods/core/mlp.hpp"
#include "methods/core/model.hpp"
#include "methods/core/rng.hpp"

namespace bnn::hmc {

enum class PriorKind { ard, ard2, layer, shared };
constexpr std::array<ChoiceName<PriorKind>, 4> choice_names(PriorKind) {
  return {
      {{PriorKind::ard, "ard"}, {PriorKind::ard2, "ard2"}, {PriorKind::layer, "layer"}, {PriorKind::shared, "shared"}}};
}
enum class HyperparameterUpdate { gibbs, integrated };
constexpr std::array<ChoiceName<HyperparameterUpdate>, 2> choice_names(HyperparameterUpdate) {
  return {{{HyperparameterUpdate::gibbs, "gibbs"}, {HyperparameterUpdate::integrated, "integrated"}}};
}
enum class Metric { neal, adapted };
constexpr std::array<ChoiceName<Metric>, 2> choice_names(Metric) {
  return {{{Metric::neal, "neal"}, {Metric::adapted, "adapted"}}};
}

struct Options {
  std::vector<int> hidden_layers = {10};
  Choice<Activation> activation = Activation::tanh;
  Choice<PriorKind> prior = PriorKind::ard;  // see PriorGroups
  double weight_prior_shape = 0.5;
  double input_individual_shape = 0.5;  // ard2: shape of each input's precision about the common one
  double input_prior_scale = 1.0;
  double weight_prior_scale = 1.0;
  double bias_prior_scale = 1.0;
  double output_prior_scale = 1.0;
  double noise_prior_shape = 0.5;
  double noise_prior_scale = 0.5;
  bool update_hyperparameters = true;
  Choice<HyperparameterUpdate> hyperparameters = HyperparameterUpdate::integrated;
  int chains = 4;
  int warmup = 1000;
  int samples = 2000;
  int thin = 4;
  Choice<Metric> metric = Metric::neal;
  int leapfrog_steps = 50;
  double target_accept = 0.8;
  double step_jitter = 0.1;
  int hyper_delay = 100;
  double initial_sd = 0.1;
  int initial_optimization = 200;
  int diagnostic_points = 100;
  int tempering_replicas = 1;
  double tempering_min_beta = 0.3;

  template <class Visitor>
  void visit(Visitor&& v) {
    v("hidden_layers", hidden_layers, "units per hidden layer, e.g. 10 or 50,50");
    v("activation", activation, "hidden-unit nonlinearity: tanh, relu or erf (erf(a/sqrt2))");
    v("prior", prior,
      "precision groups: ard (one per input, Neal), ard2 (one per input, about a common precision that is "
      "sampled too: Neal's two-level ARD), layer (one per layer's weights and biases), shared (one for all, "
      "variances scaled by 1/(inputs+1) as in PBP)");
    v("weight_prior_shape", weight_prior_shape, "Gamma shape of every weight-precision hyperprior");
    v("input_individual_shape", input_individual_shape,
      "prior = ard2: Gamma shape of each input's precision about the inputs' common precision (0.5 is "
      "Neal's alpha = 1); the common precision has shape weight_prior_shape and mean 1/input_prior_scale^2");
    v("input_prior_scale", input_prior_scale, "prior sd scale of the input-layer weights");
    v("weight_prior_scale", weight_prior_scale,
      "prior sd scale of deeper hidden weights (times 1/sqrt(fan-in)) and of all weights under prior=shared");
    v("bias_prior_scale", bias_prior_scale, "prior sd scale of the hidden and output biases");
    v("output_prior_scale", output_prior_scale, "prior sd scale of the output weights (times 1/sqrt(units))");
    v("noise_prior_shape", noise_prior_shape, "Gamma shape of the noise-precision prior");
    v("noise_prior_scale", noise_prior_scale, "prior noise sd scale (normalized targets)");
    v("update_hyperparameters", update_hyperparameters,
      "Gibbs updates of the precisions; false keeps them at their prior means");
    v("hyperparameters", hyperparameters,
      "integrated: HMC on the weights with all precisions integrated out, their conditionals drawn "
      "after each trajectory; gibbs: HMC given the precisions alternating with their Gibbs draws "
      "(Neal). Which mixes better depends on the problem (see results/README.md)");
    v("chains", chains, "independent chains from dispersed starts");
    v("warmup", warmup, "warm-up iterations per chain (discarded; step size and metric adapted)");
    v("samples", samples, "iterations after warm-up, over all chains");
    v("thin", thin, "keep every thin-th iteration for predictions");
    v("metric", metric,
      "per-weight step scales: neal (from the current hyperparameters, Neal 1996) or adapted "
      "(variances of the warm-up draws, fixed afterwards)");
    v("leapfrog_steps", leapfrog_steps, "leapfrog steps per trajectory");
    v("target_accept", target_accept, "acceptance probability the step size is adapted to");
    v("step_jitter", step_jitter, "relative uniform jitter of the step size per trajectory");
    v("hyper_delay", hyper_delay, "warm-up iterations before the precisions start to be updated");
    v("initial_sd", initial_sd, "sd of the random initial weights of each chain");
    v("initial_optimization", initial_optimization,
      "L-BFGS iterations towards the mode of the weights' marginal posterior from each chain's random "
      "start, before warm-up (0: sample from the random start)");
    v("diagnostic_points", diagnostic_points, "training points whose predictions enter R-hat and ESS");
    v("tempering_replicas", tempering_replicas,
      "parallel tempering: copies of each chain at likelihood powers beta from 1 down to tempering_min_beta "
      "(geometric), neighbours swapping states after every iteration; only beta = 1 is kept (1: off)");
    v("tempering_min_beta", tempering_min_beta, "smallest likelihood power of the tempering ladder");
  }
  void validate(std::string_view method = "nn-mc") const;
};

// Every parameter has a group; its prior precision is multiplier * precision[group], and
// each group's precision has a Gamma(shape, rate) hyperprior.
struct PriorGroups {
  std::vector<std::string> names;
  Eigen::VectorXd shape, rate;
  std::vector<int> group;      // per parameter
  Eigen::VectorXd multiplier;  // per parameter
  // Two-level ARD (prior = ard2): the input groups' precisions have Gamma(shape, shape * u)
  // priors, i.e. mean 1/u, where u, the inputs' common variance, is itself unknown with
  // 1/u ~ Gamma(common_shape, common_rate). Empty when there is no upper level.
  std::vector<int> linked;  // the groups whose rate is shape * u
  double common_shape = 0.0, common_rate = 0.0;
  double common_variance = 0.0;  // the current u (its prior mean's inverse to start)
  // Sets u and the linked groups' rates.
  void set_common_variance(double u);
};
PriorGroups make_prior_groups(const MlpShape& shape, const Options& options);

// One slice-sampling update of the common input variance u given the linked groups' current
// precisions (its conditional is a generalized inverse Gaussian, log-concave in log u).
double draw_common_variance(const PriorGroups& groups, const Eigen::VectorXd& precision, double u, Rng& rng);

// Neal's (1996) heuristic for the curvature of -log p(theta | y, precisions) along each
// weight: its prior precision plus noise_precision x (sum of squares of the weight's input)
// x (prior variance of the weights downstream), treating |g'| <= 1. It depends only on the
// hyperparameters, so a trajectory with them held fixed stays a valid HMC move; 1 / curvature
// is the diagonal inverse metric.
Eigen::VectorXd neal_curvature(const MlpShape& shape, const PriorGroups& groups, const Eigen::VectorXd& precision,
                               double noise_precision, const Eigen::VectorXd& input_sum_squares, double n);

// Draw of the precision of each group from its Gamma conditional given the weights.
Eigen::VectorXd gibbs_precisions(const PriorGroups& groups, const Eigen::VectorXd& theta, Rng& rng);

// The per-parameter prior precisions (multiplier x group precision) of the group precisions.
Eigen::VectorXd prior_precisions(const PriorGroups& groups, const Eigen::VectorXd& precision);

// log N(y | f(theta), noise_variance) summed over n points, from half the sum of squared errors.
double gaussian_log_likelihood(double squared_error_half, double noise_variance, double n);

struct Draw {
  Eigen::VectorXd theta;
  double noise_variance = 0.0;
};

struct ChainResult {
  std::vector<Draw> draws;                  // kept draws after warm-up
  std::vector<double> log_likelihood;       // training log-likelihood of each kept draw
  std::vector<Eigen::VectorXd> diagnostic;  // outputs at the diagnostic points, per kept draw
  double step = 0.0;
  double accept_rate = 0.0;  // after warm-up
  long divergent = 0, divergent_warmup = 0;
  Eigen::VectorXd mean_precisions;    // per group, after warm-up
  double mean_common_variance = 0.0;  // prior = ard2: the inputs' common variance, after warm-up
  double initial_rmse = 0.0;          // training RMSE after the initial optimization
  long initial_evaluations = 0;       // gradient evaluations it used
  double swap_rate = 0.0;             // tempering: accepted / proposed swaps
  std::string error;                  // non-empty if the chain failed
};

// One chain: `seed` fixes its start and its whole random stream.
ChainResult run_chain(const MlpShape& shape, const PriorGroups& groups, const RegressionData& train,
                      const Options& options, const Eigen::MatrixXd& diagnostic_inputs, std::uint64_t seed);

class Model final : public ModelBase {
 public:
  Model(MlpShape shape, std::vector<std::vector<Draw>> chains, FitReport report)
      : ModelBase(std::move(report)), shape_(std::move(shape)), chains_(std::move(chains)) {}
  // The Gaussian mixture over all kept draws. Also records R-hat and ESS of the predictions
  // at (up to 1000 of) these points in the report.
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;
  // The mixture's variance (law of total variance over the draws) without building it, in
  // blocks of rows; no R-hat.
  Eigen::VectorXd predictive_variance(const Eigen::MatrixXd& X) const override;
  // Per chain and kept draw: the training log-likelihood, the noise sd and f at the rows of X;
  // with the split R-hat of f at each row.
  std::optional<ChainTraces> chain_traces(const RegressionData& train, const Eigen::MatrixXd& X) const override;
  std::size_t draw_count() const;
  const MlpShape& shape() const { return shape_; }
  const std::vector<std::vector<Draw>>& chains() const { return chains_; }  // kept draws per chain

 private:
  MlpShape shape_;
  std::vector<std::vector<Draw>> chains_;
};

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);
// The variant registered as `hmc`, the PBP paper's reference (MCMCstuff with rectified
// linear units): ReLU, one precision per layer's weights and biases, 50 units.
Options relu_defaults();

}  // namespace bnn::hmc
