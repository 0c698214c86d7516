#pragma once
// The few CSV rules the harness's own files need (RFC 4180): fields split at commas, a field
// in double quotes may hold commas and doubled quotes.
#include <string>
#include <vector>

namespace bnn::exp {

// The lines of a text, without their line breaks (\n or \r\n); line i + 1 of a file is [i].
std::vector<std::string> text_lines(const std::string& text);

// The fields of one line (without its line break). Throws std::invalid_argument for an
// unterminated quoted field.
std::vector<std::string> split_csv_line(const std::string& line);
// The same, with `where` (e.g. "file.csv, line 3") before the error message.
std::vector<std::string> split_csv_line(const std::string& line, const std::string& where);

// The field as written to a CSV file: quoted when it holds a comma or a quote; a line break
// becomes a space, so that every record is one line.
std::string csv_field(const std::string& text);

// %.17g: read back with strtod it is the same double, bit for bit.
std::string exact_number(double value);

}  // namespace bnn::exp
