#pragma once
// Maps method names to implementations: the harness fits any method by name with options
// given as text (experiment spec, --set). A method folder makes its entries in its
// registration.cpp (methods/registration.hpp); registry.cpp lists the folders.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "methods/core/model.hpp"
#include "methods/core/options.hpp"
#include "methods/core/rng.hpp"

namespace bnn {

struct MethodEntry {
  std::string name;
  std::string summary;
  std::vector<OptionInfo> options;  // with defaults
  // The artifact kinds its models offer (core/model.hpp): "parameter-marginals",
  // "gaussian-posterior", "chain-traces".
  std::vector<std::string> artifacts;
  // Small settings under which a fit takes well under a second, for the registry-wide tests
  // (what each model offers, predictions on no rows); empty when the defaults are quick.
  std::optional<ParamMap> quick_options;
  // Canonical text of the full configuration after applying overrides (validates them).
  std::function<std::string(const ParamMap&)> canonical_config;
  std::function<std::unique_ptr<Model>(const RegressionData&, const ParamMap&, Rng&)> fit;
};

const std::vector<MethodEntry>& method_registry();
// Throws std::invalid_argument listing the known names when `name` is unknown.
const MethodEntry& find_method(std::string_view name);

}  // namespace bnn
