#pragma once
// What a method folder's registration.cpp uses to make its registry entries: an entry built from
// an options struct and a fit function, and the quick options the registry-wide tests run it
// under. A folder registers one name, or variants of one method with other defaults (say so in
// the method's header).
#include <string>
#include <utility>
#include <vector>

#include "methods/registry.hpp"

namespace bnn {

// An entry from an options struct and a fit function returning a model type. `defaults` are
// the options before any override (one options type may serve several names).
template <class Options, class FitFunction>
MethodEntry make_entry(std::string name, std::string summary, FitFunction fit_function, Options defaults = {},
                       std::vector<std::string> artifacts = {}) {
  MethodEntry entry;
  entry.name = name;
  entry.summary = std::move(summary);
  entry.artifacts = std::move(artifacts);
  entry.options = describe_options(defaults);
  entry.canonical_config = [name, defaults](const ParamMap& overrides) {
    Options options = defaults;
    apply_overrides(options, overrides, name);
    return canonical_options(*Validated<Options>(options, name));
  };
  entry.fit = [name, fit_function, defaults](const RegressionData& train, const ParamMap& overrides,
                                             Rng& rng) -> std::unique_ptr<Model> {
    Options options = defaults;
    apply_overrides(options, overrides, name);
    auto model = fit_function(train, Validated<Options>(options, name), rng);  // validated once, here
    return std::make_unique<decltype(model)>(std::move(model));
  };
  return entry;
}

// An entry with its quick test options (registry.hpp): settings under which a fit takes well
// under a second ({} when the defaults are quick).
inline MethodEntry quick(MethodEntry entry, ParamMap options) {
  entry.quick_options = std::move(options);
  return entry;
}

}  // namespace bnn
