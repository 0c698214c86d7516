#include <filesystem>
#include <iostream>

#include "common.hpp"
#include "experiments/src/spec/spec.hpp"
#include "methods/registry.hpp"

namespace bnn::cli {

namespace {
void list_datasets(const data::DatasetRegistry& registry) {
  for (const auto& d : registry.all()) {
    std::cout << d.name;
    if (!d.aliases.empty()) {
      std::cout << " (";
      for (std::size_t i = 0; i < d.aliases.size(); ++i) std::cout << (i ? ", " : "") << d.aliases[i];
      std::cout << ")";
    }
    std::cout << " — " << d.title << " [" << d.availability << "]\n";
  }
}
}  // namespace

int cmd_list(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string what;
  po::options_description options("bnnbench list options");
  options.add_options()("what", po::value(&what), "experiments, methods or datasets");
  common.add_to(options);
  po::positional_options_description positional;
  positional.add("what", 1);
  parse(args, options, positional);
  if (common.help || what.empty()) {
    print_help("usage: bnnbench list experiments|methods|datasets", options);
    return common.help ? 0 : 2;
  }
  if (what == "experiments") {
    for (const auto& file : exp::experiment_files()) {
      const exp::ExperimentSpec spec = exp::load_experiment(file);
      std::cout << spec.name << " — " << spec.title << "\n";
    }
  } else if (what == "methods") {
    for (const auto& m : method_registry()) {
      std::cout << m.name << " — " << m.summary << "\n";
      for (const auto& o : m.options)
        std::cout << "    " << o.name << " = " << o.default_value << "  (" << o.type << ") " << o.help << "\n";
    }
  } else if (what == "datasets") {
    list_datasets(common.load_registry());
  } else {
    throw std::invalid_argument("list: '" + what + "' is not one of experiments, methods, datasets");
  }
  return 0;
}

}  // namespace bnn::cli
