#include "load.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
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
  for (Eigen::Index i = 0; i < table.values.rows(); ++i) {  // the first missing value in file order
    for (std::size_t j = 0; j < columns.size(); ++j) {
      const double value = table.values(i, columns[j]);
      if (std::isnan(value))
        throw DataError(sources ? sources->file_of(i) : table.file, table.line_numbers[static_cast<std::size_t>(i)],
                        columns[j] + 1,
                        "missing value ('?' or an empty field) in a " + what + " column" +
                            (sources ? " (missing = \"drop-rows\" in its registry entry drops such rows)" : ""));
      out(i, static_cast<Eigen::Index>(j)) = value;
    }
  }
  return out;
}

NumericTable read_stacked(const std::vector<std::string>& paths, TextFormat format, RowSources& sources) {
  NumericTable all;
  sources = RowSources{paths, {}};
  std::vector<NumericTable> parts;
  Eigen::Index rows = 0;
  format.allow_missing = true;  // what a missing value in a used column does is the loader's choice
  for (const auto& path : paths) {
    NumericTable t = read_numeric_table(path, format);
    if (!parts.empty() && t.values.cols() != parts.front().values.cols())
      throw DataError(path, t.line_numbers.front(), 0,
                      "has " + std::to_string(t.values.cols()) + " columns but " + paths.front() + " has " +
                          std::to_string(parts.front().values.cols()));
    sources.first_row.push_back(rows);
    rows += t.values.rows();
    all.line_numbers.insert(all.line_numbers.end(), t.line_numbers.begin(), t.line_numbers.end());
    all.missing_count += t.missing_count;
    parts.push_back(std::move(t));
  }
  all.file = paths.size() == 1 ? paths.front() : paths.front() + " (+" + std::to_string(paths.size() - 1) + " more)";
  all.names = parts.front().names;
  all.values.resize(rows, parts.front().values.cols());
  all.levels.resize(static_cast<std::size_t>(all.values.cols()));
  Eigen::Index at = 0;
  for (const auto& p : parts) {
    all.values.middleRows(at, p.values.rows()) = p.values;
    at += p.values.rows();
  }
  // A category column's labels are numbered per file: number them again over all the files.
  for (std::size_t c = 0; c < all.levels.size(); ++c) {
    if (parts.size() == 1 || format.kind(c) != ColumnKind::category) {
      all.levels[c] = parts.front().levels[c];
      continue;
    }
    std::vector<std::string> labels;
    for (const auto& p : parts)
      for (Eigen::Index i = 0; i < p.values.rows(); ++i) {
        const double code = p.values(i, static_cast<Eigen::Index>(c));
        labels.push_back(std::isnan(code) ? std::string() : p.levels[c][static_cast<std::size_t>(code)]);
      }
    all.levels[c] = encode_labels(labels, all.values.col(static_cast<Eigen::Index>(c)));
  }
  return all;
}

// Keeps the rows not marked in `drop`, with their lines and sources.
void drop_rows(NumericTable& table, RowSources& sources, const std::vector<char>& drop) {
  std::vector<Eigen::Index> keep;
  std::vector<long> lines;
  std::vector<Eigen::Index> first_row(sources.first_row.size(), 0);
  for (Eigen::Index i = 0; i < table.values.rows(); ++i) {
    for (std::size_t k = 0; k < first_row.size(); ++k)
      if (sources.first_row[k] == i) first_row[k] = static_cast<Eigen::Index>(keep.size());
    if (drop[static_cast<std::size_t>(i)]) continue;
    keep.push_back(i);
    lines.push_back(table.line_numbers[static_cast<std::size_t>(i)]);
  }
  table.values = Eigen::MatrixXd(table.values(keep, Eigen::all));
  table.line_numbers = std::move(lines);
  sources.first_row = std::move(first_row);
}

