// bnnbench list: argument parsing over report/listing.hpp.
#include <iostream>

#include "common.hpp"
#include "experiments/src/report/listing.hpp"

namespace bnn::cli {

int cmd_list(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string what;
  po::options_description options("bnnbench list options");
  // clang-format off
  options.add_options()("what", po::value(&what), "experiments, methods, datasets or artifacts");
  // clang-format on
  common.add_to(options);
  po::positional_options_description positional;
  positional.add("what", 1);
  parse(args, options, positional);
  if (common.help || what.empty()) {
    print_help("usage: bnnbench list experiments|methods|datasets|artifacts", options);
    return common.help ? 0 : 2;
  }
  if (what == "experiments")
    std::cout << exp::list_experiments();
  else if (what == "methods")
    std::cout << exp::list_methods();
  else if (what == "datasets")
    std::cout << exp::list_datasets(common.load_registry());
  else if (what == "artifacts")
    std::cout << exp::list_artifacts();
  else
    throw std::invalid_argument("list: '" + what + "' is not one of experiments, methods, datasets, artifacts");
  return 0;
}

}  // namespace bnn::cli
