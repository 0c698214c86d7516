#pragma once
// `bnnbench list`: what the harness offers, one entry per line.
#include <string>

#include "datasets/src/registry.hpp"

namespace bnn::exp {

std::string list_experiments();  // every shipped spec: name and title
std::string list_methods();      // every method with its options, their types and defaults, and its artifacts
std::string list_datasets(const data::DatasetRegistry& registry);  // name, aliases, title, availability
std::string list_artifacts();  // every artifact kind a spec can ask for, and the methods that offer it

}  // namespace bnn::exp
