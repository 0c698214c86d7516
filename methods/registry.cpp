#include "registry.hpp"

#include <stdexcept>

#include "methods/linear/bayes_linear.hpp"

namespace bnn {
namespace {

// Builds a registry entry from an options struct and a fit function returning a model type.
template <class Options, class FitFunction>
MethodEntry make_entry(std::string name, std::string summary, FitFunction fit_function) {
  MethodEntry entry;
  entry.name = name;
  entry.summary = std::move(summary);
  entry.options = describe_options(Options{});
  entry.canonical_config = [name](const ParamMap& overrides) {
    Options options;
    apply_overrides(options, overrides, name);
    options.validate();
    return canonical_options(options);
  };
  entry.fit = [name, fit_function](const RegressionData& train, const ParamMap& overrides,
                                   Rng& rng) -> std::unique_ptr<Model> {
    Options options;
    apply_overrides(options, overrides, name);
    auto model = fit_function(train, options, rng);
    return std::make_unique<decltype(model)>(std::move(model));
  };
  return entry;
}

std::vector<MethodEntry> build_registry() {
  std::vector<MethodEntry> entries;
  entries.push_back(make_entry<linear::Options>(
      "linear", "exact Bayesian linear regression (Normal-Gamma prior, Student-t predictive)",
      linear::fit));
  return entries;
}

}  // namespace

const std::vector<MethodEntry>& method_registry() {
  static const std::vector<MethodEntry> registry = build_registry();
  return registry;
}

const MethodEntry& find_method(std::string_view name) {
  std::string known;
  for (const auto& entry : method_registry()) {
    if (entry.name == name) return entry;
    known += (known.empty() ? "" : ", ") + entry.name;
  }
  throw std::invalid_argument("unknown method '" + std::string(name) + "'; known methods: " + known);
}

}  // namespace bnn
