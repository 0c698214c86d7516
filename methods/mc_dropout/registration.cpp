// The registry entries of this folder's method (methods/registration.hpp).
#include "methods/registration.hpp"
#include "mc_dropout.hpp"

namespace bnn::mc_dropout {

std::vector<MethodEntry> registry_entries() {
  std::vector<MethodEntry> entries;
  entries.push_back(quick(
      make_entry<Options>(
          "mc-dropout",
          "MC dropout (Gal & Ghahramani 2016): ReLU network, dropout p and precision tau by grid search, T passes",
          fit),
      {{"hidden_units", "3"}, {"epochs", "2"}, {"taus", "1"}, {"samples", "5"}}));
  return entries;
}

}  // namespace bnn::mc_dropout
