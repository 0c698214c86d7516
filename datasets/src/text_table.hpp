#pragma once
// Reading delimited numeric text: whitespace-, tab- or comma-separated; LF, CRLF and "\r\r\n"
// line endings; blank lines at the end; '?' as a missing value; an optional header row.
// Every malformed input raises DataError naming the file, line and column.
#include <Eigen/Core>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace bnn::data {

enum class Delimiter { automatic, whitespace, comma };
enum class Header { automatic, present, absent };

struct TextFormat {
  Delimiter delimiter = Delimiter::automatic;
  Header header = Header::absent;
  bool allow_missing = false;  // '?' becomes NaN instead of an error
};

Delimiter parse_delimiter(std::string_view name);  // "auto", "whitespace", "comma"

// Calls `row(line_number, fields)` for every data row (blank trailing lines skipped).
// Checks line structure only (blank interior lines, empty fields in comma mode); fields are
// raw text. Returns the delimiter used.
Delimiter for_each_row(std::string_view text, const std::string& file, Delimiter delimiter,
                       const std::function<void(long, const std::vector<std::string_view>&)>& row);

struct NumericTable {
  std::string file;
  Eigen::MatrixXd values;          // NaN where a value was missing ('?')
  std::vector<std::string> names;  // header names, empty without a header
  std::vector<long> line_numbers;  // source line of each row
  long missing_count = 0;
};

// Parses a whole table held in memory; `file` is used in error messages.
NumericTable parse_numeric_table(std::string_view text, const std::string& file, const TextFormat& format = {});
// Reads and parses a file (DataError if it cannot be read).
NumericTable read_numeric_table(const std::string& path, const TextFormat& format = {});
std::string read_file(const std::string& path);

// Parses one numeric token: finite decimal or scientific notation. Returns false otherwise.
bool parse_number(std::string_view token, double& value);

}  // namespace bnn::data
