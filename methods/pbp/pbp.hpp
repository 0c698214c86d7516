#pragma once
// Probabilistic backpropagation (Hernández-Lobato & Adams 2015): a factorized Gaussian
// posterior over the weights of a ReLU network, Gamma posteriors on the noise precision and
// on the weight-prior precision, learned by assumed density filtering over the data (one
// pass per epoch over a fresh permutation) and an EP refinement of the prior factors after
// each pass (supplement section 6).
#include <Eigen/Core>
#include <vector>

#include "methods/core/model.hpp"
#include "methods/core/rng.hpp"
#include "relu_moments.hpp"

namespace bnn::pbp {

struct Options {
  std::vector<int> hidden_layers = {50};
  int epochs = 40;
  // Gamma(shape, rate) priors on the weight precision lambda and the noise precision gamma
  // (targets normalized). The paper does not print them; the authors' code uses 6 and 6.
  double prior_shape = 6.0;
  double prior_rate = 6.0;
  double noise_shape = 6.0;
  double noise_rate = 6.0;
  // A prior factor is refined by EP only where the cavity q / factor has at least this
  // fraction of the factor's precision. The random initial means (section 3.5) live in q but
  // in no factor, so for a weight the data have barely touched the cavity reads the
  // perturbation as data (precision ~1e-5, mean ~1e4); refining it inflates the prior
  // variance to ~1e7 and networks of 2-4 hidden layers diverge. 0 keeps only the authors'
  // guard (cavity variance < 1e6).
  double min_cavity_precision_fraction = 0.1;

  template <class Visitor>
  void visit(Visitor&& v) {
    v("hidden_layers", hidden_layers, "units per hidden layer, e.g. 50 or 50,50");
    v("epochs", epochs, "ADF passes over the training data");
    v("prior_shape", prior_shape, "shape of the Gamma prior on the weight precision");
    v("prior_rate", prior_rate, "rate of the Gamma prior on the weight precision");
    v("noise_shape", noise_shape, "shape of the Gamma prior on the noise precision");
    v("noise_rate", noise_rate, "rate of the Gamma prior on the noise precision");
    v("min_cavity_precision_fraction", min_cavity_precision_fraction,
      "refine a weight's prior factor only where the cavity has this fraction of the factor's precision "
      "(0: only the authors' guard, cavity variance < 1e6)");
  }
  void validate() const;
};

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// One layer's weights, (outputs) x (inputs + 1): the last column multiplies the bias unit.
struct Layer {
  RowMatrix mean, variance;
  // Natural parameters of the approximate prior factor of each weight (EP, supplement 6):
  // precision, precision x mean, and the factor's contributions to the Gamma shape and rate
  // of lambda.
  RowMatrix site_precision, site_precision_mean, site_shape, site_rate;
};

struct Network {
  std::vector<Layer> layers;
  double noise_shape = 0.0, noise_rate = 0.0;  // q(gamma) = Gamma(shape, rate)
  double prior_shape = 0.0, prior_rate = 0.0;  // q(lambda)
  double noise_variance() const { return noise_rate / (noise_shape - 1.0); }
};

// A network with q(w) from the prior factors and means ~ N(0, 1/(inputs + 1)) (section 3.5).
Network initial_network(Eigen::Index inputs, const Options& options, Rng& rng);

// Mean and variance of the network output for input x (forward pass, eqs. (13)-(17)).
struct OutputMoments {
  double mean = 0.0, variance = 0.0;
};
OutputMoments forward(const Network& net, const Eigen::Ref<const Eigen::VectorXd>& x);

// log Z of eq. (12) for (x, y) and its gradients with respect to every weight mean and
// variance (the backward pass of the supplement), without changing the network.
struct Gradients {
  std::vector<RowMatrix> d_mean, d_variance;
};
double log_z(const Network& net, const Eigen::Ref<const Eigen::VectorXd>& x, double y, Gradients* gradients);

// Buffers of one forward/backward pass, reused across points (no allocation per point).
struct PassWorkspace {
  struct LayerIn {
    Eigen::VectorXd zm, zv;  // mean and variance of the layer input, bias unit last
    Eigen::VectorXd second;  // zm^2 + zv
    Eigen::VectorXd ma, va;  // mean and variance of the layer's pre-activations a_l
    ReluBatch relu;
    Eigen::VectorXd dzm, dzv;  // d log Z / d(zm, zv)
  };
  std::vector<LayerIn> in;
  Eigen::VectorXd dm, dv;  // d log Z / d(m^a, v^a) of the current layer
  void size_for(const Network& net);
};

// Incorporates the likelihood factor of (x, y): eqs. (6)-(7) for the weights (a weight whose
// variance would become non-positive keeps its old values) and (9)-(10) for q(gamma).
// Returns the number of weights whose update was undone.
long adf_update(Network& net, const Eigen::Ref<const Eigen::VectorXd>& x, double y, PassWorkspace& workspace);
long adf_update(Network& net, const Eigen::Ref<const Eigen::VectorXd>& x, double y);

// One EP pass over the prior factors N(w | 0, 1/lambda) (supplement section 6), skipping
// weights whose cavity precision is below min_cavity_precision_fraction x the factor's.
// Returns the number of factors updated.
long refine_prior(Network& net, double min_cavity_precision_fraction);

class Model final : public ModelBase {
 public:
  Model(Network net, FitReport report) : ModelBase(std::move(report)), net_(std::move(net)) {}
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;
  const Network& network() const { return net_; }

 private:
  Network net_;
};

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);

}  // namespace bnn::pbp
