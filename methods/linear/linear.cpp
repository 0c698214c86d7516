#include "linear.hpp"

#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <numbers>

#include "methods/core/normal.hpp"
#include "methods/core/options.hpp"

namespace bnn::linear {
namespace {

constexpr const char* kName = "linear";

Eigen::MatrixXd design(const Eigen::MatrixXd& X, bool fit_bias) {
  if (!fit_bias) return X;
  Eigen::MatrixXd D(X.rows(), X.cols() + 1);
  D.col(0).setOnes();
  D.rightCols(X.cols()) = X;
  return D;
}

}  // namespace

void Options::validate() const {
  require_positive(kName, "prior_precision", prior_precision);
  require_positive(kName, "bias_precision", bias_precision);
  require_positive(kName, "noise_shape", noise_shape);
  require_positive(kName, "noise_rate", noise_rate);
}

Posterior posterior(const RegressionData& train, const Options& options, double alpha) {
  const Eigen::MatrixXd D = design(train.X, options.fit_bias);
  const Eigen::Index p = D.cols();
  const auto n = static_cast<double>(D.rows());
  Eigen::VectorXd prior_diag = Eigen::VectorXd::Constant(p, alpha);
  if (options.fit_bias) prior_diag[0] = options.bias_precision;

  Posterior post;
  post.prior_precision = alpha;
  post.precision = D.transpose() * D;
  post.precision.diagonal() += prior_diag;
  post.precision_cholesky.compute(post.precision);
  const Eigen::VectorXd Dty = D.transpose() * train.y;
  post.mean = post.precision_cholesky.solve(Dty);
  post.shape = options.noise_shape + 0.5 * n;
  // b_n = b0 + (y'y - m' Lambda_n m) / 2, written as a sum of squares for accuracy.
  const double residual = (train.y - D * post.mean).squaredNorm();
  const double penalty = post.mean.dot(prior_diag.asDiagonal() * post.mean);
  post.rate = options.noise_rate + 0.5 * (residual + penalty);

  const Eigen::MatrixXd L = post.precision_cholesky.matrixL();
  const double log_det_posterior = 2.0 * L.diagonal().array().log().sum();
  const double log_det_prior = prior_diag.array().log().sum();
  post.log_evidence = -0.5 * n * kLog2PiOfDouble + 0.5 * (log_det_prior - log_det_posterior) +
                      options.noise_shape * std::log(options.noise_rate) - post.shape * std::log(post.rate) +
                      std::lgamma(post.shape) - std::lgamma(options.noise_shape);
  return post;
}

Model fit(const RegressionData& train, const Validated<Options>& valid, Rng& /*rng: exact method*/) {
  const Options& options = *valid;
  check_training_data(train, kName);
  FitReport report;
  double alpha = options.prior_precision;
  if (options.optimize_prior_precision) {
    // Brent's method on log(alpha) in [1e-8, 1e8]; the evidence is smooth in alpha.
    const auto negative_evidence = [&](double log_alpha) {
      return -posterior(train, options, std::exp(log_alpha)).log_evidence;
    };
    boost::uintmax_t iterations = 200;
    const auto [best_log_alpha, value] =
        boost::math::tools::brent_find_minima(negative_evidence, std::log(1e-8), std::log(1e8), 40, iterations);
    (void)value;
    alpha = std::exp(best_log_alpha);
    report.iterations = static_cast<long>(iterations);
  }
  Posterior post = posterior(train, options, alpha);
  if (post.precision_cholesky.info() != Eigen::Success || !post.mean.allFinite()) {
    report.status = FitStatus::numerical_error;
    report.message = "posterior precision is not positive definite";
  }
  report.diagnostics = {{"log_evidence", post.log_evidence},
                        {"prior_precision", alpha},
                        {"noise_variance_mean", post.rate / (post.shape - 1.0)}};
  return Model(std::move(post), options.fit_bias, std::move(report));
}

Model::Model(Posterior posterior, bool fit_bias, FitReport report)
    : ModelBase(std::move(report)), posterior_(std::move(posterior)), fit_bias_(fit_bias) {}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  const Eigen::MatrixXd D = design(X, fit_bias_);
  const Eigen::VectorXd location = D * posterior_.mean;
  // scale^2 = (b_n / a_n) (1 + x' Lambda_n^-1 x), with dof = 2 a_n.
  Eigen::VectorXd leverage(0);
  if (D.rows() > 0) {  // no rows (a figure's empty test part): Eigen's solve would bind a null reference
    const Eigen::MatrixXd half = posterior_.precision_cholesky.matrixL().solve(D.transpose());
    leverage = half.colwise().squaredNorm().transpose();
  }
  const Eigen::VectorXd scale = ((1.0 + leverage.array()) * (posterior_.rate / posterior_.shape)).sqrt();
  return std::make_unique<StudentTPredictive>(location, scale, 2.0 * posterior_.shape);
}

}  // namespace bnn::linear
