// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "linear.hpp"

namespace bnn::linear {

std::vector<MethodEntry> registry_entries() {
  std::vector<MethodEntry> entries;
  entries.push_back(quick(
      make_entry<Options>("linear", "exact Bayesian linear regression (Normal-Gamma prior, Student-t predictive)", fit),
      {}));
  return entries;
}

}  // namespace bnn::linear
