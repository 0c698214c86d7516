#include "catalog.hpp"

#include <cstdio>

#include "load.hpp"

namespace bnn::data {

std::string dataset_table(const DatasetRegistry& registry, const std::string& data_dir) {
  std::string out = "data directory: " + data_dir + "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-12s %-20s %7s %5s  %-12s  %-12s %-8s %s\n", "name", "aliases", "rows", "inputs",
                "paper n x d", "source", "splits", "status");
  out += line;
  int present = 0, loadable = 0;
  for (const auto& d : registry.all()) {
    std::string aliases;
    for (const auto& a : d.aliases) aliases += (aliases.empty() ? "" : ",") + a;
    if (aliases.size() > 20) aliases = aliases.substr(0, 17) + "...";
    const std::string splits = d.splits ? std::to_string(d.splits->count) + " publ." : "-";
    const std::string paper = d.paper_n > 0 ? std::to_string(d.paper_n) + " x " + std::to_string(d.paper_d) : "-";
    std::string rows = "-", inputs = "-", state;
    // A table counts as usable only when it loads (the checksum says nothing about the columns).
    const auto try_load = [&] {
      try {
        const Dataset data = load_dataset(d, data_dir);
        rows = std::to_string(data.X.rows());
        inputs = std::to_string(data.X.cols());
        ++loadable;
        return std::string();
      } catch (const std::exception& e) {
        return std::string(e.what());
      }
    };
    if (d.is_synthetic()) {
      const std::string error = try_load();
      state = error.empty() ? "built in" : "built in, does not load: " + error;
    } else {
      const DatasetStatus status = dataset_status(d, data_dir);
      present += status.present;
      if (!status.present) {
        state = status.detail;
      } else if (!status.verified && status.detail.find("mismatch") != std::string::npos) {
        state = "present, NOT verified: " + status.detail;
      } else {
        const std::string error = try_load();
        state = status.verified ? "present, verified" : status.detail;
        if (!error.empty()) state += ", does NOT load: " + error;
      }
    }
    std::snprintf(line, sizeof line, "%-12s %-20s %7s %5s  %-12s  %-12s %-8s ", d.name.c_str(), aliases.c_str(),
                  rows.c_str(), inputs.c_str(), paper.c_str(), d.availability.c_str(), splits.c_str());
    out += line + state + "\n";
  }
  out +=
      "\nrows and inputs: the table as loaded here (categorical columns one-hot, rows with missing values dropped "
      "where the entry says so); paper n x d: as printed in the papers (kin40k: after the EP-NN protocol's subsample "
      "and added inputs).\n" +
      std::to_string(present) + " of " + std::to_string(registry.all().size()) + " present, " +
      std::to_string(loadable) + " load.\n";
  return out;
}

FetchOutcome fetch_datasets(const DatasetRegistry& registry, const std::vector<std::string>& names,
                            const FetchOptions& options) {
  std::vector<const DatasetSpec*> targets;
  if (names.empty()) {
    for (const auto& d : registry.all())
      if (d.is_public()) targets.push_back(&d);
  } else {
    for (const auto& n : names) targets.push_back(&registry.find(n));
  }
  FetchOutcome out;
  for (const auto* d : targets) {
    try {
      fetch_dataset(*d, options);
    } catch (const SourceMissing& e) {
      if (!names.empty()) {
        out.failed.push_back(e.what());
        options.log("error: " + std::string(e.what()));
      } else {
        out.not_at_source.push_back(e.what());
      }
    } catch (const std::exception& e) {
      out.failed.push_back(e.what());
      options.log("error: " + std::string(e.what()));
    }
  }
  return out;
}

}  // namespace bnn::data
