// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "gp.hpp"

namespace bnn::gp {

std::vector<MethodEntry> registry_entries() {
  std::vector<MethodEntry> entries;
  entries.push_back(quick(
      make_entry<Options>("gp", "GP with the neural-network covariance, one shared input variance, type-II ML", fit),
      {}));
  Options ard;
  ard.ard = true;
  entries.push_back(
      quick(make_entry<Options>(
                "gp-ard", "GP with the neural-network covariance, one variance per input (ARD), type-II ML", fit, ard),
            {}));
  return entries;
}

}  // namespace bnn::gp
