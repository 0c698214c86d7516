// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "laplace.hpp"

namespace bnn::laplace {

std::vector<MethodEntry> registry_entries() {
  std::vector<MethodEntry> entries;
  entries.push_back(quick(
      make_entry<Options>(
          "laplace",
          "Laplace approximation with MacKay's evidence framework (erf network, exact Hessian, linearized predictive)",
          fit, Options{}, {"gaussian-posterior"}),
      {{"hidden_units", "2"}}));
  entries.push_back(quick(
      make_entry<Options>(
          "laplace-diag",
          "Laplace approximation, evidence framework, diagonal Gauss-Newton Hessian (tanh, PBP's active-learning LA)",
          fit, diagonal_defaults(), {"gaussian-posterior"}),
      {{"hidden_units", "2"}}));
  return entries;
}

}  // namespace bnn::laplace
