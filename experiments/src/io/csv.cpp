#include "experiments/src/io/csv.hpp"

#include <cstdio>
#include <stdexcept>

namespace bnn::exp {

namespace {
// The lines of a text, without their line breaks (\n or \r\n); line i + 1 of a file is [i].
std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    if (!lines.back().empty() && lines.back().back() == '\r') lines.back().pop_back();
    start = end + 1;
  }
  return lines;
}
}  // namespace

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"')
        fields.back() += c;
      else if (i + 1 < line.size() && line[i + 1] == '"')
        fields.back() += '"', ++i;
      else
        quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) throw std::invalid_argument("unterminated quoted field");
  return fields;
}

std::vector<std::string> split_csv_line(const std::string& line, const std::string& where) {
  try {
    return split_csv_line(line);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
}

std::vector<CsvRow> csv_rows(const std::string& text, const std::string& name) {
  std::vector<CsvRow> rows;
  const std::vector<std::string> lines = text_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    CsvRow row;
    row.line = static_cast<long>(i) + 1;
    row.where = name + ", line " + std::to_string(row.line);
    row.text = lines[i];
    row.fields = split_csv_line(row.text, row.where);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c == '\n' || c == '\r' ? ' ' : c;
  }
  return quoted + '"';
}

std::string exact_number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

}  // namespace bnn::exp
