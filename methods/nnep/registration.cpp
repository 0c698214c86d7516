// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "nnep.hpp"

namespace bnn::nnep {

std::vector<MethodEntry> registry_entries() {
  std::vector<MethodEntry> entries;
  entries.push_back(quick(
      make_entry<Options>(
          "nn-ep-la", "EP for a two-layer erf network, Laplace input-weight priors with one common scale (NN-EP-LA)",
          fit, laplace_defaults(), {"parameter-marginals"}),
      {{"hidden_units", "3"}, {"max_iterations", "5"}}));
  entries.push_back(
      quick(make_entry<Options>(
                "nn-ep-ard",
                "EP for a two-layer erf network, Gaussian ARD input-weight priors, one scale per input (NN-EP-ARD)",
                fit, ard_defaults(), {"parameter-marginals"}),
            {{"hidden_units", "3"}, {"max_iterations", "5"}}));
  return entries;
}

}  // namespace bnn::nnep
