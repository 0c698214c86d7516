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

// An option the spec loader fills with the spec's folder for a method that declares it (one
// that runs files named relative to the spec: external).
inline constexpr std::string_view kSpecFolderOption = "spec_folder";

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
  // Set for a method that fits and predicts in one run of something costly to start (an
  // external program): fit told the point sets it will be asked to predict, so that one run
  // answers them all; predict() on any other points runs it again. Empty for the others.
  std::function<std::unique_ptr<Model>(const RegressionData&, const ParamMap&, Rng&,
                                       const std::vector<const Eigen::MatrixXd*>& points_to_predict)>
      fit_for_points;
};

const std::vector<MethodEntry>& method_registry();
// Throws std::invalid_argument listing the known names when `name` is unknown.
const MethodEntry& find_method(std::string_view name);

}  // namespace bnn
