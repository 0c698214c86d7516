#pragma once
// Parameterizations of the Gaussian Q(w) = N(m, C) optimized by ensemble learning (Barber &
// Bishop 1998, section 2.1): full covariance through an upper-triangular Cholesky factor
// C = R'R (eq. 73), factor analysis C = diag(d^2) + S S' with s factors (eq. 26), or diagonal.
// The parameter vector is theta = (m, log of the diagonal of R or of d, the rest of R or S).
#include <Eigen/Core>
#include <string>

#include "expected_error.hpp"
#include "methods/core/choice.hpp"
#include "methods/core/rng.hpp"

namespace bnn::ensemble {

enum class CovarianceForm { full, factor, diagonal };
constexpr std::array<ChoiceName<CovarianceForm>, 3> choice_names(CovarianceForm) {
  return {{{CovarianceForm::full, "full"}, {CovarianceForm::factor, "factor"}, {CovarianceForm::diagonal, "diagonal"}}};
}

struct Parameterization {
  CovarianceForm form = CovarianceForm::full;
  Eigen::Index weights = 0;  // k
  int factors = 0;           // s, for the factor form

  Eigen::Index size() const;
  // Q and log|C| at theta.
  GaussianQ unpack(const Eigen::VectorXd& theta, double& log_det) const;
  // Gradient with respect to theta of J(m, C) + log_det_weight * log|C|, given dJ/dm and dJ/dC
  // (q.covariance form: symmetric convention, dense; diagonal form: d_variances).
  Eigen::VectorXd chain(const Eigen::VectorXd& theta, const GaussianQ& q, const Eigen::VectorXd& d_mean,
                        const Eigen::MatrixXd& d_cov, const Eigen::VectorXd& d_variances, double log_det_weight) const;
  // Start: the given mean, every marginal variance about `variance`; factor loadings small and
  // random (S = 0 is a stationary point of the bound).
  Eigen::VectorXd initial(const Eigen::VectorXd& mean, double variance, Rng& rng) const;
};

}  // namespace bnn::ensemble
