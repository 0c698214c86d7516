// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "ensemble.hpp"

namespace bnn::ensemble {

std::vector<MethodEntry> registry_entries() {
  std::vector<MethodEntry> entries;
  for (const char* form : {"full", "factor", "diagonal"}) {
    Options defaults;
    defaults.covariance = form;
    const std::string label = std::string(form) == "factor" ? "fa" : std::string(form).substr(0, 4);
    entries.push_back(
        quick(make_entry<Options>("vi-" + label,
                                  std::string("ensemble learning (Barber & Bishop 1998): Gaussian Q with ") + form +
                                      " covariance, erf network, exact bound, Gamma hyperpriors",
                                  fit, defaults, {"gaussian-posterior"}),
              {{"hidden_units", "2"}, {"iterations", "20"}}));
  }
  return entries;
}

}  // namespace bnn::ensemble
