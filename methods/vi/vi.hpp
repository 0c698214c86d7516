#pragma once
// Variational inference in the style of Graves (2011), the VI baseline of the PBP paper:
// a factorized Gaussian q(w) = N(mu, exp(rho)^2) over the weights of the same ReLU
// network, a N(0, prior_variance) prior, a Gaussian likelihood whose noise variance is a
// point estimate; the negative lower bound is estimated by Monte Carlo one data point at a
// time (its KL term divided by n) and minimized by SGD with momentum. Learning rate and
// momentum are chosen by Bayesian optimization on a validation part of the training data.
//
// Estimators of the bound's gradient: "weights" samples every weight and differentiates
// through the draw (unbiased); "graves" samples every weight too but, as Graves (2011, sec. 5)
// does, takes the variances' gradient from the squared per-point gradients (the diagonal
// Fisher in place of the Hessian: biased, and the "second approximation" the PBP paper blames
// for VI's poor results); "local" samples each unit's pre-activation from its Gaussian given
// the layer input (the local reparameterization of Kingma, Salimans & Welling 2015): the same
// bound as "weights", a lower variance, and one draw per unit instead of one per weight. The predictive is a Gaussian
// moment-matched to Monte Carlo draws of the network output (as the PBP paper reports it),
// or the Gaussian mixture over the draws.
#include <string>
#include <vector>

#include "methods/core/choice.hpp"
#include "methods/core/model.hpp"
#include "methods/core/relu_network.hpp"
#include "methods/core/rng.hpp"

namespace bnn::vi {

enum class Estimator { local, weights, graves };
constexpr std::array<ChoiceName<Estimator>, 3> choice_names(Estimator) {
  return {{{Estimator::local, "local"}, {Estimator::weights, "weights"}, {Estimator::graves, "graves"}}};
}
enum class PriorKind { fixed, adaptive };
constexpr std::array<ChoiceName<PriorKind>, 2> choice_names(PriorKind) {
  return {{{PriorKind::fixed, "fixed"}, {PriorKind::adaptive, "adaptive"}}};
}
enum class PredictiveKind { gaussian, mixture };
constexpr std::array<ChoiceName<PredictiveKind>, 2> choice_names(PredictiveKind) {
  return {{{PredictiveKind::gaussian, "gaussian"}, {PredictiveKind::mixture, "mixture"}}};
}

struct Options {
  std::vector<int> hidden_layers = {50};
  int epochs = 40;
  int batch_size = 1;  // points per SGD step
  Choice<Estimator> estimator = Estimator::local;
  bool tune = true;
  int tuning_evaluations = 30;
  double validation_fraction = 0.2;
  double learning_rate = 1e-3;  // used as given when tune = false
  double momentum = 0.9;
  double prior_variance = 1.0;
  Choice<PriorKind> prior = PriorKind::fixed;  // or adaptive (Graves 2011, sec. 5)
  double initial_sd = 0.01;                    // initial posterior standard deviation of each weight
  double initial_noise_variance = 0.5;         // on the normalized target scale
  int predictive_samples = 100;
  Choice<PredictiveKind> predictive = PredictiveKind::gaussian;  // or mixture

  template <class Visitor>
  void visit(Visitor&& v) {
    v("hidden_layers", hidden_layers, "units per hidden layer, e.g. 50 or 50,50");
    v("epochs", epochs, "passes over the training data");
    v("batch_size", batch_size,
      "training points per SGD step, the bound's gradient averaged over them (1: one step per point; a last "
      "smaller batch ends each epoch)");
    v("estimator", estimator,
      "gradient estimator: local (reparameterized pre-activations), weights (reparameterized weights) or graves (Graves 2011: squared gradients for the variances)");
    v("tune", tune, "choose learning rate and momentum by Bayesian optimization");
    v("tuning_evaluations", tuning_evaluations, "Bayesian-optimization evaluations");
    v("validation_fraction", validation_fraction, "part of the training data held out for tuning");
    v("learning_rate", learning_rate, "SGD step size (when tune = false)");
    v("momentum", momentum, "SGD momentum (when tune = false)");
    v("prior_variance", prior_variance, "variance of the Gaussian prior on every weight (prior = fixed)");
    v("prior", prior,
      "fixed: N(0, prior_variance); adaptive: one Gaussian prior for all weights whose mean and variance are set to their optimum under q at every update (Graves 2011, sec. 5)");
    v("initial_sd", initial_sd, "initial posterior standard deviation of every weight");
    v("initial_noise_variance", initial_noise_variance, "initial noise variance (normalized targets)");
    v("predictive_samples", predictive_samples, "Monte Carlo draws of the weights for predictions");
    v("predictive", predictive, "gaussian (moment-matched) or mixture (over the draws)");
  }
  void validate() const;
};

// q(w) and the noise variance.
struct Posterior {
  std::vector<RowMatrix> mean, rho;  // rho = log sd
  double log_noise_variance = 0.0;
};

// Trains by SGD on minibatches of options.batch_size points; returns false if the bound diverged.
bool train(Posterior& q, const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& options,
           double learning_rate, double momentum, Rng& rng);

// One draw of the per-point negative lower bound, -log p(y | x, w) + KL(q || p) / n: returns
// the data term and the gradient of the whole with respect to mean, rho and the log noise
// variance (exposed for tests).
struct BoundGradient {
  std::vector<RowMatrix> d_mean, d_rho;
  double d_log_noise = 0.0;
};
double point_loss(const Posterior& q, const Eigen::Ref<const Eigen::VectorXd>& x, double y, double n,
                  const Options& options, Rng& rng, BoundGradient& gradient);

// The Gaussian prior every weight shares.
struct GaussianPrior {
  double mean = 0.0;
  double variance = 1.0;
};
// Graves's adaptive prior: the mean and variance minimizing KL(q || prior), i.e. the average of
// the posterior means and the average of sd^2 + (mean - prior mean)^2.
GaussianPrior adaptive_prior(const Posterior& q);
// The same from each layer's means and variances sd^2.
GaussianPrior adaptive_prior(const std::vector<RowMatrix>& means, const std::vector<RowMatrix>& variances);
// The prior the options ask for, given q.
GaussianPrior prior_for(const Posterior& q, const Options& options);

// KL(q || N(prior.mean, prior.variance I)).
double kl_divergence(const Posterior& q, const GaussianPrior& prior);

class Model final : public ModelBase {
 public:
  Model(Posterior q, Options options, std::uint64_t seed, FitReport report)
      : ModelBase(std::move(report)), q_(std::move(q)), options_(std::move(options)), seed_(seed) {}
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;

 private:
  Posterior q_;
  Options options_;
  std::uint64_t seed_;  // predictions draw their weights from their own stream
};

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);

}  // namespace bnn::vi
