#pragma once
// KL(Q || P) of a Gaussian Q over two parameters against the exact posterior P of the same
// model, both on a grid: the midpoint rule for the normalizer of P and for the KL integral,
// repeated on a grid twice as fine per axis to show that it has converged (Barber & Bishop
// 1998, Figure 2, where the paper reports these KL values).
#include <Eigen/Core>
#include <functional>

#include "experiments/src/spec/spec.hpp"
#include "methods/core/artifacts.hpp"

namespace bnn::exp {

// log p(D | w) + log p(w) at each row of W (two columns).
using LogJoint = std::function<Eigen::VectorXd(const Eigen::MatrixXd& W)>;

struct PosteriorGridResult {
  double log_normalizer = 0.0, log_normalizer_fine = 0.0;  // log p(D) on the two grids
  double kl = 0.0, kl_fine = 0.0;                          // KL(Q || P) on the two grids
  double mass = 0.0;                                       // Q's mass inside the box (fine grid)
  Eigen::MatrixXd plot;  // rows of the plot grid: (w1, w2, log p(w | D)), normalized on the fine grid
};

// Throws std::invalid_argument when Q is not over exactly two parameters.
PosteriorGridResult integrate_posterior(const LogJoint& log_joint, const GaussianPosterior& q,
                                        const ArtifactSpec::PosteriorGrid& grid);

}  // namespace bnn::exp
