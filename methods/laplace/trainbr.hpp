#pragma once
// The hyperparameter schedule of MATLAB's Neural Network Toolbox (trainbr: Foresee & Hagan
// 1997, the "Bayesian regularization" of MacKay 1992 inside Levenberg-Marquardt), which the
// PBP paper's LA used: after every Levenberg-Marquardt step on beta sum e^2 + alpha |w|^2,
//   gamma = k - alpha tr((beta J'J + alpha I)^-1),  alpha = gamma / (2 |w|^2),
//   beta = (N - gamma) / (2 sum e^2),
// starting from gamma = k. With the PBP paper's diagonal J'J, gamma can exceed N (the diagonal
// ignores that J'J has rank <= N), and then beta turns negative: trainbr has no safeguard.
// In MacKay's parameterization (beta E_D + alpha/2 |w|^2, E_D = sum e^2 / 2) its alpha and
// beta are doubled.
#include <Eigen/Core>

#include "methods/core/mlp.hpp"
#include "methods/core/model.hpp"

namespace bnn::laplace {

struct TrainbrResult {
  Eigen::VectorXd weights;
  double alpha = 0.0, beta = 0.0;  // MacKay's parameterization
  long epochs = 0;                 // accepted Levenberg-Marquardt steps
  long evaluations = 0;            // error evaluations
  long negative_beta = 0;          // updates that made beta negative
  double gradient_norm = 0.0;      // of the objective at the last weights
  std::string stop;                // why it stopped: epochs, mu_max, min_grad
};

// Runs trainbr from `weights` for at most `epochs` steps (the toolbox's mu 0.005, factors 0.1
// and 10, mu_max 1e10, min_grad 1e-7); `diagonal`: the trace uses diag(J'J).
TrainbrResult trainbr(const MlpShape& shape, const RegressionData& train, Eigen::VectorXd weights, int epochs,
                      bool diagonal);

}  // namespace bnn::laplace
