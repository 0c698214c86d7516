#include "experiments/src/report/reference.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "datasets/src/data_error.hpp"
#include "datasets/src/text_table.hpp"
#include "experiments/src/io/csv.hpp"

namespace fs = std::filesystem;

namespace bnn::exp {
namespace {

std::string fill(std::string pattern, const std::string& paper) {
  for (auto at = pattern.find("{paper}"); at != std::string::npos; at = pattern.find("{paper}"))
    pattern.replace(at, 7, paper);
  return pattern;
}

}  // namespace

CsvTable read_csv(const std::string& path) {
  const std::string text = data::read_file(path);
  CsvTable table;
  std::size_t pos = 0;
  long line_number = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.back() == '\r') line.pop_back();
    std::vector<std::string> cells;
    try {
      cells = split_csv_line(line);
    } catch (const std::invalid_argument& e) {
      throw data::DataError(path, line_number, 0, e.what());
    }
    if (table.header.empty()) {
      table.header = std::move(cells);
    } else {
      if (cells.size() != table.header.size())
        throw data::DataError(path, line_number, 0,
                              "row has " + std::to_string(cells.size()) + " cells but the header has " +
                                  std::to_string(table.header.size()));
      table.rows.push_back(std::move(cells));
    }
  }
  if (table.header.empty()) throw data::DataError(path, 0, 0, "no header row");
  return table;
}

std::string reference_dir() { return (fs::path(source_dir()) / "results" / "reference").string(); }

namespace {

bool covers(const ReferenceSpec& ref, const MethodConfig& m) {
  return !m.paper_name.empty() &&
         (ref.methods.empty() || std::find(ref.methods.begin(), ref.methods.end(), m.label) != ref.methods.end());
}

void load_one(const ExperimentSpec& spec, const ReferenceSpec& ref, const data::DatasetRegistry& registry,
              const std::string& directory, ReferenceValues& out) {
  // A spec's own file beside it (a user's spec and table), else the project's reference folder.
  const fs::path beside =
      fs::path(ref.file).is_absolute() ? fs::path(ref.file) : fs::path(spec.path).parent_path() / ref.file;
  const std::string path = fs::is_regular_file(beside) ? beside.string() : (fs::path(directory) / ref.file).string();
  const CsvTable table = read_csv(path);
  const auto column = [&](const std::string& name) -> long {
    for (std::size_t i = 0; i < table.header.size(); ++i)
      if (table.header[i] == name) return static_cast<long>(i);
    return -1;
  };
  const long dataset_col = ref.fixed_dataset.empty() ? column(ref.dataset_column) : -1;
  if (ref.fixed_dataset.empty() && dataset_col < 0)
    throw data::DataError(path, 1, 0,
                          "no column '" + ref.dataset_column + "' (reference.dataset_column of " + spec.path + ")");
  const long method_col = ref.method_column.empty() ? -1 : column(ref.method_column);
  if (!ref.method_column.empty() && method_col < 0)
    throw data::DataError(path, 1, 0,
                          "no column '" + ref.method_column + "' (reference.method_column of " + spec.path + ")");

  // A pattern that names a column for none of the methods is a mistake in the spec (a method
  // without some metric in the paper simply has no such column).
  for (const auto& [metric, pattern] : ref.values)
    if (std::none_of(spec.methods.begin(), spec.methods.end(),
                     [&](const MethodConfig& m) { return covers(ref, m) && column(fill(pattern, m.paper_name)) >= 0; }))
      throw data::DataError(path, 1, 0,
                            "reference.values." + metric + " = '" + pattern + "' of " + spec.path +
                                " names a column of this file for none of the methods");

  for (const auto& row : table.rows) {
    std::string dataset = ref.fixed_dataset.empty() ? row[static_cast<std::size_t>(dataset_col)] : ref.fixed_dataset;
    if (auto it = ref.dataset_names.find(dataset); it != ref.dataset_names.end()) dataset = it->second;
    if (const data::DatasetSpec* d = registry.try_find(dataset)) dataset = d->name;
    for (const auto& m : spec.methods) {
      if (!covers(ref, m)) continue;
      if (method_col >= 0 && row[static_cast<std::size_t>(method_col)] != m.paper_name) continue;
      bool match = true;
      for (const auto& [col, value] : m.paper_filter) {
        const long c = column(col);
        match = match && c >= 0 && row[static_cast<std::size_t>(c)] == value;
      }
      if (!match) continue;
      for (const auto& [metric, pattern] : ref.values) {
        const long vc = column(fill(pattern, m.paper_name));
        if (vc < 0 || row[static_cast<std::size_t>(vc)].empty()) continue;
        PaperValue pv;
        if (!data::parse_number(row[static_cast<std::size_t>(vc)], pv.value))
          throw data::DataError(path, 0, vc + 1,
                                "'" + row[static_cast<std::size_t>(vc)] + "' in column " +
                                    table.header[static_cast<std::size_t>(vc)] + " (data set " + dataset +
                                    ") is not a number");
        pv.resolution = printed_resolution(row[static_cast<std::size_t>(vc)]);
        if (auto e = ref.errors.find(metric); e != ref.errors.end()) {
          const long ec = column(fill(e->second, m.paper_name));
          if (ec >= 0 && !row[static_cast<std::size_t>(ec)].empty())
            data::parse_number(row[static_cast<std::size_t>(ec)], pv.se);
        }
        out[{dataset, m.label, metric}] = pv;
      }
    }
  }
}

}  // namespace

ReferenceValues load_reference(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                               const std::string& directory) {
  ReferenceValues out;
  for (const ReferenceSpec& ref : spec.references) load_one(spec, ref, registry, directory, out);
  return out;
}

double printed_resolution(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  const auto dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  const auto digits = [](std::string_view part) {
    return std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() && fraction.empty()) return 0.0;
  if (!digits(whole) || !digits(fraction)) return 0.0;
  return std::pow(10.0, -static_cast<double>(fraction.size()));
}

double distance_beyond_rounding(double ours, const PaperValue& paper) {
  return std::max(0.0, std::abs(ours - paper.value) - 0.5 * paper.resolution);
}

}  // namespace bnn::exp
