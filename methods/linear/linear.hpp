#pragma once
// Exact Bayesian linear regression with the conjugate Normal-Gamma prior
//   tau = 1/sigma^2 ~ Gamma(noise_shape, noise_rate),  w | tau ~ N(0, (tau Lambda0)^-1),
// Lambda0 = diag(bias_precision, prior_precision, ..., prior_precision). The posterior is
// Normal-Gamma and the predictive is Student-t; it is the oracle the approximate methods are
// tested against.
#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "methods/core/model.hpp"
#include "methods/core/rng.hpp"

namespace bnn::linear {

struct Options {
  double prior_precision = 1.0;  // alpha: weight precision relative to the noise precision
  double bias_precision = 1e-6;  // near-flat prior on the intercept
  double noise_shape = 1.0;      // a0
  double noise_rate = 1.0;       // b0
  bool fit_bias = true;
  bool optimize_prior_precision = false;  // type-II maximum likelihood for alpha

  template <class Visitor>
  void visit(Visitor&& v) {
    v("prior_precision", prior_precision, "weight prior precision alpha (relative to noise precision)");
    v("bias_precision", bias_precision, "prior precision of the intercept (relative to noise precision)");
    v("noise_shape", noise_shape, "shape a0 of the Gamma prior on the noise precision");
    v("noise_rate", noise_rate, "rate b0 of the Gamma prior on the noise precision");
    v("fit_bias", fit_bias, "add an intercept");
    v("optimize_prior_precision", optimize_prior_precision,
      "choose alpha by maximizing the marginal likelihood of the training data");
  }
  void validate() const;
};

// Posterior parameters: w | tau ~ N(mean, (tau precision)^-1), tau ~ Gamma(shape, rate).
struct Posterior {
  Eigen::VectorXd mean;
  Eigen::MatrixXd precision;
  Eigen::LLT<Eigen::MatrixXd> precision_cholesky;
  double shape = 0.0;
  double rate = 0.0;
  double prior_precision = 0.0;  // alpha actually used
  double log_evidence = 0.0;     // log p(y | X, alpha)
};

class Model final : public ModelBase {
 public:
  Model(Posterior posterior, bool fit_bias, FitReport report);
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;
  const Posterior& posterior() const { return posterior_; }

 private:
  Posterior posterior_;
  bool fit_bias_;
};

Model fit(const RegressionData& train, const Validated<Options>& options, Rng& rng);

// The posterior for a fixed alpha (exposed for tests and for methods that reuse it).
Posterior posterior(const RegressionData& train, const Options& options, double alpha);

}  // namespace bnn::linear
