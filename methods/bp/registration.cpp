// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "bp.hpp"

namespace bnn::bp {

std::vector<MethodEntry> registry_entries() {
  std::vector<MethodEntry> entries;
  entries.push_back(
      quick(make_entry<Options>(
                "bp", "backpropagation: SGD with momentum and weight decay, tuned by Bayesian optimization", fit),
            {{"epochs", "2"}, {"tune", "false"}}));
  return entries;
}

}  // namespace bnn::bp
