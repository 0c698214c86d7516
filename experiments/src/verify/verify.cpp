#include "experiments/src/verify/verify.hpp"

#include "experiments/src/io/csv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace bnn::exp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Accumulates comparisons into a JobComparison, remembering the worst one.
struct Comparer {
  JobComparison& result;
  void value(double stored, double rerun, const std::string& where) {
    ++result.values;
    const double relative = relative_difference(stored, rerun);
    if (relative == 0.0) return;
    ++result.differing;
    if (relative > result.max_relative || result.worst.empty()) {
      result.max_relative = std::max(result.max_relative, relative);
      result.worst = where;
    }
  }
  void mismatch(const std::string& where) {
    ++result.values;
    ++result.differing;
    if (result.max_relative != kInfinity || result.worst.empty()) result.worst = where;  // the first one
    result.max_relative = kInfinity;
  }
  void array(const std::vector<double>& stored, const std::vector<double>& rerun, const std::string& where) {
    if (stored.size() != rerun.size()) {
      mismatch(where + ": " + std::to_string(stored.size()) + " stored values, " + std::to_string(rerun.size()) +
               " in the rerun");
      return;
    }
    for (std::size_t i = 0; i < stored.size(); ++i) value(stored[i], rerun[i], where + "[" + std::to_string(i) + "]");
  }
};

const Evaluation* find_step(const JobRecord& job, int step) {
  for (const auto& e : job.evaluations)
    if (e.step == step) return &e;
  return nullptr;
}

}  // namespace

double relative_difference(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) && std::signbit(a) == std::signbit(b) ? 0.0 : kInfinity;
  if (a == b) return 0.0;
  if (std::isinf(a) || std::isinf(b)) return kInfinity;
  return std::abs(a - b) / std::max(std::abs(a), std::abs(b));
}

std::string format_tolerance(double tolerance) {
  std::ostringstream out;
  out << tolerance;
  return out.str();
}

bool is_timing_metric(const std::string& name) { return name == "fit_seconds" || name == "rel_time"; }

JobComparison compare_jobs(const JobRecord& stored, const JobRecord& rerun,
                           const std::optional<GridPredictions>& stored_grid,
                           const std::optional<GridPredictions>& rerun_grid, bool store_keeps_points) {
  JobComparison result;
  Comparer compare{result};
  if (rerun.status != "ok") {
    result.rerun_failed = true;
    compare.mismatch("rerun failed: " + rerun.error);
    return result;
  }
  // What the job's key derives, and the data it was computed from.
  if (stored.seed != rerun.seed)
    compare.mismatch("stored seed " + std::to_string(stored.seed) + ", but the job's key derives " +
                     std::to_string(rerun.seed));
  if (!stored.data_hash.empty() && !rerun.data_hash.empty() && stored.data_hash != rerun.data_hash)
    compare.mismatch("computed from other data (data hash " + stored.data_hash + ", now " + rerun.data_hash +
                     "): a data or split file changed since");
  if (stored.fit_status != rerun.fit_status)
    compare.mismatch("fit status '" + stored.fit_status + "', rerun '" + rerun.fit_status + "'");
  compare.value(static_cast<double>(stored.fit_iterations), static_cast<double>(rerun.fit_iterations),
                "fit iterations");
  for (const Evaluation& e : stored.evaluations) {
    const std::string step = stored.evaluations.size() > 1 ? " (step " + std::to_string(e.step) + ")" : "";
    const Evaluation* r = find_step(rerun, e.step);
    if (r == nullptr) {
      compare.mismatch("evaluation step " + std::to_string(e.step) + " missing in the rerun");
      continue;
    }
    for (const auto& [name, value] : e.metrics) {
      if (is_timing_metric(name)) continue;
      const auto it = r->metrics.find(name);
      if (it == r->metrics.end())
        compare.mismatch("metric " + name + step + " missing in the rerun");
      else
        compare.value(value, it->second, "metric " + name + step);
    }
    // A stored record must be complete: a row deleted from the store is a difference.
    for (const auto& [name, value] : r->metrics)
      if (!is_timing_metric(name) && !e.metrics.count(name))
        compare.mismatch("metric " + name + step + " missing in the store");
    if (e.points.log_density.empty()) {                          // stored without points (merge --without-points)...
      if (store_keeps_points && !r->points.log_density.empty())  // ... or a row deleted from a store that keeps them
        compare.mismatch("per-point predictions" + step + " missing in the store");
      continue;
    }
    compare.array(e.test_rows, r->test_rows, "test rows" + step);
    compare.array(e.points.log_density, r->points.log_density, "points log_density" + step);
    compare.array(e.points.squared_error, r->points.squared_error, "points squared_error" + step);
    compare.array(e.points.crps, r->points.crps, "points crps" + step);
    compare.array(e.points.covered95, r->points.covered95, "points covered95" + step);
    compare.array(e.points.mean, r->points.mean, "points mean" + step);
    compare.array(e.points.variance, r->points.variance, "points variance" + step);
  }
  for (const Evaluation& r : rerun.evaluations)
    if (find_step(stored, r.step) == nullptr)
      compare.mismatch("evaluation step " + std::to_string(r.step) + " missing in the store");
  if (stored_grid && rerun_grid) {
    compare.array(stored_grid->mean, rerun_grid->mean, "grid mean");
    compare.array(stored_grid->variance, rerun_grid->variance, "grid variance");
    compare.array(stored_grid->lower95, rerun_grid->lower95, "grid lower95");
    compare.array(stored_grid->upper95, rerun_grid->upper95, "grid upper95");
  } else if (stored_grid) {
    compare.mismatch("grid predictions missing in the rerun");
  }
  for (const ArtifactTable& table : stored.artifacts) {
    const auto other = std::find_if(rerun.artifacts.begin(), rerun.artifacts.end(),
                                    [&](const ArtifactTable& t) { return t.name == table.name; });
    if (other == rerun.artifacts.end()) {
      compare.mismatch("artifact table " + table.name + " missing in the rerun");
      continue;
    }
    if (other->columns.size() != table.columns.size()) {
      compare.mismatch("artifact table " + table.name + ": " + std::to_string(table.columns.size()) +
                       " stored columns, " + std::to_string(other->columns.size()) + " in the rerun");
      continue;
    }
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const ArtifactColumn& a = table.columns[c];
      const ArtifactColumn& b = other->columns[c];
      const std::string where = table.name + "." + a.name;
      if (a.name != b.name || a.text != b.text)
        compare.mismatch(where + ": the rerun's column is " + b.name);
      else if (!a.text)
        compare.array(a.numbers, b.numbers, where);
      else
        for (std::size_t r = 0; r < std::max(a.texts.size(), b.texts.size()); ++r)
          if (r >= a.texts.size() || r >= b.texts.size() || a.texts[r] != b.texts[r])
            compare.mismatch(where + "[" + std::to_string(r) + "]");
          else
            ++result.values;
    }
  }
  return result;
}

