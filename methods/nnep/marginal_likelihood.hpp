#pragma once
// The EP marginal-likelihood estimate log Z_EP of Appendix I, eq. (69) (internal to methods/nnep).
#include <vector>

#include "ep_state.hpp"
#include "likelihood_tilted.hpp"

namespace bnn::nnep {

// Eq. (69) at the current sites. Prior terms whose EP never ran (their sites are still the
// fixed Gaussians of section 3.5.3) count as exact Gaussian priors: their normalized densities
// replace lines 4-5 of (69). NaN if a cavity is improper.
double log_marginal_likelihood(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Options& o,
                               const std::vector<HiddenUnit>& activations, const std::vector<int>& group,
                               bool theta_learned, bool input_prior_ran, bool output_prior_ran, const Sites& sites,
                               const Approximation& q, LikelihoodWorkspace& workspace);

}  // namespace bnn::nnep
