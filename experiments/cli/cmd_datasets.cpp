// bnnbench datasets: argument parsing over datasets/src/catalog.hpp.
#include <iostream>

#include "common.hpp"
#include "datasets/src/catalog.hpp"

namespace bnn::cli {

namespace {

int datasets_fetch(const CommonOptions& common, const std::string& from, const std::vector<std::string>& names) {
  data::FetchOptions options;
  options.data_dir = common.resolved_data_dir();
  options.from = from;
  options.log = [](const std::string& line) { std::cerr << line << "\n"; };
  const data::FetchOutcome outcome = data::fetch_datasets(common.load_registry(), names, options);
  std::cerr << "data directory: " << options.data_dir << "\n";
  if (!outcome.not_at_source.empty()) {
    std::cerr << outcome.not_at_source.size() << " data set(s) not at the source" << (from.empty() ? "" : " " + from)
              << " (fetch them by name from elsewhere when needed):\n";
    for (const auto& f : outcome.not_at_source) std::cerr << "  " << f << "\n";
  }
  if (outcome.failed.empty()) return 0;
  std::cerr << outcome.failed.size() << " data set(s) could not be fetched:\n";
  for (const auto& f : outcome.failed) std::cerr << "  " << f << "\n";
  return 1;
}

}  // namespace

int cmd_datasets(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string action, from;
  std::vector<std::string> names;
  po::options_description options("bnnbench datasets options");
  // clang-format off
  options.add_options()
      ("action", po::value(&action), "list or fetch")
      ("names", po::value(&names)->composing(), "data sets to fetch (default: every public one)")
      ("from", po::value(&from), "fetch from a local mirror folder or mirror URL (layout FOLDER/FILE) instead of the registry URLs");
  // clang-format on
  common.add_to(options);
  po::positional_options_description positional;
  positional.add("action", 1).add("names", -1);
  parse(args, options, positional);
  if (common.help || action.empty()) {
    print_help(
        "usage: bnnbench datasets list\n       bnnbench datasets fetch [--from DIR|URL] [NAME...]\n\n"
        "fetch verifies every file's sha256 before it is moved into the data directory, and\n"
        "builds derived tables (e.g. the 1993 x 102 Crime table) from the original files.",
        options);
    return common.help ? 0 : 2;
  }
  if (action == "list") {
    if (!names.empty()) throw po::error("datasets list takes no names");
    std::cout << data::dataset_table(common.load_registry(), common.resolved_data_dir());
    return 0;
  }
  if (action == "fetch") return datasets_fetch(common, from, names);
  throw std::invalid_argument("datasets: unknown action '" + action + "' (list or fetch)");
}

}  // namespace bnn::cli
