#include <cstdio>
#include <iostream>

#include "common.hpp"
#include "datasets/src/fetch.hpp"

namespace bnn::cli {

namespace {

int datasets_list(const CommonOptions& common) {
  const data::DatasetRegistry registry = common.load_registry();
  const std::string dir = common.resolved_data_dir();
  std::cout << "data directory: " << dir << "\n\n";
  std::printf("%-12s %-20s %8s %5s  %-12s %-8s %s\n", "name", "aliases", "n", "d", "source", "splits", "status");
  int present = 0, verified = 0;
  for (const auto& d : registry.all()) {
    std::string aliases;
    for (const auto& a : d.aliases) aliases += (aliases.empty() ? "" : ",") + a;
    if (aliases.size() > 20) aliases = aliases.substr(0, 17) + "...";
    const std::string splits = d.splits ? std::to_string(d.splits->count) + " publ." : "-";
    const data::DatasetStatus status = data::dataset_status(d, dir);
    present += status.present;
    verified += status.verified;
    std::string state = status.verified ? "present, verified" : status.present ? "present, NOT verified: " + status.detail : status.detail;
    if (d.is_synthetic()) state = "built in";
    std::printf("%-12s %-20s %8ld %5ld  %-12s %-8s %s\n", d.name.c_str(), aliases.c_str(), d.paper_n, d.paper_d,
                d.availability.c_str(), splits.c_str(), state.c_str());
  }
  std::cout << "\nn and d as printed in the papers (kin40k: after the EP-NN protocol's subsample and added inputs).\n"
            << present << " of " << registry.all().size() << " present, " << verified << " verified.\n";
  return 0;
}

int datasets_fetch(const CommonOptions& common, const std::string& from, const std::vector<std::string>& names) {
  const data::DatasetRegistry registry = common.load_registry();
  data::FetchOptions options;
  options.data_dir = common.resolved_data_dir();
  options.from = from;
  options.log = [](const std::string& line) { std::cerr << line << "\n"; };
  std::vector<const data::DatasetSpec*> targets;
  if (names.empty()) {
    for (const auto& d : registry.all())
      if (d.is_public()) targets.push_back(&d);
  } else {
    for (const auto& n : names) targets.push_back(&registry.find(n));
  }
  std::vector<std::string> failures;
  for (const auto* d : targets) {
    try {
      data::fetch_dataset(*d, options);
    } catch (const std::exception& e) {
      failures.push_back(e.what());
      std::cerr << "error: " << e.what() << "\n";
    }
  }
  std::cerr << "data directory: " << options.data_dir << "\n";
  if (!failures.empty()) {
    std::cerr << failures.size() << " of " << targets.size() << " data set(s) could not be fetched:\n";
    for (const auto& f : failures) std::cerr << "  " << f << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int cmd_datasets(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string action, from;
  std::vector<std::string> names;
  po::options_description options("bnnbench datasets options");
  options.add_options()
      ("action", po::value(&action), "list or fetch")
      ("names", po::value(&names)->composing(), "data sets to fetch (default: every public one)")
      ("from", po::value(&from), "fetch from a local mirror folder or mirror URL (layout FOLDER/FILE) instead of the registry URLs");
  common.add_to(options);
  po::positional_options_description positional;
  positional.add("action", 1).add("names", -1);
  parse(args, options, positional);
  if (common.help || action.empty()) {
    print_help("usage: bnnbench datasets list\n       bnnbench datasets fetch [--from DIR|URL] [NAME...]\n\n"
               "fetch verifies every file's sha256 before it is moved into the data directory, and\n"
               "builds derived tables (e.g. the 1993 x 102 Crime table) from the original files.",
               options);
    return common.help ? 0 : 2;
  }
  if (action == "list") {
    if (!names.empty()) throw po::error("datasets list takes no names");
    return datasets_list(common);
  }
  if (action == "fetch") return datasets_fetch(common, from, names);
  throw std::invalid_argument("datasets: unknown action '" + action + "' (list or fetch)");
}

}  // namespace bnn::cli
