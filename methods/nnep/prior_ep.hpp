#pragma once
// EP on the prior terms (Appendix F, internal to methods/nnep): the truncated Student-t priors of
// the output weights (line 8 of Algorithm 1) and the hierarchical input-weight priors (line 1).
#include <vector>

#include "ep_state.hpp"

namespace bnn::nnep {

// Line 8: EP on the truncated Student-t priors (5) of v_1..v_K with sequential rank-one updates
// of q(v), until the sites stop moving or `sweeps` are used. Returns the largest last change.
double output_prior_ep(const Options& o, int sweeps, Sites& sites, Approximation& q);
// Line 1: EP on the hierarchical input-weight priors p(w_j | phi_l), sequential over the
// weights, with rank-one updates of q(w_k) (eq. (66)) and scalar updates of q(phi_l).
double input_prior_ep(const std::vector<int>& group, const Options& o, int sweeps, Sites& sites, Approximation& q);

}  // namespace bnn::nnep
