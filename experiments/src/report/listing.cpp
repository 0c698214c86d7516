#include "experiments/src/report/listing.hpp"

#include <algorithm>

#include "experiments/src/spec/artifact_kinds.hpp"
#include "experiments/src/spec/spec.hpp"
#include "methods/registry.hpp"

namespace bnn::exp {

std::string list_experiments() {
  std::string out;
  for (const auto& file : experiment_files()) {
    const ExperimentSpec spec = load_experiment(file);
    out += spec.name + " — " + spec.title + "\n";
  }
  return out;
}

std::string list_methods() {
  std::string out;
  for (const auto& m : method_registry()) {
    out += m.name + " — " + m.summary + "\n";
    for (const auto& o : m.options)
      out += "    " + o.name + " = " + o.default_value + "  (" + o.type + ") " + o.help + "\n";
    if (!m.artifacts.empty()) {
      out += "    artifacts:";
      for (const auto& a : m.artifacts) out += " " + a;
      out += "\n";
    }
  }
  return out;
}

std::string list_datasets(const data::DatasetRegistry& registry) {
  std::string out;
  for (const auto& d : registry.all()) {
    out += d.name;
    if (!d.aliases.empty()) {
      out += " (";
      for (std::size_t i = 0; i < d.aliases.size(); ++i) out += (i ? ", " : "") + d.aliases[i];
      out += ")";
    }
    out += " — " + d.title + " [" + d.availability + "]\n";
  }
  return out;
}

std::string list_artifacts() {
  std::string out;
  for (const auto& kind : artifact_kinds()) {
    out += kind.name + " — " + kind.summary + "\n    tables:";
    for (const auto& t : kind.tables) out += " " + t + ".csv";
    out += "\n    offered by:";
    for (const auto& m : method_registry())
      if (std::find(m.artifacts.begin(), m.artifacts.end(), kind.name) != m.artifacts.end()) out += " " + m.name;
    out += "\n";
  }
  return out;
}

}  // namespace bnn::exp
