#include "registry.hpp"

#include <stdexcept>

namespace bnn {

// Each method folder's registration.cpp (methods/registration.hpp); the order is `list methods`'.
// clang-format off
namespace linear { std::vector<MethodEntry> registry_entries(); }
namespace gp { std::vector<MethodEntry> registry_entries(); }
namespace pbp { std::vector<MethodEntry> registry_entries(); }
namespace bp { std::vector<MethodEntry> registry_entries(); }
namespace vi { std::vector<MethodEntry> registry_entries(); }
namespace hmc { std::vector<MethodEntry> registry_entries(); }
namespace ensemble { std::vector<MethodEntry> registry_entries(); }
namespace nnep { std::vector<MethodEntry> registry_entries(); }
namespace laplace { std::vector<MethodEntry> registry_entries(); }
namespace mc_dropout { std::vector<MethodEntry> registry_entries(); }
namespace deep_ensemble { std::vector<MethodEntry> registry_entries(); }
namespace external { std::vector<MethodEntry> registry_entries(); }
// clang-format on

namespace {

std::vector<MethodEntry> build_registry() {
  std::vector<MethodEntry> entries;
  for (const auto& folder : {linear::registry_entries, gp::registry_entries, pbp::registry_entries,
                             bp::registry_entries, vi::registry_entries, hmc::registry_entries,
                             ensemble::registry_entries, nnep::registry_entries, laplace::registry_entries,
                             mc_dropout::registry_entries, deep_ensemble::registry_entries, external::registry_entries})
    for (MethodEntry& entry : folder()) entries.push_back(std::move(entry));
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
