#pragma once
// Convergence diagnostics of Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021),
// "Rank-normalization, folding, and localization: an improved R-hat": chains are split in
// halves, draws are rank-normalized over all chains, R-hat is the larger of the bulk and
// the folded (tail-of-|x - median|) value, and the bulk effective sample size uses the
// multi-chain autocorrelation with Geyer's initial monotone sequence.
#include <vector>

namespace bnn::hmc {

using Chains = std::vector<std::vector<double>>;  // chains x draws, equal lengths

// Classic potential scale reduction of the given sequences (no splitting, no ranks).
double basic_rhat(const Chains& sequences);
// Effective sample size of the given sequences (no splitting, no ranks).
double basic_ess(const Chains& sequences);

// Each chain cut into two halves (the middle draw of an odd chain is dropped).
Chains split_chains(const Chains& chains);
// Normal scores of the pooled ranks: Phi^-1((r - 3/8) / (S + 1/4)), average rank for ties.
Chains rank_normalize(const Chains& chains);

// Rank-normalized split R-hat: max(bulk, folded). NaN if fewer than 4 draws per chain.
double split_rhat(const Chains& chains);
// Bulk effective sample size: ESS of the rank-normalized split chains.
double ess_bulk(const Chains& chains);

}  // namespace bnn::hmc
