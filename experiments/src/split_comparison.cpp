#include "split_comparison.hpp"

#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "csv.hpp"
#include "verify.hpp"

namespace bnn::exp {
namespace {

constexpr const char* kHeader = "dataset,method,config_hash,split,status,metric,value";

struct SplitJob {
  std::string status;
  std::map<std::string, std::string> values;  // metric -> value as written
};
// (dataset, method, config hash, split)
using JobId = std::tuple<std::string, std::string, std::string, int>;
using SplitTable = std::map<JobId, SplitJob>;

SplitTable read_split_table(const std::string& text, const std::string& name) {
  SplitTable table;
  std::istringstream in(text);
  std::string line;
  long number = 0;
  const auto where = [&] { return name + ", line " + std::to_string(number); };
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1) {
      if (line != kHeader)
        throw std::invalid_argument(where() + ": not a per-split table (expected the header " + kHeader +
                                    " of `report --format splits`)");
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> fields;
    try {
      fields = split_csv_line(line);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where() + ": " + e.what());
    }
    if (fields.size() != 7)
      throw std::invalid_argument(where() + ": " + std::to_string(fields.size()) + " fields, but a row has 7");
    char* end = nullptr;
    const long split = std::strtol(fields[3].c_str(), &end, 10);
    if (fields[3].empty() || *end != '\0' || split < 0)
      throw std::invalid_argument(where() + ", column 4: split '" + fields[3] + "' is not a non-negative integer");
    if (fields[6].empty() || (std::strtod(fields[6].c_str(), &end), *end != '\0'))
      throw std::invalid_argument(where() + ", column 7: non-numeric value '" + fields[6] + "'");
    SplitJob& job = table[{fields[0], fields[1], fields[2], static_cast<int>(split)}];
    job.status = fields[4];
    if (!job.values.emplace(fields[5], fields[6]).second)
      throw std::invalid_argument(where() + ": metric " + fields[5] + " appears twice for " + fields[0] + "/" +
                                  fields[1] + "/split " + fields[3]);
  }
  if (number == 0) throw std::invalid_argument(name + ": the file is empty");
  return table;
}

// "rmse@3" (an evaluation step of an active-learning job) is a timing when "rmse" is.
bool is_timing(const std::string& metric) { return is_timing_metric(metric.substr(0, metric.find('@'))); }

}  // namespace

bool is_split_table(const std::string& text) { return text.rfind(kHeader, 0) == 0; }

SplitComparison compare_split_tables(const std::string& ours, const std::string& theirs,
                                     const std::string& theirs_name, double tolerance) {
  const SplitTable mine = read_split_table(ours, "our store");
  const SplitTable published = read_split_table(theirs, theirs_name);
  std::set<std::tuple<std::string, std::string, int>> our_splits;
  for (const auto& [id, job] : mine) our_splits.insert({std::get<0>(id), std::get<1>(id), std::get<3>(id)});

  SplitComparison result;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  for (const auto& [id, job] : published) {
    const auto& [dataset, method, hash, split] = id;
    const auto it = mine.find(id);
    if (it == mine.end()) {
      ++result.not_rerun;
      if (our_splits.count({dataset, method, split})) ++result.other_configuration;
      continue;
    }
    ++result.jobs_compared;
    double worst = 0.0;
    const auto differ = [&](const std::string& metric, const std::string& our_value, const std::string& their_value,
                            double relative) {
      worst = std::max(worst, relative);
      if (relative > tolerance) result.differing.push_back({dataset, method, metric, split, our_value, their_value, relative});
    };
    if (it->second.status != job.status) differ("status", it->second.status, job.status, kInfinity);
    for (const auto& [metric, value] : job.values) {
      if (is_timing(metric)) continue;
      ++result.values_compared;
      const auto our = it->second.values.find(metric);
      if (our == it->second.values.end()) differ(metric, "", value, kInfinity);
      else
        differ(metric, our->second, value,
               relative_difference(std::strtod(our->second.c_str(), nullptr), std::strtod(value.c_str(), nullptr)));
    }
    if (worst == 0.0) ++result.jobs_identical;
    else if (worst <= tolerance) ++result.jobs_within;
    else ++result.jobs_differing;
  }
  for (const auto& [id, job] : mine)
    if (!published.count(id)) ++result.not_published;
  return result;
}

}  // namespace bnn::exp
