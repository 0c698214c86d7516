#pragma once
// Reading delimited text tables: whitespace-, tab- or comma-separated; double-quoted fields (RFC
// 4180: "" is a quote inside one; a quoted field may hold delimiters and line breaks); LF, CRLF
// and "\r\r\n" line endings; blank lines at the end; '?' or an empty field as a missing value; an
// optional header row; columns of numbers, of category labels, or unused (not parsed).
// Every malformed input raises DataError naming the file, line and column.
#include <Eigen/Core>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace bnn::data {

// whitespace: runs of spaces and tabs; comma and tab: every single one separates two fields.
enum class Delimiter { automatic, whitespace, comma, tab };
enum class Header { automatic, present, absent };
// What a column holds: numbers; labels of a category (any text); or nothing the caller uses,
// so it is not parsed at all.
enum class ColumnKind { number, category, unused };

struct TextFormat {
  Delimiter delimiter = Delimiter::automatic;
  Header header = Header::absent;
  bool allow_missing = false;  // '?' or an empty field becomes NaN instead of an error
  // The kind of column c is columns[c], of a column past the end `other_columns`.
  std::vector<ColumnKind> columns = {};
  ColumnKind other_columns = ColumnKind::number;

  ColumnKind kind(std::size_t column) const { return column < columns.size() ? columns[column] : other_columns; }
};

Delimiter parse_delimiter(std::string_view name);  // "auto", "whitespace" ("space"), "comma", "tab"

// Calls `row(line_number, fields)` for every data row (blank trailing lines skipped);
// `line_number` is the row's first line. Checks structure only (blank interior lines, quotes,
// bytes no text file holds); fields are text, unquoted. Returns the delimiter used.
Delimiter for_each_row(std::string_view text, const std::string& file, Delimiter delimiter,
                       const std::function<void(long, const std::vector<std::string_view>&)>& row);

struct NumericTable {
  std::string file;
  // NaN where a value was missing ('?' or empty) and in unused columns; in a category column
  // the index of the row's label in levels[c]
  Eigen::MatrixXd values;
  std::vector<std::string> names;  // header names, empty without a header
  std::vector<long> line_numbers;  // source line of each row
  long missing_count = 0;
  // Per column: the labels of a category column, sorted (numerically when every label is a
  // number); empty for the other columns.
  std::vector<std::vector<std::string>> levels;
};

// Parses a whole table held in memory; `file` is used in error messages.
NumericTable parse_numeric_table(std::string_view text, const std::string& file, const TextFormat& format = {});
// Reads and parses a file (DataError if it cannot be read).
NumericTable read_numeric_table(const std::string& path, const TextFormat& format = {});
// Reads a text file whole; a NUL byte (a binary or UTF-16 file) is an error at its line, found
// without reading the rest of a large file.
std::string read_file(const std::string& path);

// The labels of a category column (empty: missing), sorted as NumericTable::levels; writes each
// row's index among them into `codes` (missing rows keep theirs).
std::vector<std::string> encode_labels(const std::vector<std::string>& labels, Eigen::Ref<Eigen::VectorXd> codes);

// Parses one numeric token: finite decimal or scientific notation. Returns false otherwise.
bool parse_number(std::string_view token, double& value);

}  // namespace bnn::data
