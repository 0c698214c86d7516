#include "trainbr.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>

#include "methods/core/two_layer_network.hpp"

namespace bnn::laplace {
namespace {

constexpr double kMuInitial = 0.005, kMuDecrease = 0.1, kMuIncrease = 10.0, kMuMax = 1e10, kMinGradient = 1e-7;

}  // namespace

TrainbrResult trainbr(const MlpShape& shape, const RegressionData& train, Eigen::VectorXd weights, int epochs,
                      bool diagonal) {
  TrainbrResult r;
  const double n = static_cast<double>(train.X.rows());
  const auto k = static_cast<double>(weights.size());
  const auto sum_squares = [&](const Eigen::VectorXd& w) {
    ++r.evaluations;
    return 2.0 * squared_error(shape, w, train.X, train.y);
  };
  double sse = sum_squares(weights), ssx = weights.squaredNorm();
  // trainbr's start: gamma = k; beta from it, or 1 where that is not positive
  double gamma = k;
  double beta = sse == 0.0 ? 1.0 : (n - gamma) / (2.0 * sse);
  if (beta <= 0.0) beta = 1.0;
  double alpha = ssx == 0.0 ? 1.0 : gamma / (2.0 * ssx);
  double perf = beta * sse + alpha * ssx;
  double mu = kMuInitial;
  r.stop = "epochs";
  for (int epoch = 0; epoch < epochs; ++epoch) {
    const Eigen::MatrixXd J = network_jacobian(shape, weights, train.X);
    const Eigen::VectorXd residual = network_outputs(shape, weights, train.X) - train.y;
    const Eigen::MatrixXd jj = J.transpose() * J;
    const Eigen::VectorXd je = J.transpose() * residual;
    const Eigen::VectorXd gradient = 2.0 * (beta * je + alpha * weights);
    r.gradient_norm = gradient.norm();
    if (r.gradient_norm < kMinGradient) {
      r.stop = "min_grad";
      break;
    }
    // Levenberg-Marquardt: raise mu until a step lowers the objective.
    bool accepted = false;
    while (mu <= kMuMax) {
      Eigen::MatrixXd system = beta * jj;
      system.diagonal().array() += alpha + mu;
      const Eigen::VectorXd step = -system.ldlt().solve(beta * je + alpha * weights);
      const Eigen::VectorXd candidate = weights + step;
      const double sse2 = sum_squares(candidate), ssx2 = candidate.squaredNorm();
      const double perf2 = beta * sse2 + alpha * ssx2;
      if (perf2 < perf && step.allFinite()) {
        weights = candidate;
        sse = sse2;
        ssx = ssx2;
        mu = std::max(mu * kMuDecrease, 1e-20);
        accepted = true;
        break;
      }
      mu *= kMuIncrease;
    }
    if (!accepted) {
      r.stop = "mu_max";
      break;
    }
    ++r.epochs;
    // The re-estimation after the step, from the curvature there. k - alpha tr((beta J'J + alpha
    // I)^-1) is summed as sum_i beta lambda_i / (beta lambda_i + alpha) over the eigenvalues of J'J
    // (its diagonal entries for `diagonal`): the same number, without the cancellation that
    // flips its sign once alpha is large.
    const Eigen::MatrixXd J2 = network_jacobian(shape, weights, train.X);
    const Eigen::ArrayXd lambda =
        diagonal
            ? Eigen::ArrayXd(J2.colwise().squaredNorm().transpose())
            : Eigen::ArrayXd(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(J2.transpose() * J2, Eigen::EigenvaluesOnly)
                                 .eigenvalues()
                                 .cwiseMax(0.0));
    gamma = (beta * lambda / (beta * lambda + alpha)).sum();
    alpha = ssx == 0.0 ? 1.0 : gamma / (2.0 * ssx);
    beta = sse == 0.0 ? 1.0 : (n - gamma) / (2.0 * sse);
    if (beta < 0.0) ++r.negative_beta;
    perf = beta * sse + alpha * ssx;
  }
  r.weights = std::move(weights);
  r.alpha = 2.0 * alpha;
  r.beta = 2.0 * beta;
  return r;
}

}  // namespace bnn::laplace
