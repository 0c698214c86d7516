#include "catalog.hpp"

#include <cstdio>

namespace bnn::data {

std::string dataset_table(const DatasetRegistry& registry, const std::string& data_dir) {
  std::string out = "data directory: " + data_dir + "\n\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-12s %-20s %8s %5s  %-12s %-8s %s\n", "name", "aliases", "n", "d", "source",
                "splits", "status");
  out += line;
  int present = 0, verified = 0;
  for (const auto& d : registry.all()) {
    std::string aliases;
    for (const auto& a : d.aliases) aliases += (aliases.empty() ? "" : ",") + a;
    if (aliases.size() > 20) aliases = aliases.substr(0, 17) + "...";
    const std::string splits = d.splits ? std::to_string(d.splits->count) + " publ." : "-";
    const DatasetStatus status = dataset_status(d, data_dir);
    present += status.present;
    verified += status.verified;
    std::string state = status.verified  ? "present, verified"
                        : status.present ? "present, NOT verified: " + status.detail
                                         : status.detail;
    if (d.is_synthetic()) state = "built in";
    std::snprintf(line, sizeof line, "%-12s %-20s %8ld %5ld  %-12s %-8s %s\n", d.name.c_str(), aliases.c_str(),
                  d.paper_n, d.paper_d, d.availability.c_str(), splits.c_str(), state.c_str());
    out += line;
  }
  out += "\nn and d as printed in the papers (kin40k: after the EP-NN protocol's subsample and added inputs).\n" +
         std::to_string(present) + " of " + std::to_string(registry.all().size()) + " present, " +
         std::to_string(verified) + " verified.\n";
  return out;
}

std::vector<std::string> fetch_datasets(const DatasetRegistry& registry, const std::vector<std::string>& names,
                                        const FetchOptions& options) {
  std::vector<const DatasetSpec*> targets;
  if (names.empty()) {
    for (const auto& d : registry.all())
      if (d.is_public()) targets.push_back(&d);
  } else {
    for (const auto& n : names) targets.push_back(&registry.find(n));
  }
  std::vector<std::string> failures;
  for (const auto* d : targets) {
    try {
      fetch_dataset(*d, options);
    } catch (const std::exception& e) {
      failures.push_back(e.what());
      options.log("error: " + std::string(e.what()));
    }
  }
  return failures;
}

}  // namespace bnn::data
