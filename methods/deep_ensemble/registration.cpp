// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "deep_ensemble.hpp"

namespace bnn::deep_ensemble {

std::vector<MethodEntry> registry_entries() {
  std::vector<MethodEntry> entries;
  entries.push_back(quick(
      make_entry<Options>(
          "deep-ensemble",
          "deep ensembles (Lakshminarayanan et al. 2017): 5 mean-variance ReLU networks by Adam, mixture predictive",
          fit),
      {{"members", "2"}, {"hidden_units", "3"}, {"epochs", "2"}}));
  return entries;
}

}  // namespace bnn::deep_ensemble
