// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "vi.hpp"

namespace bnn::vi {

std::vector<MethodEntry> registry_entries() {
  std::vector<MethodEntry> entries;
  entries.push_back(
      quick(make_entry<Options>(
                "vi", "variational inference (factorized Gaussian, Monte Carlo bound, SGD; Graves 2011 style)", fit),
            {{"epochs", "2"}, {"tune", "false"}}));
  return entries;
}

}  // namespace bnn::vi
