#include "experiments/src/artifacts/posterior_grid.hpp"

#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace bnn::exp {
namespace {

struct Box {
  double u_min, u_max, v_min, v_max;
};

double log_gaussian(const Eigen::Vector2d& mean, const Eigen::Matrix2d& covariance, double u, double v) {
  const Eigen::Vector2d r(u - mean[0], v - mean[1]);
  return -std::log(2.0 * std::numbers::pi) - 0.5 * std::log(covariance.determinant()) -
         0.5 * r.dot(covariance.inverse() * r);
}

struct GridIntegrals {
  double log_normalizer = 0.0, kl = 0.0, mass = 0.0;
};

// Midpoint rule with n cells per axis.
GridIntegrals integrate(const LogJoint& log_joint, const Eigen::Vector2d& mean, const Eigen::Matrix2d& covariance,
                        const Box& box, long n) {
  const double du = (box.u_max - box.u_min) / static_cast<double>(n);
  const double dv = (box.v_max - box.v_min) / static_cast<double>(n);
  const double log_cell = std::log(du * dv);
  Eigen::MatrixXd W(n * n, 2);
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      W.row(i * n + j) << box.u_min + (static_cast<double>(i) + 0.5) * du,
          box.v_min + (static_cast<double>(j) + 0.5) * dv;
  const Eigen::VectorXd log_p = log_joint(W);
  const double top = log_p.maxCoeff();
  GridIntegrals out;
  out.log_normalizer = top + std::log((log_p.array() - top).exp().sum()) + log_cell;
  double kl = 0.0;
  for (Eigen::Index c = 0; c < W.rows(); ++c) {
    const double log_q = log_gaussian(mean, covariance, W(c, 0), W(c, 1));
    const double q = std::exp(log_q + log_cell);
    out.mass += q;
    kl += q * (log_q - (log_p[c] - out.log_normalizer));
  }
  out.kl = kl / out.mass;
  return out;
}

}  // namespace

PosteriorGridResult integrate_posterior(const LogJoint& log_joint, const GaussianPosterior& q,
                                        const ArtifactSpec::PosteriorGrid& grid) {
  if (q.mean.size() != 2)
    throw std::invalid_argument("the exact posterior on a grid needs a model with two parameters; this one has " +
                                std::to_string(q.mean.size()));
  const Eigen::Vector2d mean = q.mean;
  const Eigen::Matrix2d covariance = q.covariance;
  // The box, extended where Q reaches beyond it (to 8 of its sd).
  Box box{grid.box[0].from, grid.box[0].to, grid.box[1].from, grid.box[1].to};
  const double su = 8.0 * std::sqrt(covariance(0, 0)), sv = 8.0 * std::sqrt(covariance(1, 1));
  box.u_min = std::min(box.u_min, mean[0] - su);
  box.u_max = std::max(box.u_max, mean[0] + su);
  box.v_min = std::min(box.v_min, mean[1] - sv);
  box.v_max = std::max(box.v_max, mean[1] + sv);
  const GridIntegrals coarse = integrate(log_joint, mean, covariance, box, grid.cells);
  const GridIntegrals fine = integrate(log_joint, mean, covariance, box, 2 * grid.cells);
  PosteriorGridResult out;
  out.log_normalizer = coarse.log_normalizer;
  out.log_normalizer_fine = fine.log_normalizer;
  out.kl = coarse.kl;
  out.kl_fine = fine.kl;
  out.mass = fine.mass;
  const GridSpec::Axis& a = grid.plot[0];
  const GridSpec::Axis& b = grid.plot[1];
  if (a.points == 0) return out;
  Eigen::MatrixXd W(a.points * b.points, 2);
  for (long i = 0; i < a.points; ++i)
    for (long j = 0; j < b.points; ++j)
      W.row(i * b.points + j) << a.from + (a.to - a.from) * static_cast<double>(i) / static_cast<double>(a.points - 1),
          b.from + (b.to - b.from) * static_cast<double>(j) / static_cast<double>(b.points - 1);
  out.plot.resize(W.rows(), 3);
  out.plot.leftCols(2) = W;
  out.plot.col(2) = log_joint(W).array() - out.log_normalizer_fine;
  return out;
}

}  // namespace bnn::exp
