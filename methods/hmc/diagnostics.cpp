#include "diagnostics.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <numeric>

namespace bnn::hmc {
namespace {

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double variance_of(const std::vector<double>& v, double mean) {
  double s = 0.0;
  for (double x : v) s += (x - mean) * (x - mean);
  return s / static_cast<double>(v.size() - 1);
}

bool usable(const Chains& c) {
  if (c.empty() || c.front().size() < 2) return false;
  for (const auto& chain : c)
    if (chain.size() != c.front().size()) return false;
  return true;
}

// Autocovariance of one chain at `lag` (biased estimator, divides by n, as in Stan).
double autocovariance(const std::vector<double>& x, double mean, std::size_t lag) {
  double s = 0.0;
  for (std::size_t i = 0; i + lag < x.size(); ++i) s += (x[i] - mean) * (x[i + lag] - mean);
  return s / static_cast<double>(x.size());
}

}  // namespace

namespace {

// Per-chain means, the mean within-chain variance W and var+ = (n-1)/n W + Var(chain means)
// (Vehtari et al. 2021, eqs. 3-4).
struct ChainMoments {
  std::vector<double> means;
  double within = 0.0, var_plus = 0.0;
};

ChainMoments chain_moments(const Chains& c) {
  ChainMoments out;
  const double n = static_cast<double>(c.front().size());
  std::vector<double> variances;
  for (const auto& chain : c) {
    out.means.push_back(mean_of(chain));
    variances.push_back(variance_of(chain, out.means.back()));
  }
  out.within = mean_of(variances);
  out.var_plus = (n - 1.0) / n * out.within;
  if (c.size() > 1) {
    const double grand = mean_of(out.means);
    double spread = 0.0;
    for (double mu : out.means) spread += (mu - grand) * (mu - grand);
    out.var_plus += spread / static_cast<double>(c.size() - 1);
  }
  return out;
}

}  // namespace

double basic_rhat(const Chains& c) {
  if (!usable(c)) return std::numeric_limits<double>::quiet_NaN();
  const ChainMoments cm = chain_moments(c);
  if (cm.within <= 0.0) return cm.var_plus > 0.0 ? std::numeric_limits<double>::infinity() : 1.0;
  return std::sqrt(cm.var_plus / cm.within);
}

double basic_ess(const Chains& c) {
  if (!usable(c)) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t n = c.front().size();
  const double nd = static_cast<double>(n);
  const double m = static_cast<double>(c.size());
  const ChainMoments cm = chain_moments(c);
  const std::vector<double>& means = cm.means;
  const double within = cm.within, var_plus = cm.var_plus;
  if (!(var_plus > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  // rho_t = 1 - (W - mean_chains(acov_t)) / var_plus (Vehtari et al. 2021, eq. 10); rho_0 = 1.
  const auto rho = [&](std::size_t lag) {
    if (lag == 0) return 1.0;
    double acov = 0.0;
    for (std::size_t k = 0; k < c.size(); ++k) acov += autocovariance(c[k], means[k], lag);
    acov /= m;
    return 1.0 - (within - acov) / var_plus;
  };
  // Geyer's initial positive sequence of pair sums P_k = rho_2k + rho_2k+1, made monotone.
  double tau = -1.0;  // tau = -1 + 2 sum_k P_k
  double previous_pair = std::numeric_limits<double>::infinity();
  for (std::size_t t = 0; t + 1 < n; t += 2) {
    double pair = rho(t) + rho(t + 1);
    if (pair < 0.0) break;
    pair = std::min(pair, previous_pair);
    previous_pair = pair;
    tau += 2.0 * pair;
  }
  tau = std::max(tau, 1.0 / std::log10(m * nd));  // as Stan bounds it for antithetic chains
  return m * nd / tau;
}

Chains split_chains(const Chains& chains) {
  Chains out;
  for (const auto& chain : chains) {
    const std::size_t half = chain.size() / 2;
    out.emplace_back(chain.begin(), chain.begin() + static_cast<std::ptrdiff_t>(half));
    out.emplace_back(chain.end() - static_cast<std::ptrdiff_t>(half), chain.end());
  }
  return out;
}

Chains rank_normalize(const Chains& chains) {
  std::vector<std::pair<double, std::size_t>> pooled;
  for (std::size_t k = 0; k < chains.size(); ++k)
    for (std::size_t i = 0; i < chains[k].size(); ++i) pooled.emplace_back(chains[k][i], k * chains[0].size() + i);
  std::sort(pooled.begin(), pooled.end());
  const double S = static_cast<double>(pooled.size());
  std::vector<double> z(pooled.size());
  const boost::math::normal standard;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double rank = 0.5 * static_cast<double>(i + 1 + j);  // average of ranks i+1..j
    const double score = boost::math::quantile(standard, (rank - 0.375) / (S + 0.25));
    for (std::size_t k = i; k < j; ++k) z[pooled[k].second] = score;
    i = j;
  }
  Chains out = chains;
  for (std::size_t k = 0; k < chains.size(); ++k)
    for (std::size_t i = 0; i < chains[k].size(); ++i) out[k][i] = z[k * chains[0].size() + i];
  return out;
}

double split_rhat(const Chains& chains) {
  if (!usable(chains) || chains.front().size() < 4) return std::numeric_limits<double>::quiet_NaN();
  const Chains split = split_chains(chains);
  const double bulk = basic_rhat(rank_normalize(split));
  std::vector<double> all;
  for (const auto& c : split) all.insert(all.end(), c.begin(), c.end());
  std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(all.size() / 2), all.end());
  const double median = all[all.size() / 2];
  Chains folded = split;
  for (auto& c : folded)
    for (double& x : c) x = std::abs(x - median);
  const double tail = basic_rhat(rank_normalize(folded));
  return std::max(bulk, tail);
}

double ess_bulk(const Chains& chains) {
  if (!usable(chains) || chains.front().size() < 4) return std::numeric_limits<double>::quiet_NaN();
  return basic_ess(rank_normalize(split_chains(chains)));
}

}  // namespace bnn::hmc
