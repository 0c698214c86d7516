#include "posterior_figure.hpp"

#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "methods/core/rng.hpp"
#include "methods/ensemble/ensemble.hpp"
#include "methods/laplace/laplace.hpp"

namespace bnn::exp {
namespace {

struct Box {
  double u_min, u_max, v_min, v_max;
};

// log p(D | u, v) p(u, v) for f(x) = v erf(u x / sqrt 2), Gaussian noise beta, prior N(0, I/alpha).
double log_joint(const data::Dataset& d, double u, double v, double alpha, double beta) {
  const double n = static_cast<double>(d.y.size());
  double squared_error = 0.0;
  for (Eigen::Index i = 0; i < d.y.size(); ++i) {
    const double r = v * std::erf(u * d.X(i, 0) / std::numbers::sqrt2) - d.y[i];
    squared_error += r * r;
  }
  return 0.5 * n * std::log(beta / (2.0 * std::numbers::pi)) - 0.5 * beta * squared_error +
         std::log(alpha / (2.0 * std::numbers::pi)) - 0.5 * alpha * (u * u + v * v);
}

double log_gaussian(const GaussianFit& fit, double u, double v) {
  const Eigen::Vector2d r(u - fit.mean[0], v - fit.mean[1]);
  const double det = fit.covariance.determinant();
  return -std::log(2.0 * std::numbers::pi) - 0.5 * std::log(det) - 0.5 * r.dot(fit.covariance.inverse() * r);
}

// Midpoint rule with n cells per axis: log of the normalizer, then for each fit KL(Q||P) and Q's mass.
struct GridIntegrals {
  double log_normalizer = 0.0;
  std::vector<double> kl, mass;
};

GridIntegrals integrate_on_grid(const data::Dataset& d, const PosteriorFigureOptions& o, const Box& box, long n,
                                const std::vector<GaussianFit>& fits) {
  const double du = (box.u_max - box.u_min) / static_cast<double>(n);
  const double dv = (box.v_max - box.v_min) / static_cast<double>(n);
  const double log_cell = std::log(du * dv);
  Eigen::MatrixXd log_p(n, n);
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      log_p(i, j) = log_joint(d, box.u_min + (static_cast<double>(i) + 0.5) * du,
                              box.v_min + (static_cast<double>(j) + 0.5) * dv, o.alpha, o.beta);
  const double top = log_p.maxCoeff();
  GridIntegrals out;
  out.log_normalizer = top + std::log((log_p.array() - top).exp().sum()) + log_cell;
  for (const auto& fit : fits) {
    double mass = 0.0, kl = 0.0;
    for (long i = 0; i < n; ++i)
      for (long j = 0; j < n; ++j) {
        const double log_q = log_gaussian(fit, box.u_min + (static_cast<double>(i) + 0.5) * du,
                                          box.v_min + (static_cast<double>(j) + 0.5) * dv);
        const double q = std::exp(log_q + log_cell);
        mass += q;
        kl += q * (log_q - (log_p(i, j) - out.log_normalizer));
      }
    out.kl.push_back(kl / mass);
    out.mass.push_back(mass);
  }
  return out;
}

}  // namespace

PosteriorFigure two_parameter_posterior_figure(const data::Dataset& data, const PosteriorFigureOptions& o) {
  if (data.X.cols() != 1)
    throw std::invalid_argument("the two-parameter posterior figure needs one input, but " + data.name + " has " +
                                std::to_string(data.X.cols()));
  if (!(o.alpha > 0.0) || !(o.beta > 0.0)) throw std::invalid_argument("alpha and beta must be > 0");
  if (o.grid_points < 50)
    throw std::invalid_argument("--grid is " + std::to_string(o.grid_points) + ", but must be >= 50 (points per axis)");
  if (o.plot_points < 2)
    throw std::invalid_argument("--plot-grid is " + std::to_string(o.plot_points) + ", but must be >= 2 (points per axis)");
  RegressionData train{data.X, data.y};
  PosteriorFigure figure;

  {  // Laplace at fixed hyperparameters: the MAP weights and the inverse Hessian there (eqs. 9-12).
    laplace::Options lo;
    lo.hidden_units = 1;
    lo.input_bias = false;
    lo.output_bias = false;
    lo.initial_alpha = o.alpha;
    lo.initial_beta = o.beta;
    lo.evidence_iterations = 0;
    lo.restarts = o.restarts;
    Rng rng(derive_seed(o.seed, "laplace"));
    const laplace::Model model = laplace::fit(train, lo, rng);
    const auto& post = model.posterior();
    GaussianFit fit;
    fit.method = "laplace";
    fit.mean = post.weights.head<2>();
    fit.covariance = (post.covariance_factor * post.covariance_factor.transpose()).topLeftCorner<2, 2>();
    fit.objective = post.log_evidence;
    figure.fits.push_back(fit);
  }
  for (const char* form : {"diagonal", "full"}) {  // ensemble learning at the same hyperparameters
    ensemble::Options eo;
    eo.hidden_units = 1;
    eo.covariance = form;
    eo.input_bias = false;
    eo.output_bias = false;
    eo.update_hyperparameters = false;
    eo.initial_alpha = o.alpha;
    eo.initial_beta = o.beta;
    eo.restarts = o.restarts;
    Rng rng(derive_seed(o.seed, form));
    const ensemble::Model model = ensemble::fit(train, eo, rng);
    GaussianFit fit;
    fit.method = std::string(form) == "full" ? "vi-full" : "vi-diag";
    fit.mean = model.q().mean.head<2>();
    fit.covariance = model.q().diagonal() ? Eigen::Matrix2d(model.q().variances.head<2>().asDiagonal())
                                          : Eigen::Matrix2d(model.q().covariance.topLeftCorner<2, 2>());
    fit.objective = model.report().diagnostics.front().second;
    figure.fits.push_back(fit);
  }

  // Integration box: where the prior leaves mass (8 prior sd) and every Q to 8 of its sd.
  const double radius = 8.0 / std::sqrt(o.alpha);
  Box box{-radius, radius, -radius, radius};
  for (const auto& fit : figure.fits) {
    const double su = 8.0 * std::sqrt(fit.covariance(0, 0)), sv = 8.0 * std::sqrt(fit.covariance(1, 1));
    box.u_min = std::min(box.u_min, fit.mean[0] - su);
    box.u_max = std::max(box.u_max, fit.mean[0] + su);
    box.v_min = std::min(box.v_min, fit.mean[1] - sv);
    box.v_max = std::max(box.v_max, fit.mean[1] + sv);
  }
  figure.u_min = box.u_min;
  figure.u_max = box.u_max;
  figure.v_min = box.v_min;
  figure.v_max = box.v_max;
  const GridIntegrals coarse = integrate_on_grid(data, o, box, o.grid_points, figure.fits);
  const GridIntegrals fine = integrate_on_grid(data, o, box, 2 * o.grid_points, figure.fits);
  figure.log_normalizer = coarse.log_normalizer;
  figure.log_normalizer_fine = fine.log_normalizer;
  for (std::size_t f = 0; f < figure.fits.size(); ++f) {
    figure.fits[f].kl = coarse.kl[f];
    figure.fits[f].kl_fine = fine.kl[f];
    figure.fits[f].mass = fine.mass[f];
  }

  // Plot grid over the region holding the posterior (log density within 12 of its maximum on a
  // coarse scan) and each fit to 3 sd.
  Box plot{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  {
    const long scan = 400;
    Eigen::MatrixXd lp(scan, scan);
    auto at = [&](long i, double lo, double hi) { return lo + (static_cast<double>(i) + 0.5) * (hi - lo) / scan; };
    for (long i = 0; i < scan; ++i)
      for (long j = 0; j < scan; ++j)
        lp(i, j) = log_joint(data, at(i, box.u_min, box.u_max), at(j, box.v_min, box.v_max), o.alpha, o.beta);
    const double top = lp.maxCoeff();
    for (long i = 0; i < scan; ++i)
      for (long j = 0; j < scan; ++j)
        if (lp(i, j) > top - 12.0) {
          plot.u_min = std::min(plot.u_min, at(i, box.u_min, box.u_max));
          plot.u_max = std::max(plot.u_max, at(i, box.u_min, box.u_max));
          plot.v_min = std::min(plot.v_min, at(j, box.v_min, box.v_max));
          plot.v_max = std::max(plot.v_max, at(j, box.v_min, box.v_max));
        }
    for (const auto& fit : figure.fits) {
      const double su = 3.0 * std::sqrt(fit.covariance(0, 0)), sv = 3.0 * std::sqrt(fit.covariance(1, 1));
      plot.u_min = std::min(plot.u_min, fit.mean[0] - su);
      plot.u_max = std::max(plot.u_max, fit.mean[0] + su);
      plot.v_min = std::min(plot.v_min, fit.mean[1] - sv);
      plot.v_max = std::max(plot.v_max, fit.mean[1] + sv);
    }
  }
  const long m = o.plot_points;
  figure.plot.resize(m * m, 2 + 1 + static_cast<Eigen::Index>(figure.fits.size()));
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < m; ++j) {
      const double u = plot.u_min + (plot.u_max - plot.u_min) * static_cast<double>(i) / static_cast<double>(m - 1);
      const double v = plot.v_min + (plot.v_max - plot.v_min) * static_cast<double>(j) / static_cast<double>(m - 1);
      auto row = figure.plot.row(i * m + j);
      row[0] = u;
      row[1] = v;
      row[2] = log_joint(data, u, v, o.alpha, o.beta) - figure.log_normalizer_fine;
      for (std::size_t f = 0; f < figure.fits.size(); ++f)
        row[3 + static_cast<Eigen::Index>(f)] = log_gaussian(figure.fits[f], u, v);
    }
  return figure;
}

}  // namespace bnn::exp
