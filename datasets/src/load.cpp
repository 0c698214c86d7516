#include "load.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "data_error.hpp"
#include "fetch.hpp"
#include "synthetic.hpp"
#include "text_table.hpp"

namespace fs = std::filesystem;

namespace bnn::data {
namespace {

std::vector<long> resolve_columns(const ColumnSelector& sel, const DatasetSpec& spec, const std::string& data_dir,
                                  Eigen::Index available) {
  switch (sel.kind) {
    case ColumnSelector::Kind::all: {
      std::vector<long> all(static_cast<std::size_t>(available));
      for (Eigen::Index c = 0; c < available; ++c) all[static_cast<std::size_t>(c)] = c;
      return all;
    }
    case ColumnSelector::Kind::index_file:
      return read_index_file(dataset_file(spec, data_dir, sel.index_file));
    case ColumnSelector::Kind::list:
      return sel.columns;
  }
  return {};
}

// Where the rows of a stacked table come from: rows from first_row[k] on are from paths[k].
struct RowSources {
  std::vector<std::string> paths;
  std::vector<Eigen::Index> first_row;
  const std::string& file_of(Eigen::Index row) const {
    std::size_t k = 0;
    while (k + 1 < first_row.size() && first_row[k + 1] <= row) ++k;
    return paths[k];
  }
};

// Copies the chosen columns; a missing value in any of them is an error at its line (in the
// file of `sources` the row came from, when given).
Eigen::MatrixXd take_columns(const NumericTable& table, const std::vector<long>& columns, const std::string& what,
                             const std::string& column_source, const RowSources* sources = nullptr) {
  for (long c : columns)
    if (c >= table.values.cols())
      throw DataError(column_source, 0, 0,
                      what + " column " + std::to_string(c) + " (0-based) is out of range: " + table.file + " has " +
                          std::to_string(table.values.cols()) + " columns");
  Eigen::MatrixXd out(table.values.rows(), static_cast<Eigen::Index>(columns.size()));
  for (std::size_t j = 0; j < columns.size(); ++j) {
    const auto col = table.values.col(columns[j]);
    for (Eigen::Index i = 0; i < col.size(); ++i) {
      if (std::isnan(col[i]))
        throw DataError(sources ? sources->file_of(i) : table.file, table.line_numbers[static_cast<std::size_t>(i)],
                        columns[j] + 1, "missing value '?' in a " + what + " column");
      out(i, static_cast<Eigen::Index>(j)) = col[i];
    }
  }
  return out;
}

NumericTable read_stacked(const std::vector<std::string>& paths, Delimiter delimiter, bool header,
                          RowSources& sources) {
  NumericTable all;
  sources = RowSources{paths, {}};
  std::vector<Eigen::MatrixXd> parts;
  Eigen::Index rows = 0;
  for (const auto& path : paths) {
    NumericTable t = read_numeric_table(path, {delimiter, header ? Header::present : Header::absent, true});
    if (!parts.empty() && t.values.cols() != parts.front().cols())
      throw DataError(path, t.line_numbers.front(), 0,
                      "has " + std::to_string(t.values.cols()) + " columns but " + paths.front() + " has " +
                          std::to_string(parts.front().cols()));
    sources.first_row.push_back(rows);
    rows += t.values.rows();
    all.line_numbers.insert(all.line_numbers.end(), t.line_numbers.begin(), t.line_numbers.end());
    parts.push_back(std::move(t.values));
  }
  all.file = paths.size() == 1 ? paths.front() : paths.front() + " (+" + std::to_string(paths.size() - 1) + " more)";
  all.values.resize(rows, parts.front().cols());
  Eigen::Index at = 0;
  for (auto& p : parts) {
    all.values.middleRows(at, p.rows()) = p;
    at += p.rows();
  }
  return all;
}

// One entry of an index file and where it stands (1-based line and column).
struct IndexEntry {
  long value;
  long line;
  long column;
};

std::vector<IndexEntry> read_index_entries(const std::string& path) {
  const NumericTable t = read_numeric_table(path, {Delimiter::whitespace, Header::absent, false});
  std::vector<IndexEntry> out;
  for (Eigen::Index i = 0; i < t.values.rows(); ++i)
    for (Eigen::Index j = 0; j < t.values.cols(); ++j) {
      const double v = t.values(i, j);
      const long line = t.line_numbers[static_cast<std::size_t>(i)];
      if (v < 0 || v != std::floor(v) || v > 1e15)
        throw DataError(path, line, j + 1, "index must be a non-negative integer");
      out.push_back({static_cast<long>(v), line, static_cast<long>(j + 1)});
    }
  return out;
}

}  // namespace

std::vector<long> read_index_file(const std::string& path) {
  std::vector<long> out;
  for (const IndexEntry& e : read_index_entries(path)) out.push_back(e.value);
  return out;
}

void check_usable(const Dataset& data, Eigen::Index min_rows) {
  if (data.X.rows() < min_rows)
    throw DataError(data.origin, 0, 0,
                    data.name + " has " + std::to_string(data.X.rows()) + " rows, but at least " +
                        std::to_string(min_rows) + " are needed");
  if (data.y.size() > 0 && data.y.maxCoeff() == data.y.minCoeff())
    throw DataError(data.origin, 0, 0,
                    (data.name == data.origin ? "" : data.name + ": ") + "the target is constant (" +
                        std::to_string(data.y[0]) + " in every row)");
}

Dataset load_dataset(const DatasetSpec& spec, const std::string& data_dir) {
  if (spec.is_synthetic()) return generate_synthetic(spec.name, *spec.synthetic);
  if (!spec.is_public()) throw std::runtime_error(spec.name + " is not publicly available: " + spec.notes);
  const DatasetStatus status = dataset_status(spec, data_dir);
  if (!status.present)
    throw std::runtime_error(spec.name + ": " + status.detail + " in " + (fs::path(data_dir) / spec.folder).string() +
                             "; run `bnnbench datasets fetch " + spec.name + "` (add --from DIR for a mirror)");
  if (!status.verified && status.detail.find("mismatch") != std::string::npos)
    throw std::runtime_error(spec.name + ": " + status.detail + " in " + (fs::path(data_dir) / spec.folder).string() +
                             "; fetch it again with `bnnbench datasets fetch " + spec.name + "`");
  const TableSpec& ts = *spec.table;
  std::vector<std::string> files;
  for (const auto& f : ts.files) files.push_back(dataset_file(spec, data_dir, f));
  RowSources table_sources;
  const NumericTable table = read_stacked(files, ts.delimiter, ts.header, table_sources);

  Dataset data;
  data.name = spec.name;
  data.origin = table.file;
  const auto source_of = [&](const ColumnSelector& sel) {
    return sel.kind == ColumnSelector::Kind::index_file ? dataset_file(spec, data_dir, sel.index_file)
                                                        : spec.defined_in;
  };
  const std::vector<long> features = resolve_columns(ts.features, spec, data_dir, table.values.cols());
  data.X = take_columns(table, features, "feature", source_of(ts.features), &table_sources);
  if (ts.target_files.empty()) {
    const std::vector<long> target = resolve_columns(ts.target, spec, data_dir, table.values.cols());
    if (target.size() != 1) throw DataError(source_of(ts.target), 0, 0, "the target must be exactly one column");
    if (std::find(features.begin(), features.end(), target[0]) != features.end())
      throw DataError(source_of(ts.target), 0, 0, "target column " + std::to_string(target[0]) + " is also a feature");
    data.y = take_columns(table, target, "target", source_of(ts.target), &table_sources).col(0);
  } else {
    std::vector<std::string> label_files;
    for (const auto& f : ts.target_files) label_files.push_back(dataset_file(spec, data_dir, f));
    RowSources label_sources;
    const NumericTable labels = read_stacked(label_files, ts.delimiter, ts.header, label_sources);
    if (labels.values.rows() != table.values.rows())
      throw DataError(labels.file, 0, 0,
                      "has " + std::to_string(labels.values.rows()) + " rows but " + table.file + " has " +
                          std::to_string(table.values.rows()));
    data.y = take_columns(labels, resolve_columns(ts.target, spec, data_dir, labels.values.cols()), "target",
                          source_of(ts.target), &label_sources)
                 .col(0);
  }
  check_usable(data, 2);
  return data;
}

std::vector<Split> read_published_splits(const DatasetSpec& spec, const std::string& data_dir, Eigen::Index rows) {
  std::vector<Split> splits;
  if (!spec.splits) throw std::runtime_error(spec.name + " has no published splits in the registry");
  const auto fill = [](std::string pattern, int k) {
    const auto at = pattern.find("{k}");
    if (at != std::string::npos) pattern.replace(at, 3, std::to_string(k));
    return pattern;
  };
  for (int k = 0; k < spec.splits->count; ++k) {
    Split split;
    std::vector<char> seen(static_cast<std::size_t>(rows), 0);
    for (int part = 0; part < 2; ++part) {
      const std::string path =
          dataset_file(spec, data_dir, fill(part == 0 ? spec.splits->train_pattern : spec.splits->test_pattern, k));
      auto& out = part == 0 ? split.train : split.test;
      const char mark = static_cast<char>(part + 1);  // 1: train, 2: test
      for (const IndexEntry& entry : read_index_entries(path)) {
        const long r = entry.value;
        if (r >= rows)
          throw DataError(
              path, entry.line, entry.column,
              "row " + std::to_string(r) + " is out of range: the table has " + std::to_string(rows) + " rows");
        if (const char before = seen[static_cast<std::size_t>(r)]; before != 0)
          throw DataError(
              path, entry.line, entry.column,
              "row " + std::to_string(r) + (before == mark ? " is listed twice" : " is also a training row"));
        seen[static_cast<std::size_t>(r)] = mark;
        out.push_back(r);
      }
      if (out.empty()) throw DataError(path, 0, 0, "lists no rows");
    }
    splits.push_back(std::move(split));
  }
  return splits;
}

Dataset load_user_table(const std::string& path, const std::string& target, const TextFormat& format) {
  const NumericTable table = read_numeric_table(path, format);
  long target_column = -1;
  if (target.empty())
    throw std::invalid_argument("--target is empty (give a 0-based column number, a header name or 'last')");
  if (target == "last") {
    target_column = static_cast<long>(table.values.cols()) - 1;
  } else if (auto it = std::find(table.names.begin(), table.names.end(), target); it != table.names.end()) {
    if (std::count(table.names.begin(), table.names.end(), target) > 1)
      throw DataError(path, 0, 0,
                      "--target '" + target + "' names more than one column of the header: give its 0-based number");
    target_column = static_cast<long>(it - table.names.begin());
  } else {
    double value = 0;
    if (!parse_number(target, value) || value < 0 || value != std::floor(value))
      throw std::invalid_argument("--target '" + target + "' is neither a 0-based column number nor a header name of " +
                                  path);
    if (value >= static_cast<double>(table.values.cols()))
      throw DataError(path, 0, 0,
                      "target column " + target + " (0-based) is out of range: the file has " +
                          std::to_string(table.values.cols()) + " columns");
    target_column = static_cast<long>(value);
  }
  if (target_column < 0 || target_column >= table.values.cols())
    throw DataError(path, 0, 0,
                    "target column " + std::to_string(target_column) + " (0-based) is out of range: the file has " +
                        std::to_string(table.values.cols()) + " columns");
  std::vector<long> features;
  for (long c = 0; c < table.values.cols(); ++c)
    if (c != target_column) features.push_back(c);
  Dataset data;
  data.name = fs::path(path).filename().string();
  data.origin = path;
  data.X = take_columns(table, features, "feature", path);
  data.y = take_columns(table, {target_column}, "target", path).col(0);
  for (long c : features)
    if (!table.names.empty()) data.feature_names.push_back(table.names[static_cast<std::size_t>(c)]);
  if (data.X.cols() == 0) throw DataError(path, 0, 0, "the file has no feature columns besides the target");
  return data;
}

}  // namespace bnn::data
