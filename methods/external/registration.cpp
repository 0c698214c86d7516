// The registry entry of this folder's method (methods/registration.hpp). It is written out
// rather than made by make_entry: its options are JSON texts, and it fits for the point sets
// it will be asked to predict (registry.hpp, fit_for_points).
#include "methods/registration.hpp"
#include "external.hpp"

namespace bnn::external {

std::vector<MethodEntry> registry_entries() {
  MethodEntry entry;
  entry.name = "external";
  entry.summary = "a program in any language, run per job through methods/external/PROTOCOL.md";
  entry.options = {
      {"command", "text array", "", "the program and its arguments, run without a shell (required)", ""},
      {"settings", "table", "{}", "handed to the program verbatim", "{}"},
      {"timeout_seconds", "real", "3600", "wall-clock limit of one run; past it the job fails", "3600"},
      {std::string(kSpecFolderOption), "text", "",
       "where relative paths of the command are resolved (set from the spec's folder)", ""},
  };
  entry.canonical_config = [](const ParamMap& params) { return canonical_config(parse_options(params)); };
  entry.fit_for_points = [](const RegressionData& train, const ParamMap& params, Rng& rng,
                            const std::vector<const Eigen::MatrixXd*>& points) -> std::unique_ptr<bnn::Model> {
    return fit(train, parse_options(params), rng, points);
  };
  entry.fit = [](const RegressionData& train, const ParamMap& params, Rng& rng) -> std::unique_ptr<bnn::Model> {
    return fit(train, parse_options(params), rng, {});
  };
  // The registry-wide tests run it as the example Bayesian linear regression in Python.
  entry.quick_options =
      ParamMap{{"command", "[\"python3\", \"" BNNBENCH_SOURCE_FOLDER "/methods/external/examples/linear.py\"]"}};
  return {entry};
}

}  // namespace bnn::external
