#include "text_table.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "data_error.hpp"

namespace bnn::data {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool is_blank(std::string_view line) { return trim_spaces(line).empty(); }

// Printable, bounded rendering of a token for error messages.
std::string quote(std::string_view token) {
  std::string out = "'";
  for (std::size_t i = 0; i < token.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (token.size() > 40) out += "...";
  return out + "'";
}

void split_fields(std::string_view line, Delimiter delimiter, std::vector<std::string_view>& out) {
  out.clear();
  if (delimiter == Delimiter::comma) {
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = line.find(',', start);
      out.push_back(trim_spaces(line.substr(start, comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return;
  }
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
}

bool is_missing(std::string_view token) { return token == "?"; }

// from_chars reports result_out_of_range both for overflow and for values that round to zero.
// For a well-formed number token, tells which: true when its magnitude is below 1.
bool rounds_to_zero(std::string_view t) {
  if (!t.empty() && t.front() == '-') t.remove_prefix(1);
  long exponent = 0;
  if (const std::size_t e = t.find_first_of("eE"); e != std::string_view::npos) {
    std::string_view digits = t.substr(e + 1);
    const bool negative = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) digits.remove_prefix(1);
    constexpr long kHuge = std::numeric_limits<long>::max() / 4;  // keeps lead + exponent in range
    long magnitude = 0;
    if (std::from_chars(digits.data(), digits.data() + digits.size(), magnitude).ec == std::errc::result_out_of_range ||
        magnitude > kHuge)
      magnitude = kHuge;
    exponent = negative ? -magnitude : magnitude;
    t = t.substr(0, e);
  }
  const std::size_t point = std::min(t.find('.'), t.size());
  const std::size_t first = t.find_first_not_of("0.");  // leading significant digit
  if (first == std::string_view::npos) return true;
  const long lead = first < point ? static_cast<long>(point - first) - 1 : -static_cast<long>(first - point);
  return lead + exponent < 0;
}

enum class NumberKind { finite, non_finite, invalid };

NumberKind classify_number(std::string_view token, double& value) {
  if (!token.empty() && token.front() == '+') {  // from_chars rejects a leading '+'
    token.remove_prefix(1);
    if (!token.empty() && (token.front() == '+' || token.front() == '-')) return NumberKind::invalid;
  }
  if (token.empty()) return NumberKind::invalid;
  const char* end = token.data() + token.size();
  double v = 0.0;
  auto [ptr, ec] = std::from_chars(token.data(), end, v, std::chars_format::general);
  if (ptr != end) return NumberKind::invalid;
  if (ec == std::errc::result_out_of_range) {
    if (!rounds_to_zero(token)) return NumberKind::non_finite;  // overflow
    v = token.front() == '-' ? -0.0 : 0.0;                      // underflow: a finite value that rounds to zero
  } else if (ec != std::errc()) {
    return NumberKind::invalid;
  } else if (!std::isfinite(v)) {
    return NumberKind::non_finite;  // inf, nan
  }
  value = v;
  return NumberKind::finite;
}

}  // namespace

Delimiter parse_delimiter(std::string_view name) {
  if (name == "auto") return Delimiter::automatic;
  if (name == "whitespace" || name == "space" || name == "tab") return Delimiter::whitespace;
  if (name == "comma") return Delimiter::comma;
  throw std::invalid_argument("unknown delimiter '" + std::string(name) + "'; expected auto, whitespace or comma");
}

bool parse_number(std::string_view token, double& value) { return classify_number(token, value) == NumberKind::finite; }

Delimiter for_each_row(std::string_view text, const std::string& file, Delimiter delimiter,
                       const std::function<void(long, const std::vector<std::string_view>&)>& row) {
  std::vector<std::string_view> fields;
  long line_number = 0;
  long first_blank = 0;                                        // first blank line after which no data may follow
  std::size_t pos = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // a UTF-8 byte-order mark
  while (pos < text.size()) {
    std::size_t newline = text.find('\n', pos);
    if (newline == std::string_view::npos) newline = text.size();
    std::string_view line = text.substr(pos, newline - pos);
    pos = newline + 1;
    ++line_number;
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF and \r\r\n
    if (is_blank(line)) {
      if (first_blank == 0) first_blank = line_number;
      continue;
    }
    if (first_blank != 0)
      throw DataError(file, first_blank, 0,
                      "blank line inside the table (data follows on line " + std::to_string(line_number) + ")");
    if (const auto cr = line.find('\r'); cr != std::string_view::npos)
      throw DataError(file, line_number, 0, "carriage return inside a line (old Mac line endings are not supported)");
    if (delimiter == Delimiter::automatic)
      delimiter = line.find(',') != std::string_view::npos ? Delimiter::comma : Delimiter::whitespace;
    split_fields(line, delimiter, fields);
    for (std::size_t c = 0; c < fields.size(); ++c)
      if (fields[c].empty())
        throw DataError(file, line_number, static_cast<long>(c + 1), "empty field (write '?' for a missing value)");
    row(line_number, fields);
  }
  return delimiter;
}

NumericTable parse_numeric_table(std::string_view text, const std::string& file, const TextFormat& format) {
  NumericTable table;
  table.file = file;
  std::vector<double> values;
  std::size_t columns = 0;
  long first_line = 0;
  bool header_decided = format.header != Header::automatic;
  bool expect_header = format.header == Header::present;
  std::vector<std::string> pending_header;  // first row kept until the header is decided

  const auto numeric_row = [&](long line_number, const std::vector<std::string_view>& fields) {
    for (std::size_t c = 0; c < fields.size(); ++c) {
      double value = 0.0;
      if (is_missing(fields[c])) {
        if (!format.allow_missing)
          throw DataError(file, line_number, static_cast<long>(c + 1), "missing value '?' where a number is required");
        value = std::numeric_limits<double>::quiet_NaN();
        ++table.missing_count;
      } else if (const NumberKind kind = classify_number(fields[c], value); kind != NumberKind::finite) {
        throw DataError(
            file, line_number, static_cast<long>(c + 1),
            (kind == NumberKind::non_finite ? "non-finite value " : "non-numeric value ") + quote(fields[c]));
      }
      values.push_back(value);
    }
    table.line_numbers.push_back(line_number);
  };

  for_each_row(text, file, format.delimiter, [&](long line_number, const auto& fields) {
    if (first_line == 0) {
      first_line = line_number;
      columns = fields.size();
      if (!header_decided) {
        // automatic: a header when no field of the first row is a number, data when every one
        // is; a row of both is neither for sure, and the user is asked to say
        std::size_t numbers = 0;
        for (const auto field : fields) {
          double v = 0.0;
          if (is_missing(field) || parse_number(field, v)) ++numbers;
        }
        if (numbers == fields.size()) {
          header_decided = true;
          expect_header = false;
        } else if (numbers == 0) {
          pending_header.assign(fields.begin(), fields.end());
          return;  // decided by the next row
        } else {
          std::size_t text = 0;
          for (double v = 0.0; text < fields.size() && (is_missing(fields[text]) || parse_number(fields[text], v));)
            ++text;
          throw DataError(file, line_number, static_cast<long>(text + 1),
                          "the first row mixes numbers and text (" + quote(fields[text]) +
                              "): say whether it is a header (fit --header yes or no; header = true or false in a "
                              "registry entry)");
        }
      }
      if (expect_header) {
        table.names.assign(fields.begin(), fields.end());
        return;
      }
    } else if (!header_decided) {
      header_decided = true;  // the first row was not numeric: it is a header
      table.names = std::move(pending_header);
      pending_header.clear();
    }
    if (fields.size() != columns)
      throw DataError(file, line_number, static_cast<long>(std::min(fields.size(), columns) + 1),
                      "row has " + std::to_string(fields.size()) + " columns but line " + std::to_string(first_line) +
                          " has " + std::to_string(columns));
    numeric_row(line_number, fields);
  });

  if (!pending_header.empty()) table.names = std::move(pending_header);  // header, no data
  if (table.line_numbers.empty())
    throw DataError(file, 0, 0, first_line == 0 ? "the file is empty" : "the file has no data rows");
  const auto rows = static_cast<Eigen::Index>(table.line_numbers.size());
  table.values = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      values.data(), rows, static_cast<Eigen::Index>(columns));
  return table;
}

std::string read_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw DataError(path, 0, 0, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, 0, 0, "cannot open the file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw DataError(path, 0, 0, "error while reading the file");
  return std::move(buffer).str();
}

NumericTable read_numeric_table(const std::string& path, const TextFormat& format) {
  return parse_numeric_table(read_file(path), path, format);
}

}  // namespace bnn::data