namespace {

struct TableRow {
  std::string value, se, n_splits;
};
using Table = std::map<std::tuple<std::string, std::string, std::string>, TableRow>;

Table read_report_table(const std::string& text, const std::string& name) {
  const std::vector<CsvRow> rows = csv_rows(text, name);
  if (rows.empty()) throw std::invalid_argument(name + ": the file is empty");
  Table table;
  for (const CsvRow& row : rows) {
    const std::vector<std::string>& fields = row.fields;
    if (row.line == 1) {
      if (fields.size() < 5 || fields[0] != "dataset" || fields[1] != "method" || fields[2] != "metric" ||
          fields[3] != "value" || fields[4] != "se")
        throw std::invalid_argument(name +
                                    ", line 1: not a report table (expected the header "
                                    "dataset,method,metric,value,se,... of `report --format csv`)");
      continue;
    }
    if (fields.size() < 5)
      throw std::invalid_argument(row.where + ": " + std::to_string(fields.size()) +
                                  " fields, but a report row has at least 5");
    for (const std::size_t f : {std::size_t{3}, std::size_t{4}}) {
      char* end = nullptr;
      if (!fields[f].empty() && (std::strtod(fields[f].c_str(), &end), *end != '\0'))
        throw std::invalid_argument(row.where + ", column " + std::to_string(f + 1) + ": non-numeric value '" +
                                    fields[f] + "'");
    }
    table[{fields[0], fields[1], fields[2]}] = {fields[3], fields[4], fields.size() > 5 ? fields[5] : ""};
  }
  return table;
}

double read_number(const std::string& text) {
  return text.empty() ? std::numeric_limits<double>::quiet_NaN() : std::strtod(text.c_str(), nullptr);
}

}  // namespace

TableComparison compare_report_tables(const std::string& ours, const std::string& theirs,
                                      const std::string& theirs_name, double tolerance) {
  const Table mine = read_report_table(ours, "our report");
  const Table published = read_report_table(theirs, theirs_name);
  TableComparison result;
  for (const auto& [key, row] : published) {
    const auto& [dataset, method, metric] = key;
    if (row.value.empty() || is_timing_metric(metric)) continue;
    const auto it = mine.find(key);
    if (it == mine.end() || it->second.value.empty()) {
      ++result.not_rerun;
      continue;
    }
    if (!row.n_splits.empty() && !it->second.n_splits.empty() && row.n_splits != it->second.n_splits) {
      ++result.partial;
      continue;
    }
    ++result.compared;
    const double relative = std::max(relative_difference(read_number(it->second.value), read_number(row.value)),
                                     relative_difference(read_number(it->second.se), read_number(row.se)));
    if (relative == 0.0)
      ++result.identical;
    else if (relative <= tolerance)
      ++result.within;
    else
      result.differing.push_back(
          {dataset, method, metric, it->second.value, it->second.se, row.value, row.se, relative});
  }
  for (const auto& [key, row] : mine) {
    if (row.value.empty() || is_timing_metric(std::get<2>(key))) continue;
    const auto it = published.find(key);
    if (it == published.end() || it->second.value.empty()) ++result.not_published;
  }
  return result;
}

}  // namespace bnn::exp
