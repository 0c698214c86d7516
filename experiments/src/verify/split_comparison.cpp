#include "experiments/src/verify/split_comparison.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "experiments/src/io/csv.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/verify/verify.hpp"

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
  const std::vector<CsvRow> rows = csv_rows(text, name);
  if (rows.empty()) throw std::invalid_argument(name + ": the file is empty");
  if (rows.front().line != 1 || rows.front().text != kHeader)
    throw std::invalid_argument(name + ", line 1: not a per-split table (expected the header " + kHeader +
                                " of `report --format splits`)");
  SplitTable table;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const std::vector<std::string>& fields = rows[r].fields;
    const std::string& where = rows[r].where;
    if (fields.size() != 7)
      throw std::invalid_argument(where + ": " + std::to_string(fields.size()) + " fields, but a row has 7");
    char* end = nullptr;
    const long split = std::strtol(fields[3].c_str(), &end, 10);
    if (fields[3].empty() || *end != '\0' || split < 0)
      throw std::invalid_argument(where + ", column 4: split '" + fields[3] + "' is not a non-negative integer");
    if (fields[6].empty() || (std::strtod(fields[6].c_str(), &end), *end != '\0'))
      throw std::invalid_argument(where + ", column 7: non-numeric value '" + fields[6] + "'");
    SplitJob& job = table[{fields[0], fields[1], fields[2], static_cast<int>(split)}];
    job.status = fields[4];
    if (!job.values.emplace(fields[5], fields[6]).second)
      throw std::invalid_argument(where + ": metric " + fields[5] + " appears twice for " + fields[0] + "/" +
                                  fields[1] + "/split " + fields[3]);
  }
  return table;
}

// "rmse@3" (an evaluation step of an active-learning job) is a timing when "rmse" is.
bool is_timing(const std::string& metric) { return is_timing_metric(metric.substr(0, metric.find('@'))); }

}  // namespace

bool is_split_table(const std::string& text) { return text.rfind(kHeader, 0) == 0; }

SplitComparison compare_split_tables(const std::string& ours, const std::string& theirs, const std::string& theirs_name,
                                     double tolerance, const EquivalentConfiguration& equivalent) {
  const SplitTable mine = read_split_table(ours, "our store");
  const SplitTable published = read_split_table(theirs, theirs_name);
  std::set<std::tuple<std::string, std::string, int>> our_splits;
  for (const auto& [id, job] : mine) our_splits.insert({std::get<0>(id), std::get<1>(id), std::get<3>(id)});

  SplitComparison result;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  for (const auto& [id, job] : published) {
    const auto& [dataset, method, hash, split] = id;
    auto it = mine.find(id);
    bool older = false;
    if (it == mine.end() && equivalent && our_splits.count({dataset, method, split})) {
      for (auto c = mine.lower_bound({dataset, method, "", 0}); c != mine.end(); ++c) {
        const auto& [our_dataset, our_method, our_hash, our_split] = c->first;
        if (our_dataset != dataset || our_method != method) break;
        if (our_split == split && equivalent(hash, our_hash)) {
          it = c;
          older = true;
          break;
        }
      }
    }
    if (it == mine.end()) {
      ++result.not_rerun;
      if (our_splits.count({dataset, method, split})) ++result.other_configuration;
      continue;
    }
    ++result.jobs_compared;
    if (older) ++result.jobs_older;
    double worst = 0.0;
    const auto differ = [&](const std::string& metric, const std::string& our_value, const std::string& their_value,
                            double relative) {
      worst = std::max(worst, relative);
      if (relative > tolerance)
        result.differing.push_back({dataset, method, metric, split, our_value, their_value, relative});
    };
    if (it->second.status != job.status) differ("status", it->second.status, job.status, kInfinity);
    for (const auto& [metric, value] : job.values) {
      if (is_timing(metric)) continue;
      ++result.values_compared;
      const auto our = it->second.values.find(metric);
      if (our == it->second.values.end())
        differ(metric, "", value, kInfinity);
      else
        differ(metric, our->second, value,
               relative_difference(std::strtod(our->second.c_str(), nullptr), std::strtod(value.c_str(), nullptr)));
    }
    if (worst == 0.0)
      ++result.jobs_identical;
    else if (worst <= tolerance)
      ++result.jobs_within;
    else
      ++result.jobs_differing;
  }
  for (const auto& [id, job] : mine)
    if (!published.count(id)) ++result.not_published;
  return result;
}

std::set<std::tuple<std::string, std::string, int>> finished_split_jobs(const std::string& text,
                                                                        const std::string& name) {
  std::set<std::tuple<std::string, std::string, int>> jobs;
  for (const auto& [id, job] : read_split_table(text, name))
    if (job.status == "ok") jobs.insert({std::get<0>(id), std::get<1>(id), std::get<3>(id)});
  return jobs;
}

EquivalentConfiguration older_configuration_rule(std::map<std::string, std::string> published_configs,
                                                 std::map<std::string, std::string> our_configs) {
  return [published = std::move(published_configs), ours = std::move(our_configs)](const std::string& published_hash,
                                                                                   const std::string& our_hash) {
    const auto a = published.find(published_hash);
    const auto b = ours.find(our_hash);
    return a != published.end() && b != ours.end() &&
           compare_config(a->second, b->second).match != ConfigMatch::different;
  };
}

std::map<std::string, std::string> read_job_configs(const std::string& text, const std::string& name) {
  std::map<std::string, std::string> configs;
  std::size_t hash_column = 0, config_column = 0, columns = 0;
  for (const CsvRow& row : csv_rows(text, name)) {
    const std::vector<std::string>& fields = row.fields;
    if (row.line == 1) {
      const auto column = [&](const std::string& wanted) {
        const auto at = std::find(fields.begin(), fields.end(), wanted);
        if (at == fields.end())
          throw std::invalid_argument(name + ", line 1: no column '" + wanted +
                                      "' (expected the header of `report --format jobs`)");
        return static_cast<std::size_t>(at - fields.begin());
      };
      hash_column = column("config_hash");
      config_column = column("config");
      columns = fields.size();
      continue;
    }
    if (fields.size() != columns)
      throw std::invalid_argument(row.where + ": " + std::to_string(fields.size()) + " fields, but the header has " +
                                  std::to_string(columns));
    configs[fields[hash_column]] = fields[config_column];
  }
  return configs;
}

}  // namespace bnn::exp