// A label as the notes show it: in double quotes, a quote or backslash in it escaped.
std::string quoted_label(const std::string& label) {
  std::string out = "\"";
  for (char c : label) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The feature matrix, a category column as one 0/1 input per label (one-hot).
Eigen::MatrixXd encode_features(const NumericTable& table, const std::vector<long>& features,
                                const std::vector<long>& categorical, const std::string& column_source,
                                const RowSources& sources, std::vector<std::string>& notes) {
  const Eigen::MatrixXd plain = take_columns(table, features, "feature", column_source, &sources);
  if (categorical.empty()) return plain;
  std::vector<Eigen::VectorXd> inputs;
  for (std::size_t j = 0; j < features.size(); ++j) {
    const auto c = static_cast<std::size_t>(features[j]);
    if (std::find(categorical.begin(), categorical.end(), features[j]) == categorical.end()) {
      inputs.push_back(plain.col(static_cast<Eigen::Index>(j)));
      continue;
    }
    // one input per label of the rows kept (a label seen only on dropped rows gets none)
    const auto codes = plain.col(static_cast<Eigen::Index>(j)).array();
    std::vector<std::string> used;
    for (std::size_t k = 0; k < table.levels[c].size(); ++k) {
      if (!(codes == static_cast<double>(k)).any()) continue;
      used.push_back(table.levels[c][k]);
      inputs.push_back((codes == static_cast<double>(k)).cast<double>());
    }
    std::string shown;
    for (std::size_t k = 0; k < used.size() && k < 8; ++k) shown += (k ? ", " : "") + quoted_label(used[k]);
    if (used.size() > 8) shown += ", ...";
    notes.push_back("column " + std::to_string(c) + (table.names.empty() ? "" : " (" + table.names[c] + ")") +
                    " one-hot encoded: " + std::to_string(used.size()) + " inputs for its labels " + shown);
  }
  Eigen::MatrixXd X(plain.rows(), static_cast<Eigen::Index>(inputs.size()));
  for (std::size_t j = 0; j < inputs.size(); ++j) X.col(static_cast<Eigen::Index>(j)) = inputs[j];
  return X;
}

// One entry of an index file and where it stands (1-based line and column).
struct IndexEntry {
  long value;
  long line;
  long column;
};

std::vector<IndexEntry> read_index_entries(const std::string& path) {
  const NumericTable t = read_numeric_table(path, {Delimiter::whitespace, Header::absent});
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

std::vector<std::string> data_warnings(const Dataset& data) {
  std::vector<std::string> out;
  if (data.y.size() < 2) return out;
  const double mean = data.y.mean();
  const double sd = std::sqrt((data.y.array() - mean).square().mean());
  // Below 1e-8 of its size the target's variation is at the level of rounding in a text file:
  // standardized, it becomes noise of a few values and metrics explode (test LL of -1e34).
  if (sd > 0.0 && sd < 1e-8 * std::abs(mean)) {
    char text[160];
    std::snprintf(text, sizeof text, "the target varies by only %.3g relative to its size (sd %.3g, mean %.6g)",
                  sd / std::abs(mean), sd, mean);
    out.push_back((data.name == data.origin ? data.origin : data.name + " (" + data.origin + ")") + ": " + text +
                  "; it is constant but for rounding, so fits and metrics mean little");
    return out;
  }
  // One value on all but a few rows: standardized, those few are outliers of many standard
  // deviations and the rest a constant; a fit says little and a test LL is dominated by them.
  std::map<double, long> counts;
  for (Eigen::Index i = 0; i < data.y.size(); ++i) ++counts[data.y[i]];
  const auto mode =
      std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const long others = static_cast<long>(data.y.size()) - mode->second;
  if (data.y.size() >= 10 && others > 0 && others <= std::max<long>(1, static_cast<long>(data.y.size()) / 100)) {
    char text[200];
    std::snprintf(text, sizeof text, "the target is %.10g on %ld of its %ld rows (%ld row(s) differ)", mode->first,
                  mode->second, static_cast<long>(data.y.size()), others);
    out.push_back((data.name == data.origin ? data.origin : data.name + " (" + data.origin + ")") + ": " + text +
                  "; it is constant but for a few rows, so fits and metrics mean little");
  }
  return out;
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
  const auto source_of = [&](const ColumnSelector& sel) {
    return sel.kind == ColumnSelector::Kind::index_file ? dataset_file(spec, data_dir, sel.index_file)
                                                        : spec.defined_in;
  };
  // Only the columns the table uses are parsed: numbers, labels for categorical ones.
  const Header header = ts.header ? Header::present : Header::absent;
  TextFormat format{ts.delimiter, header};
  std::vector<long> features;
  if (ts.features.kind == ColumnSelector::Kind::all) {
    format.other_columns = ColumnKind::number;
  } else {
    features = resolve_columns(ts.features, spec, data_dir, 0);
    format.other_columns = ColumnKind::unused;
    for (long c : features) {
      if (format.columns.size() <= static_cast<std::size_t>(c))
        format.columns.resize(static_cast<std::size_t>(c) + 1, ColumnKind::unused);
      format.columns[static_cast<std::size_t>(c)] = ColumnKind::number;
    }
  }
  std::vector<long> target;
  if (ts.target_files.empty()) {
    target = resolve_columns(ts.target, spec, data_dir, 0);
    if (target.size() != 1) throw DataError(source_of(ts.target), 0, 0, "the target must be exactly one column");
    if (format.columns.size() <= static_cast<std::size_t>(target[0]))
      format.columns.resize(static_cast<std::size_t>(target[0]) + 1, format.other_columns);
    format.columns[static_cast<std::size_t>(target[0])] = ColumnKind::number;
  }
  for (long c : ts.categorical) {
    if (ts.features.kind == ColumnSelector::Kind::index_file &&
        std::find(features.begin(), features.end(), c) == features.end())
      throw DataError(
          spec.defined_in, 0, 0,
          "categorical column " + std::to_string(c) + " is not one of the features in " + source_of(ts.features));
    if (format.columns.size() <= static_cast<std::size_t>(c))
      format.columns.resize(static_cast<std::size_t>(c) + 1, format.other_columns);
    format.columns[static_cast<std::size_t>(c)] = ColumnKind::category;
  }
  RowSources table_sources;
  NumericTable table = read_stacked(files, format, table_sources);
  if (ts.features.kind == ColumnSelector::Kind::all)
    features = resolve_columns(ts.features, spec, data_dir, table.values.cols());

  Dataset data;
  data.name = spec.name;
  data.origin = table.file;
  NumericTable labels;
  RowSources label_sources;
  if (ts.target_files.empty()) {
    if (std::find(features.begin(), features.end(), target[0]) != features.end())
      throw DataError(source_of(ts.target), 0, 0, "target column " + std::to_string(target[0]) + " is also a feature");
  } else {
    std::vector<std::string> label_files;
    for (const auto& f : ts.target_files) label_files.push_back(dataset_file(spec, data_dir, f));
    target = resolve_columns(ts.target, spec, data_dir, 0);
    if (target.size() != 1) throw DataError(source_of(ts.target), 0, 0, "the target must be exactly one column");
    TextFormat label_format{ts.delimiter, header};
    label_format.columns.assign(static_cast<std::size_t>(target[0]) + 1, ColumnKind::unused);
    label_format.columns.back() = ColumnKind::number;
    label_format.other_columns = ColumnKind::unused;
    labels = read_stacked(label_files, label_format, label_sources);
    if (labels.values.rows() != table.values.rows())
      throw DataError(labels.file, 0, 0,
                      "has " + std::to_string(labels.values.rows()) + " rows but " + table.file + " has " +
                          std::to_string(table.values.rows()));
  }
  NumericTable& target_table = ts.target_files.empty() ? table : labels;
  if (ts.missing == MissingValues::drop_rows && (table.missing_count > 0 || labels.missing_count > 0)) {
    std::vector<char> drop(static_cast<std::size_t>(table.values.rows()), 0);
    std::vector<long> dropped_lines;
    for (Eigen::Index i = 0; i < table.values.rows(); ++i) {
      bool missing = std::isnan(target_table.values(i, target[0]));
      for (long c : features) missing = missing || std::isnan(table.values(i, c));
      if (!missing) continue;
      drop[static_cast<std::size_t>(i)] = 1;
      dropped_lines.push_back(table.line_numbers[static_cast<std::size_t>(i)]);
    }
    if (!dropped_lines.empty()) {
      std::string shown;
      for (std::size_t k = 0; k < dropped_lines.size() && k < 5; ++k)
        shown += (k ? ", " : "") + std::to_string(dropped_lines[k]);
      data.notes.push_back(std::to_string(dropped_lines.size()) + " of " + std::to_string(table.values.rows()) +
                           " rows dropped for a missing value ('?' or empty) in a used column (line" +
                           (dropped_lines.size() > 1 ? "s " : " ") + shown + (dropped_lines.size() > 5 ? ", ..." : "") +
                           ")");
      drop_rows(table, table_sources, drop);
      if (!ts.target_files.empty()) drop_rows(labels, label_sources, drop);
    }
  }
  data.X = encode_features(table, features, ts.categorical, source_of(ts.features), table_sources, data.notes);
  data.y = take_columns(target_table, target, "target", source_of(ts.target),
                        ts.target_files.empty() ? &table_sources : &label_sources)
               .col(0);
  check_usable(data, 2);
  return data;
}

std::vector<Split> read_published_splits(const DatasetSpec& spec, const std::string& data_dir, Eigen::Index rows) {
  std::vector<Split> splits;
  if (!spec.splits) throw std::runtime_error(spec.name + " has no published splits in the registry");
  for (int k = 0; k < spec.splits->count; ++k) {
    Split split;
    std::vector<char> seen(static_cast<std::size_t>(rows), 0);
    for (int part = 0; part < 2; ++part) {
      const std::string path =
          dataset_file(spec, data_dir, part == 0 ? spec.splits->train_file(k) : spec.splits->test_file(k));
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
  data.row_lines = table.line_numbers;
  for (long c : features)
    if (!table.names.empty()) data.feature_names.push_back(table.names[static_cast<std::size_t>(c)]);
  if (data.X.cols() == 0) throw DataError(path, 0, 0, "the file has no feature columns besides the target");
  return data;
}

}  // namespace bnn::data
