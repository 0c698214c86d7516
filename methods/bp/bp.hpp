#pragma once
// Backpropagation baseline of the PBP paper (section 5.1): the same ReLU network trained by
// stochastic gradient descent with momentum and weight decay, one update per data point.
// Learning rate, momentum and weight decay are chosen per training set by Bayesian
// optimization on a validation part of the training data, then the network is refit on all
// of it. The predictive distribution is Gaussian with the validation mean squared error as
// its variance (BP has no uncertainty of its own; the paper reports no BP log-likelihood).
#include <vector>

#include "methods/core/model.hpp"
#include "methods/core/relu_network.hpp"
#include "methods/core/rng.hpp"

namespace bnn::bp {

struct Options {
  std::vector<int> hidden_layers = {50};
  int epochs = 40;
  bool tune = true;  // choose the three below by Bayesian optimization
  int tuning_evaluations = 30;
  double validation_fraction = 0.2;
  double learning_rate = 1e-3;  // used as given when tune = false
  double momentum = 0.9;
  double weight_decay = 1e-5;

  template <class Visitor>
  void visit(Visitor&& v) {
    v("hidden_layers", hidden_layers, "units per hidden layer, e.g. 50 or 50,50");
    v("epochs", epochs, "passes over the training data");
    v("tune", tune, "choose learning rate, momentum and weight decay by Bayesian optimization");
    v("tuning_evaluations", tuning_evaluations, "Bayesian-optimization evaluations");
    v("validation_fraction", validation_fraction, "part of the training data held out for tuning");
    v("learning_rate", learning_rate, "SGD step size (when tune = false)");
    v("momentum", momentum, "SGD momentum (when tune = false)");
    v("weight_decay", weight_decay, "L2 penalty coefficient (when tune = false)");
  }
  void validate() const;
};

struct Hyperparameters {
  double learning_rate, momentum, weight_decay;
};
// The tuning box: log10 learning rate in [-5, -0.5], momentum in [0, 0.99], log10 weight
// decay in [-8, -2].
Hyperparameters from_unit_cube(const Eigen::VectorXd& u);

// Trains a network by SGD; returns false if it diverged (non-finite output).
bool train(ReluNetwork& net, const Eigen::MatrixXd& X, const Eigen::VectorXd& y, int epochs, const Hyperparameters& h,
           Rng& rng);
// One SGD step on one point whose forward pass is in `cache`: the backward pass and every
// layer's momentum update with weight decay, fused (bp.cpp); `deltas` is scratch.
void sgd_backward_step(ReluNetwork& net, const ReluCache& cache, double d_output, const Hyperparameters& h,
                       std::vector<RowMatrix>& velocity, ReluDeltas& deltas);
double predict_one(const ReluNetwork& net, const Eigen::Ref<const Eigen::VectorXd>& x, ReluCache& cache);

class Model final : public ModelBase {
 public:
  Model(ReluNetwork net, double noise_variance, FitReport report)
      : ModelBase(std::move(report)), net_(std::move(net)), noise_variance_(noise_variance) {}
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;

 private:
  ReluNetwork net_;
  double noise_variance_;
};

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);

}  // namespace bnn::bp
