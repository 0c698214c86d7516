#pragma once
// Metrics: per test point (log density, squared error, 95% interval hit, CRPS), per split
// (RMSE, mean test log-likelihood, ...) and over splits (mean and standard error, or pooled
// over all test points as in the EP-NN paper's Table 1).
#include <Eigen/Core>
#include <map>
#include <string>
#include <vector>

#include "methods/core/predictive.hpp"

namespace bnn::exp {

struct PointScores {
  std::vector<double> log_density;
  std::vector<double> squared_error;
  std::vector<double> crps;
  std::vector<double> covered95;  // 1 if y is inside the central 95% interval, else 0
  std::vector<double> mean;       // predictive mean and variance (for figures, diagnostics)
  std::vector<double> variance;
};

// Scores every test point; `y` is on the same scale as the predictive.
PointScores score_points(const Predictive& predictive, const Eigen::VectorXd& y);

// Per-split metrics: rmse, test_ll, lpd_mean, se_mean, coverage95, crps.
std::map<std::string, double> split_metrics(const PointScores& scores);

// Test points whose log density or mean is not finite (a job with any has failed).
long count_non_finite(const PointScores& scores);

struct MetricInfo {
  std::string name;
  std::string title;
  bool pooled;      // computed from all test points of all splits pooled
  bool comparable;  // mark differences from the paper beyond two standard errors
};
const std::vector<MetricInfo>& metric_catalog();
const MetricInfo* find_metric(const std::string& name);

struct Summary {
  double value = 0.0;
  double se = 0.0;  // NaN when not defined
  int n = 0;        // values averaged (splits)
};

// Mean and standard error (sample sd / sqrt(n)) of per-split values.
Summary mean_and_se(const std::vector<double>& values);
// Percentile as MATLAB's prctile computes it (the EP-NN paper used MATLAB): the sorted
// values sit at percentages 100 (i - 0.5) / n, linear interpolation between them, clamped
// to the extremes outside.
double percentile(std::vector<double> values, double percent);
double sample_std(const std::vector<double>& values);

}  // namespace bnn::exp
