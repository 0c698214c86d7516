#pragma once
// The few CSV rules the harness's own files need (RFC 4180): fields split at commas, a field
// in double quotes may hold commas and doubled quotes.
#include <string>
#include <vector>

namespace bnn::exp {

// The fields of one line (without its line break). Throws std::invalid_argument for an
// unterminated quoted field.
std::vector<std::string> split_csv_line(const std::string& line);
// The same, with `where` (e.g. "file.csv, line 3") before the error message.
std::vector<std::string> split_csv_line(const std::string& line, const std::string& where);

// One non-empty line of a CSV file, split into fields.
struct CsvRow {
  long line = 0;      // 1-based line number in the file
  std::string where;  // "NAME, line N", to begin an error message
  std::string text;   // the line as written
  std::vector<std::string> fields;
};
// The non-empty lines of a CSV text; a malformed line is an error naming `name` and the line.
std::vector<CsvRow> csv_rows(const std::string& text, const std::string& name);

// The field as written to a CSV file: quoted when it holds a comma or a quote; a line break
// becomes a space, so that every record is one line.
std::string csv_field(const std::string& text);

// %.17g: read back with strtod it is the same double, bit for bit.
std::string exact_number(double value);

}  // namespace bnn::exp
