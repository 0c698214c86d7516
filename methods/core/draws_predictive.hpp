#pragma once
// The predictive of a network evaluated T times with random weights (MC dropout): per point the
// mixture (1/T) sum_t N(draw_t, noise_variance) of T equally weighted Gaussians sharing one
// variance. T is large (10,000), so the scores avoid work quadratic in T. The draws are kept in
// float32, as MC dropout computes them (exact, and half the memory: 183 MB for a protein test
// part of 4,573 points); every score widens them and sums in double.
#include <Eigen/Core>

#include "predictive.hpp"

namespace bnn {

class DrawsPredictive final : public Predictive {
 public:
  using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  // draws: points x T.
  DrawsPredictive(RowMajorMatrix draws, double noise_variance);
  std::string kind() const override { return "gaussian-mixture"; }
  Eigen::Index size() const override { return draws_.rows(); }
  Eigen::Index draws() const { return draws_.cols(); }
  double mean(Eigen::Index i) const override;
  double variance(Eigen::Index i) const override;
  // log (1/T) sum_t N(y | draw_t, v): Gal & Ghahramani's test log-likelihood per point.
  double log_density(Eigen::Index i, double y) const override;
  double cdf(Eigen::Index i, double y) const override;
  double quantile(Eigen::Index i, double p) const override;
  // E|Y - y| - E|Y - Y'| / 2 (Grimit et al. 2006). The first term is exact; the second averages
  // kCrpsPairOffsets * T of the T^2 pairs of draws, (t, t + k mod T) for k = 1..kCrpsPairOffsets,
  // plus the T pairs (t, t): the draws are independent, so this is an unbiased estimate of the
  // pair term at a cost linear in T.
  double crps(Eigen::Index i, double y) const override;
  // One cdf (O(T)) instead of two quantiles' root solves: p_lo <= F(y) <= p_hi.
  bool between_quantiles(Eigen::Index i, double y, double p_lo, double p_hi) const override;
  static constexpr Eigen::Index kCrpsPairOffsets = 16;

 private:
  // Point i's draws in double.
  Eigen::RowVectorXd row(Eigen::Index i) const { return draws_.row(i).cast<double>(); }
  RowMajorMatrix draws_;
  double noise_variance_;
};

}  // namespace bnn
