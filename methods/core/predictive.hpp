#pragma once
// Predictive distributions returned by every method, one distribution per test point.
// Metrics ask only for the queries below, so a new kind needs no change elsewhere.
#include <Eigen/Core>
#include <memory>
#include <string>

namespace bnn {

class Predictive {
 public:
  virtual ~Predictive() = default;
  virtual std::string kind() const = 0;
  virtual Eigen::Index size() const = 0;
  virtual double mean(Eigen::Index i) const = 0;
  virtual double variance(Eigen::Index i) const = 0;
  virtual double log_density(Eigen::Index i, double y) const = 0;
  virtual double cdf(Eigen::Index i, double y) const = 0;
  // Inverse CDF; the default brackets around the mean and solves cdf = p numerically.
  virtual double quantile(Eigen::Index i, double p) const;
  // Continuous ranked probability score; the default integrates (F - 1{z >= y})^2 numerically.
  virtual double crps(Eigen::Index i, double y) const;
  // Whether quantile(p_lo) <= y <= quantile(p_hi); the default computes the two quantiles.
  virtual bool between_quantiles(Eigen::Index i, double y, double p_lo, double p_hi) const;

 protected:
  // The p-quantile of point i, by TOMS 748 on cdf(i, .) - p, bracketed by [lo, hi].
  double solve_quantile(Eigen::Index i, double p, double lo, double hi) const;
};

class GaussianPredictive final : public Predictive {
 public:
  GaussianPredictive(Eigen::VectorXd mean, Eigen::VectorXd variance);
  std::string kind() const override { return "gaussian"; }
  Eigen::Index size() const override { return mean_.size(); }
  double mean(Eigen::Index i) const override { return mean_[i]; }
  double variance(Eigen::Index i) const override { return variance_[i]; }
  double log_density(Eigen::Index i, double y) const override;
  double cdf(Eigen::Index i, double y) const override;
  double quantile(Eigen::Index i, double p) const override;
  double crps(Eigen::Index i, double y) const override;

 private:
  Eigen::VectorXd mean_, variance_;
};

// Location-scale Student-t with `dof` degrees of freedom (variance finite only for dof > 2).
class StudentTPredictive final : public Predictive {
 public:
  StudentTPredictive(Eigen::VectorXd location, Eigen::VectorXd scale, double dof);
  std::string kind() const override { return "student-t"; }
  Eigen::Index size() const override { return location_.size(); }
  double mean(Eigen::Index i) const override;
  double variance(Eigen::Index i) const override;
  double log_density(Eigen::Index i, double y) const override;
  double cdf(Eigen::Index i, double y) const override;
  double quantile(Eigen::Index i, double p) const override;
  double crps(Eigen::Index i, double y) const override;
  double dof() const { return dof_; }

 private:
  Eigen::VectorXd location_, scale_;
  double dof_;
};

// Equally or unequally weighted mixture of Gaussians per point (e.g. one component per
// posterior sample): means and variances are (points x components), weights sum to one.
class GaussianMixturePredictive final : public Predictive {
 public:
  GaussianMixturePredictive(Eigen::MatrixXd means, Eigen::MatrixXd variances, Eigen::VectorXd weights);
  GaussianMixturePredictive(Eigen::MatrixXd means, Eigen::MatrixXd variances);
  std::string kind() const override { return "gaussian-mixture"; }
  Eigen::Index size() const override { return means_.rows(); }
  Eigen::Index components() const { return means_.cols(); }
  double mean(Eigen::Index i) const override;
  double variance(Eigen::Index i) const override;
  double log_density(Eigen::Index i, double y) const override;
  double cdf(Eigen::Index i, double y) const override;
  double crps(Eigen::Index i, double y) const override;

 private:
  // Row-major: each point's components are contiguous (every score loops over them).
  using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  RowMajorMatrix means_, variances_;
  Eigen::VectorXd weights_, log_weights_;
};

// The distribution of shift + scale * Y for Y ~ base: maps predictions made on the
// normalized scale back to original units (log density gains -log(scale)).
class AffinePredictive final : public Predictive {
 public:
  AffinePredictive(std::unique_ptr<Predictive> base, double shift, double scale);
  std::string kind() const override { return base_->kind(); }
  Eigen::Index size() const override { return base_->size(); }
  double mean(Eigen::Index i) const override;
  double variance(Eigen::Index i) const override;
  double log_density(Eigen::Index i, double y) const override;
  double cdf(Eigen::Index i, double y) const override;
  double quantile(Eigen::Index i, double p) const override;
  double crps(Eigen::Index i, double y) const override;
  bool between_quantiles(Eigen::Index i, double y, double p_lo, double p_hi) const override;

 private:
  std::unique_ptr<Predictive> base_;
  double shift_, scale_;
};

double log_sum_exp(const Eigen::Ref<const Eigen::VectorXd>& values);

}  // namespace bnn
