#pragma once
// The interface every inference method implements: fit(train, options, rng) returns a Model
// whose predict(X) gives a predictive distribution per row of X. Methods see data already
// normalized by the harness and never do I/O.
#include <Eigen/Core>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "artifacts.hpp"
#include "predictive.hpp"

namespace bnn {

struct RegressionData {
  Eigen::MatrixXd X;  // rows are points
  Eigen::VectorXd y;
  // The standard deviation the harness divided the original targets by (1 when it did not
  // normalize): for options stated in the targets' original units, like MC dropout's tau.
  double target_scale = 1.0;
};

// Throws std::invalid_argument naming `method` if X and y disagree, are empty or non-finite.
void check_training_data(const RegressionData& data, std::string_view method);

enum class FitStatus { ok, not_converged, numerical_error };
std::string to_string(FitStatus status);

// What happened inside a fit. Numerical trouble is recorded here, never thrown.
struct FitReport {
  FitStatus status = FitStatus::ok;
  std::string message;
  long iterations = 0;
  std::vector<std::pair<std::string, double>> diagnostics;  // e.g. {"log_evidence", -12.3}
  std::vector<std::string> warnings;
  // CPU time of the programs the fit ran (an external method's): never on this process's clocks.
  double cpu_seconds_in_children = 0.0;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const = 0;
  virtual const FitReport& report() const = 0;
  // The predictive variance at each row of X, what active learning ranks a pool by; by default
  // from predict(). A method whose predictive is costly to build for many points (a mixture
  // over many posterior draws) computes it directly.
  virtual Eigen::VectorXd predictive_variance(const Eigen::MatrixXd& X) const;

  // Artifacts (artifacts.hpp): empty where the method has none of that kind.
  // Marginals of the parameters under the approximate posterior.
  virtual std::optional<ParameterMarginals> parameter_marginals() const { return std::nullopt; }
  // A Gaussian over the parameters (Laplace, ensemble learning).
  virtual std::optional<GaussianPosterior> gaussian_posterior() const { return std::nullopt; }
  // The unnormalized log posterior log p(train | w) + log p(w) at each row of W (parameter
  // vectors in gaussian_posterior()'s order), at the fit's hyperparameters: what a Gaussian
  // approximation is scored against.
  virtual std::optional<Eigen::VectorXd> log_joint(const RegressionData& /*train*/,
                                                   const Eigen::MatrixXd& /*W*/) const {
    return std::nullopt;
  }
  // The kept draws chain by chain, with the training log-likelihood of each and the outputs
  // at the rows of X.
  virtual std::optional<ChainTraces> chain_traces(const RegressionData& /*train*/, const Eigen::MatrixXd& /*X*/) const {
    return std::nullopt;
  }
};

// The base of every method's model: it holds the report of the fit.
class ModelBase : public Model {
 public:
  const FitReport& report() const final { return report_; }

 protected:
  explicit ModelBase(FitReport report) : report_(std::move(report)) {}
  // For what predict learns about the fit (NN-MC adds the R-hat of its predictions).
  FitReport& report_to_extend() const { return report_; }

 private:
  mutable FitReport report_;
};

// Options that passed their validate(): what every fit takes. The registry validates once, in
// the name the method is registered under, before it calls fit; a direct call fit(train, options,
// rng) validates through the implicit conversion.
template <class Options>
class Validated {
 public:
  Validated() : Validated(Options{}) {}                                           // the defaults: fit(train, {}, rng)
  Validated(const Options& options) : options_(options) { options_.validate(); }  // NOLINT: implicit on purpose
  Validated(const Options& options, std::string_view method) : options_(options) {
    if constexpr (requires { options_.validate(method); })
      options_.validate(method);  // one options type behind several names (nn-mc, hmc)
    else
      options_.validate();
  }
  const Options& operator*() const { return options_; }
  const Options* operator->() const { return &options_; }

 private:
  Options options_;
};

}  // namespace bnn
