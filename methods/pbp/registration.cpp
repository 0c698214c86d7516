// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "pbp.hpp"

namespace bnn::pbp {

std::vector<MethodEntry> registry_entries() {
  std::vector<MethodEntry> entries;
  entries.push_back(
      quick(make_entry<Options>("pbp", "probabilistic backpropagation (ADF + EP prior refinement, ReLU network)", fit),
            {{"epochs", "2"}}));
  return entries;
}

}  // namespace bnn::pbp
