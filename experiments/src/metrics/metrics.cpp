#include "experiments/src/metrics/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace bnn::exp {

PointScores score_points(const Predictive& predictive, const Eigen::VectorXd& y) {
  PointScores s;
  const auto n = static_cast<std::size_t>(y.size());
  s.log_density.resize(n);
  s.squared_error.resize(n);
  s.crps.resize(n);
  s.covered95.resize(n);
  s.mean.resize(n);
  s.variance.resize(n);
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double m = predictive.mean(i);
    s.mean[k] = m;
    s.variance[k] = predictive.variance(i);
    if (!std::isfinite(m) || !std::isfinite(s.variance[k])) {  // a diverged fit: the runner reports it
      s.log_density[k] = s.squared_error[k] = s.crps[k] = s.covered95[k] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    s.log_density[k] = predictive.log_density(i, y[i]);
    s.squared_error[k] = (y[i] - m) * (y[i] - m);
    s.crps[k] = predictive.crps(i, y[i]);
    s.covered95[k] = predictive.between_quantiles(i, y[i], 0.025, 0.975) ? 1.0 : 0.0;
  }
  return s;
}

namespace {
double mean_of(const std::vector<double>& v) {
  return v.empty() ? std::numeric_limits<double>::quiet_NaN()
                   : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
}  // namespace

std::map<std::string, double> split_metrics(const PointScores& s) {
  return {{"rmse", std::sqrt(mean_of(s.squared_error))}, {"test_ll", mean_of(s.log_density)},
          {"lpd_mean", mean_of(s.log_density)},          {"se_mean", mean_of(s.squared_error)},
          {"coverage95", mean_of(s.covered95)},          {"crps", mean_of(s.crps)}};
}

const std::vector<MetricInfo>& metric_catalog() {
  static const std::vector<MetricInfo> catalog = {
      {"rmse", "test RMSE", false, true},
      {"test_ll", "test log-likelihood", false, true},
      {"lpd_mean", "LPD mean", true, true},
      {"lpd_std", "LPD std", true, false},
      {"lpd_p01", "LPD 1% percentile", true, false},
      {"se_mean", "SE mean", true, true},
      {"se_std", "SE std", true, false},
      {"se_p99", "SE 99% percentile", true, false},
      {"fit_seconds", "seconds per split (fit + predict)", false, false},
      {"cpu_seconds", "CPU seconds per split (fit + predict)", false, false},
      {"rel_time", "CPU time (fit + predict) relative to the reference method", false, false},
      {"coverage95", "95% interval coverage", false, true},
      {"crps", "CRPS", false, true},
      // from artifacts (gaussian-posterior)
      {"objective", "objective of the fit (log evidence or lower bound)", false, false},
      {"kl", "KL(Q||P) by quadrature", false, true},
      {"kl_fine", "KL(Q||P) on a grid twice as fine", false, false},
      {"q_mass", "Q's mass inside the quadrature box", false, false},
      {"log_marginal", "log p(D) by quadrature", false, false},
  };
  return catalog;
}

const MetricInfo* find_metric(const std::string& name) {
  for (const auto& m : metric_catalog())
    if (m.name == name) return &m;
  return nullptr;
}

double sample_std(const std::vector<double>& values) {
  if (values.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  const double m = mean_of(values);
  double ss = 0.0;
  for (double v : values) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(values.size() - 1));
}

Summary mean_and_se(const std::vector<double>& values) {
  Summary s;
  s.n = static_cast<int>(values.size());
  s.value = mean_of(values);
  s.se = values.size() < 2 ? std::numeric_limits<double>::quiet_NaN()
                           : sample_std(values) / std::sqrt(static_cast<double>(values.size()));
  return s;
}

double percentile(std::vector<double> values, double percent) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const auto n = static_cast<double>(values.size());
  const double position = percent / 100.0 * n + 0.5;  // 1-based rank
  if (position <= 1.0) return values.front();
  if (position >= n) return values.back();
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const double fraction = position - static_cast<double>(lower);
  return values[lower - 1] + fraction * (values[lower] - values[lower - 1]);
}

long count_non_finite(const PointScores& scores) {
  long count = 0;
  for (std::size_t i = 0; i < scores.log_density.size(); ++i)
    if (!std::isfinite(scores.log_density[i]) || !std::isfinite(scores.mean[i])) ++count;
  return count;
}

}  // namespace bnn::exp
