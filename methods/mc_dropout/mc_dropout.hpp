#pragma once
// MC dropout (Gal & Ghahramani 2016) as its authors' updated code runs it on the UCI splits:
// one hidden layer of ReLU units with dropout on the inputs and on the hidden units, trained by
// Adam on the mean squared error plus the weight decay l^2 (1 - p) / (2 N tau) of every weight
// matrix; dropout rate p and model precision tau chosen from a grid by the log-likelihood of a
// validation part of the training data after training on the rest, then the network refit on
// all of it. Predictive: T stochastic forward passes (dropout kept on), each a Gaussian with
// precision tau around the pass's output, mixed equally.
#include <array>
#include <cstdint>
#include <vector>

#include "methods/core/choice.hpp"
#include "methods/core/dense_network.hpp"
#include "methods/core/draws_predictive.hpp"
#include "methods/core/model.hpp"
#include "methods/core/options.hpp"
#include "methods/core/rng.hpp"
#include "methods/core/tuning/validation.hpp"

namespace bnn::mc_dropout {

// Which training rows score the grid. random: a seeded random part, the rows first put in an
// order drawn from their values, so that no order of the rows in a file biases it (and the fit
// does not depend on that order). last: the last part in the order given, as the authors' code
// holds out on their index files, which are random permutations; on rows in file order (index
// files written ascending, the harness's random and kfold protocols) it is the file's tail.
enum class ValidationRule { random, last };
constexpr std::array<ChoiceName<ValidationRule>, 2> choice_names(ValidationRule) {
  return {{{ValidationRule::random, "random"}, {ValidationRule::last, "last"}}};
}

struct Options {
  int hidden_units = 50;
  int epochs = 400;
  int batch_size = 128;
  std::vector<double> dropout_rates = {0.005, 0.01, 0.05, 0.1};
  std::vector<double> taus;  // precisions in the targets' original units: a data set's own grid
  std::vector<double> taus_normalized = {1.0, 10.0, 100.0};  // without one: tau s^2
  double length_scale = 1e-2;
  double validation_fraction = 0.2;
  Choice<ValidationRule> validation = ValidationRule::random;
  int samples = 10000;
  double learning_rate = 1e-3;

  template <class Visitor>
  void visit(Visitor&& v) {
    v("hidden_units", hidden_units, "ReLU units of the hidden layer");
    v("epochs", epochs, "passes over the training data");
    v("batch_size", batch_size, "points per Adam step");
    v("dropout_rates", dropout_rates, "dropout probabilities p tried (inputs and hidden units)");
    v("taus", taus, "model precisions tried, in the original units of the target");
    v("taus_normalized", taus_normalized,
      "without taus: precisions tried relative to the target's variance, tau s^2 (noise sd 1, 0.32, 0.1 of its sd)");
    v("length_scale", length_scale, "prior length-scale l of the weight decay l^2 (1 - p) / (2 N tau)");
    v("validation_fraction", validation_fraction, "part of the training data scoring the grid");
    v("validation", validation,
      "which rows score the grid: random (seeded, whatever their order) or last (the last part in the split's "
      "order, the authors' rule)");
    v("samples", samples, "stochastic forward passes T of the predictive");
    v("learning_rate", learning_rate, "Adam step size");
  }
  void validate() const;
  // Jobs stored before `validation` existed held out the last rows.
  static ParamMap earlier_values() { return {{"validation", "last"}}; }
};

struct Setting {
  double dropout;
  double tau;  // original units
};

// The weight decay of every weight matrix (Gal & Ghahramani 2016, eq. 7 with the authors'
// code's l = 1e-2): reg = l^2 (1 - p) / (2 N tau), the loss being the batch's mean squared error
// plus reg times the squared weights (biases not decayed).
double weight_decay(const Options& options, const Setting& setting, Eigen::Index n);

// The training loss of one batch and its gradient under the given dropout masks. Training runs
// in float32, as Keras does; double serves the finite-difference test of the same code.
template <class Scalar>
double batch_loss(const BasicDenseNetwork<Scalar>& net, const DenseInput<Scalar>& X,
                  const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& y, const BasicDropoutMasks<Scalar>& masks,
                  double decay, BasicDenseCache<Scalar>& cache, Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& gradient);

// The training rows in the order the fit uses them: as given (rule last), or in an order drawn
// from their values with a key from `rng` (rule random; tuning::order_by_content).
RegressionData fit_order(const RegressionData& train, ValidationRule rule, Rng& rng);

// The grid's parts of rows in fit order: the first (1 - fraction) train, the rest score.
tuning::ValidationSplit grid_parts(const RegressionData& ordered, double fraction);

// Trains a network on (X, y) with the setting's dropout and weight decay, in float32.
DenseNetwork32 train(const RegressionData& data, const Options& options, const Setting& setting, Rng& rng);

// Outputs of `passes` stochastic forward passes at the rows of X, in float32 as computed: column
// t is pass t (row-major: what the predictive scores point by point, filled without a copy).
using Draws = DrawsPredictive::RowMajorMatrix;
Draws stochastic_outputs(const DenseNetwork32& net, const Eigen::MatrixXd& X, double dropout, int passes, Rng& rng);

// Mean over the rows of log (1/T) sum_t N(y_i | f_t(x_i), v): the test log-likelihood of Gal &
// Ghahramani's code, with T passes run in blocks so memory stays linear in the rows (the sums
// in double).
double mean_log_likelihood(const DenseNetwork32& net, const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                           double dropout, double noise_variance, int passes, Rng& rng);

class Model final : public ModelBase {
 public:
  Model(DenseNetwork32 net, double dropout, double noise_variance, int samples, std::uint64_t seed, FitReport report)
      : ModelBase(std::move(report)),
        net_(std::move(net)),
        dropout_(dropout),
        noise_variance_(noise_variance),
        samples_(samples),
        seed_(seed) {}
  // The same passes on every call: their masks come from a seed the fit drew.
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;

 private:
  DenseNetwork32 net_;
  double dropout_, noise_variance_;
  int samples_;
  std::uint64_t seed_;
};

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);

}  // namespace bnn::mc_dropout
