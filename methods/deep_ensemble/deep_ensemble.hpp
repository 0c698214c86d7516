#pragma once
// Deep ensembles (Lakshminarayanan, Pritzel & Blundell 2017): M networks, each with one hidden
// layer of ReLU units and two outputs, a mean mu and a variance softplus(.) + 1e-6, trained from
// its own random initialization by Adam on the Gaussian negative log-likelihood (their eq. 1),
// optionally with adversarial examples by the fast gradient sign (their section 2.3).
// Predictive: the uniform mixture of the members' Gaussians.
#include <Eigen/Core>

#include "methods/core/dense_network.hpp"
#include "methods/core/model.hpp"
#include "methods/core/rng.hpp"

namespace bnn::deep_ensemble {

struct Options {
  int members = 5;
  int hidden_units = 50;
  int epochs = 40;
  int batch_size = 100;
  double learning_rate = 0.1;
  bool adversarial = false;
  double adversarial_epsilon = 0.01;
  double min_variance = 1e-6;

  template <class Visitor>
  void visit(Visitor&& v) {
    v("members", members, "networks in the ensemble");
    v("hidden_units", hidden_units, "ReLU units of the hidden layer");
    v("epochs", epochs, "passes over the training data per network");
    v("batch_size", batch_size, "points per Adam step");
    v("learning_rate", learning_rate, "Adam step size");
    v("adversarial", adversarial, "add the loss at fast-gradient-sign adversarial inputs");
    v("adversarial_epsilon", adversarial_epsilon, "adversarial step as a fraction of each input's training range");
    v("min_variance", min_variance, "added to the softplus of the variance output");
  }
  void validate() const;
};

// Mean over the batch of 1/2 log var + (y - mu)^2 / (2 var), var = softplus(g) + min_variance,
// for the network outputs (mu, g) per row; writes dLoss/d outputs.
double gaussian_nll(const Eigen::MatrixXd& outputs, const Eigen::VectorXd& y, double min_variance,
                    Eigen::MatrixXd& d_outputs);

// The loss of one batch (with its adversarial twin when epsilon_per_input is not empty) and its
// gradient.
double batch_loss(const DenseNetwork& net, const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& options,
                  const Eigen::RowVectorXd& epsilon_per_input, DenseCache& cache, Eigen::VectorXd& gradient);

// Torch's default initialization of a linear layer (the paper's): weights and biases
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
DenseNetwork torch_initialization(const DenseShape& shape, Rng& rng);

// Trains one member.
DenseNetwork train_member(const RegressionData& data, const Options& options, Rng& rng);

class Model final : public ModelBase {
 public:
  Model(std::vector<DenseNetwork> members, double min_variance, FitReport report)
      : ModelBase(std::move(report)), members_(std::move(members)), min_variance_(min_variance) {}
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;

 private:
  std::vector<DenseNetwork> members_;
  double min_variance_;
};

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);

}  // namespace bnn::deep_ensemble
