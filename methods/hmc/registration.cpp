// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "hmc.hpp"

namespace bnn::hmc {

std::vector<MethodEntry> registry_entries() {
  const ParamMap quick_chains = {{"hidden_layers", "3"}, {"chains", "2"},      {"warmup", "20"},
                                 {"samples", "40"},      {"hyper_delay", "5"}, {"initial_optimization", "10"}};
  std::vector<MethodEntry> entries;
  entries.push_back(quick(
      make_entry<Options>(
          "nn-mc", "Neal's hierarchical Bayesian MLP (tanh, ARD) by HMC, precisions integrated out or Gibbs-updated",
          fit, Options{}, {"chain-traces"}),
      quick_chains));
  entries.push_back(
      quick(make_entry<Options>("hmc", "HMC as the PBP paper's reference: MCMCstuff's hierarchical MLP with ReLU units",
                                fit, relu_defaults(), {"chain-traces"}),
            quick_chains));
  return entries;
}

}  // namespace bnn::hmc
