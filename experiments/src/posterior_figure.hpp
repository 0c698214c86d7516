#pragma once
// Barber & Bishop (1998), Figure 2: the posterior of a network with two adaptive weights,
// f(x) = v sigma(u x) (one erf unit, no biases), at fixed hyperparameters, and the Gaussian
// approximations of Laplace's method and of ensemble learning with diagonal and full
// covariance, each scored by KL(Q || P) computed by numerical integration on a grid. The grid
// integration is repeated on a grid twice as fine to show it has converged.
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/src/dataset.hpp"

namespace bnn::exp {

struct PosteriorFigureOptions {
  double alpha = 1.0;   // weight prior precision (not printed in the paper)
  double beta = 100.0;  // noise precision: the generating noise sd 0.1
  long grid_points = 801;      // per axis, for the KL integrals (the check uses 2n - 1)
  long plot_points = 201;      // per axis, for the written density grid
  int restarts = 4;            // extra starts of each fit
  std::uint64_t seed = 1;
};

struct GaussianFit {
  std::string method;         // laplace, vi-diag, vi-full
  Eigen::Vector2d mean;       // (u, v)
  Eigen::Matrix2d covariance;
  double objective = 0.0;     // log evidence (Laplace) or lower bound (ensemble)
  double kl = 0.0;            // KL(Q || P) on the grid
  double kl_fine = 0.0;       // on the grid with 2n - 1 points per axis
  double mass = 0.0;          // Q's mass inside the grid box
};

struct PosteriorFigure {
  double u_min = 0, u_max = 0, v_min = 0, v_max = 0;  // integration box
  double log_normalizer = 0.0, log_normalizer_fine = 0.0;  // log of int p(D|w) p(w) dw
  std::vector<GaussianFit> fits;
  // Plot grid: rows (u, v, log p(w|D), log q_laplace, log q_diag, log q_full).
  Eigen::MatrixXd plot;
};

// Throws std::invalid_argument for a data set that is not one-dimensional or bad options.
PosteriorFigure two_parameter_posterior_figure(const data::Dataset& data, const PosteriorFigureOptions& options);

}  // namespace bnn::exp
