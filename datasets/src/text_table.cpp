#include "text_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
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

// A byte as two lowercase hexadecimal digits.
std::string hex_byte(unsigned char u) {
  static const char* hex = "0123456789abcdef";
  return {hex[u >> 4], hex[u & 15]};
}

// Printable, bounded rendering of a token for error messages.
std::string quote(std::string_view token) {
  std::string out = "'";
  for (std::size_t i = 0; i < token.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x" + hex_byte(c);
    }
  }
  if (token.size() > 40) out += "...";
  return out + "'";
}

// A byte no text table holds: a control character other than tab, line feed, vertical tab, form
// feed and carriage return (NUL bytes are what UTF-16 and binary files are full of).
bool is_binary_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r') || u == 0x7f;
}

std::string byte_name(char c) { return "0x" + hex_byte(static_cast<unsigned char>(c)); }

long line_of(std::string_view text, std::size_t pos) {
  return 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

// Splits records (rows) off a text: fields separated by the delimiter, double-quoted fields
// unquoted, the record's line ending removed.
class RecordReader {
 public:
  RecordReader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  // The next record's fields; false at the end. A blank line gives no fields.
  bool next(Delimiter delimiter, long& record_line, std::vector<std::string_view>& fields) {
    if (pos_ >= text_.size()) return false;
    record_line = line_;
    fields.clear();
    unescaped_.clear();
    if (delimiter == Delimiter::whitespace)
      whitespace_record(fields);
    else
      separated_record(delimiter == Delimiter::comma ? ',' : '\t', fields);
    return true;
  }

  // Whether the first non-blank record has a comma outside quotes (automatic delimiter).
  bool first_record_has_comma() const {
    bool quoted = false, blank = true;
    for (std::size_t i = pos_; i < text_.size(); ++i) {
      const char c = text_[i];
      if (c == '"') {
        quoted = !quoted;
        blank = false;
      } else if (!quoted && c == ',') {
        return true;
      } else if (!quoted && c == '\n') {
        if (!blank) return false;
      } else if (!is_space(c) && c != '\r') {
        blank = false;
      }
    }
    return false;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }

  // At a '\r': the end of the line when only more '\r' and a '\n' (or the end) follow.
  void line_break_after_carriage_return() {
    std::size_t i = pos_;
    while (i < text_.size() && text_[i] == '\r') ++i;
    if (i < text_.size() && text_[i] != '\n')
      throw DataError(file_, line_, 0, "carriage return inside a line (old Mac line endings are not supported)");
    pos_ = i;
    end_line();
  }
  void end_line() {
    if (!at_end()) {  // at the '\n'
      ++pos_;
      ++line_;
    }
  }

  // At an opening quote: the field's text up to the closing quote, with "" read as one quote.
  std::string_view quoted_field(long column) {
    const long open_line = line_;
    const std::size_t start = ++pos_;
    bool escaped = false;
    while (true) {
      const std::size_t close = text_.find('"', pos_);
      if (close == std::string_view::npos)
        throw DataError(file_, open_line, column, "a quoted field is not closed (no matching '\"')");
      line_ += static_cast<long>(std::count(text_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                            text_.begin() + static_cast<std::ptrdiff_t>(close), '\n'));
      pos_ = close + 1;
      if (pos_ < text_.size() && text_[pos_] == '"') {  // "" inside a quoted field
        escaped = true;
        ++pos_;
        continue;
      }
      std::string_view content = text_.substr(start, close - start);
      if (!escaped) return content;
      std::string& own = unescaped_.emplace_back();
      for (std::size_t i = 0; i < content.size(); ++i) {
        own += content[i];
        if (content[i] == '"') ++i;  // the second quote of ""
      }
      return own;
    }
  }

  void whitespace_record(std::vector<std::string_view>& fields) {
    while (true) {
      while (!at_end() && is_space(peek())) ++pos_;
      if (at_end() || peek() == '\n') return end_line();
      if (peek() == '\r') return line_break_after_carriage_return();
      const long column = static_cast<long>(fields.size() + 1);
      if (peek() == '"') {
        fields.push_back(quoted_field(column));
        if (!at_end() && !is_space(peek()) && peek() != '\n' && peek() != '\r')
          throw DataError(file_, line_, column, "text right after the closing quote of a quoted field");
        continue;
      }
      const std::size_t start = pos_;
      while (!at_end() && !is_space(peek()) && peek() != '\n' && peek() != '\r') ++pos_;
      fields.push_back(text_.substr(start, pos_ - start));
    }
  }

  void separated_record(char separator, std::vector<std::string_view>& fields) {
    const auto padding = [&](char c) { return c != separator && is_space(c); };
    bool quoted_any = false;
    while (true) {
      while (!at_end() && padding(peek())) ++pos_;
      const long column = static_cast<long>(fields.size() + 1);
      if (!at_end() && peek() == '"') {
        fields.push_back(quoted_field(column));
        quoted_any = true;
        while (!at_end() && padding(peek())) ++pos_;
        if (!at_end() && peek() != separator && peek() != '\n' && peek() != '\r')
          throw DataError(file_, line_, column, "text after the closing quote of a quoted field");
      } else {
        const std::size_t start = pos_;
        while (!at_end() && peek() != separator && peek() != '\n' && peek() != '\r') ++pos_;
        fields.push_back(trim_spaces(text_.substr(start, pos_ - start)));
      }
      if (!at_end() && peek() == separator) {
        ++pos_;
        continue;
      }
      if (!at_end() && peek() == '\r')
        line_break_after_carriage_return();
      else
        end_line();
      if (fields.size() == 1 && fields[0].empty() && !quoted_any) fields.clear();  // a blank line
      return;
    }
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  long line_ = 1;
  std::deque<std::string> unescaped_;  // quoted fields that held "" (stable addresses)
};

bool is_missing(std::string_view token) { return token == "?" || token.empty(); }

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
  if (name == "whitespace" || name == "space") return Delimiter::whitespace;
  if (name == "comma") return Delimiter::comma;
  if (name == "tab") return Delimiter::tab;
  throw std::invalid_argument("unknown delimiter '" + std::string(name) + "'; expected auto, whitespace, comma or tab");
}

bool parse_number(std::string_view token, double& value) { return classify_number(token, value) == NumberKind::finite; }

Delimiter for_each_row(std::string_view text, const std::string& file, Delimiter delimiter,
                       const std::function<void(long, const std::vector<std::string_view>&)>& row) {
  if (const auto binary = std::find_if(text.begin(), text.end(), is_binary_byte); binary != text.end()) {
    const auto at = static_cast<std::size_t>(binary - text.begin());
    throw DataError(file, line_of(text, at), 0,
                    "not a text table: byte " + byte_name(*binary) + " (a binary or UTF-16 file?)");
  }
  RecordReader reader(text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text, file);  // a UTF-8 byte-order mark
  std::vector<std::string_view> fields;
  long line_number = 0;
  long first_blank = 0;  // first blank line after which no data may follow
  if (delimiter == Delimiter::automatic)
    delimiter = reader.first_record_has_comma() ? Delimiter::comma : Delimiter::whitespace;
  while (reader.next(delimiter, line_number, fields)) {
    if (fields.empty()) {
      if (first_blank == 0) first_blank = line_number;
      continue;
    }
    if (first_blank != 0)
      throw DataError(file, first_blank, 0,
                      "blank line inside the table (data follows on line " + std::to_string(line_number) + ")");
    row(line_number, fields);
  }
  return delimiter;
}

std::vector<std::string> encode_labels(const std::vector<std::string>& labels, Eigen::Ref<Eigen::VectorXd> column) {
  std::vector<std::string> levels;
  for (const auto& l : labels)
    if (!l.empty()) levels.push_back(l);  // empty: a missing value
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  const bool numeric = std::all_of(levels.begin(), levels.end(), [](const std::string& l) {
    double v = 0.0;
    return parse_number(l, v);
  });
  if (numeric)
    std::stable_sort(levels.begin(), levels.end(), [](const std::string& a, const std::string& b) {
      double x = 0.0, y = 0.0;
      parse_number(a, x);
      parse_number(b, y);
      return x < y;
    });
  std::map<std::string_view, double> index;
  for (std::size_t k = 0; k < levels.size(); ++k) index[levels[k]] = static_cast<double>(k);
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (!labels[i].empty()) column[static_cast<Eigen::Index>(i)] = index.at(labels[i]);
  return levels;
}

NumericTable parse_numeric_table(std::string_view text, const std::string& file, const TextFormat& format) {
  NumericTable table;
  table.file = file;
  std::vector<double> values;
  std::size_t columns = 0;
  long first_line = 0;
  bool header_decided = format.header != Header::automatic;
  bool expect_header = format.header == Header::present;
  std::vector<std::string> pending_header;                 // first row kept until the header is decided
  std::map<std::size_t, std::vector<std::string>> labels;  // category column -> each row's label
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

  const auto numeric_row = [&](long line_number, const std::vector<std::string_view>& fields) {
    for (std::size_t c = 0; c < fields.size(); ++c) {
      const ColumnKind kind = format.kind(c);
      double value = kNaN;
      if (kind == ColumnKind::unused) {
        values.push_back(value);
        continue;
      }
      if (is_missing(fields[c])) {
        if (!format.allow_missing)
          throw DataError(file, line_number, static_cast<long>(c + 1),
                          fields[c].empty() ? "empty field (write '?' for a missing value)"
                                            : "missing value '?' where a number is required");
        ++table.missing_count;
        if (kind == ColumnKind::category) labels[c].emplace_back();
      } else if (kind == ColumnKind::category) {
        labels[c].emplace_back(fields[c]);
      } else if (const NumberKind number = classify_number(fields[c], value); number != NumberKind::finite) {
        throw DataError(
            file, line_number, static_cast<long>(c + 1),
            (number == NumberKind::non_finite ? "non-finite value " : "non-numeric value ") + quote(fields[c]));
      }
      values.push_back(value);
    }
    table.line_numbers.push_back(line_number);
  };

  // Whether a first-row field looks like data: a number (or missing) in a number column; the
  // other columns say nothing, unless no column holds numbers.
  const auto says_data = [&](const std::vector<std::string_view>& fields, std::size_t c) {
    double v = 0.0;
    return is_missing(fields[c]) || parse_number(fields[c], v);
  };

  for_each_row(text, file, format.delimiter, [&](long line_number, const auto& fields) {
    if (first_line == 0) {
      first_line = line_number;
      columns = fields.size();
      if (!header_decided) {
        // automatic: a header when no field of the first row is a number, data when every one
        // is; a row of both is neither for sure, and the user is asked to say
        std::vector<std::size_t> judged;  // the number columns, or all when there are none
        for (std::size_t c = 0; c < fields.size(); ++c)
          if (format.kind(c) == ColumnKind::number) judged.push_back(c);
        if (judged.empty())
          for (std::size_t c = 0; c < fields.size(); ++c) judged.push_back(c);
        const auto numbers =
            std::count_if(judged.begin(), judged.end(), [&](std::size_t c) { return says_data(fields, c); });
        if (static_cast<std::size_t>(numbers) == judged.size()) {
          header_decided = true;
          expect_header = false;
        } else if (numbers == 0) {
          pending_header.assign(fields.begin(), fields.end());
          return;  // decided by the next row
        } else {
          const std::size_t first_text =
              *std::find_if(judged.begin(), judged.end(), [&](std::size_t c) { return !says_data(fields, c); });
          throw DataError(file, line_number, static_cast<long>(first_text + 1),
                          "the first row mixes numbers and text (" + quote(fields[first_text]) +
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
  table.levels.resize(columns);
  for (const auto& [c, column_labels] : labels)
    table.levels[c] = encode_labels(column_labels, table.values.col(static_cast<Eigen::Index>(c)));
  return table;
}

std::string read_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw DataError(path, 0, 0, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, 0, 0, "cannot open the file");
  std::string text;
  constexpr std::size_t kChunk = 1 << 20;
  while (in) {
    const std::size_t at = text.size();
    text.resize(at + kChunk);
    in.read(text.data() + at, static_cast<std::streamsize>(kChunk));
    text.resize(at + static_cast<std::size_t>(in.gcount()));
    if (const std::size_t nul = text.find('\0', at); nul != std::string::npos)  // stop before reading gigabytes
      throw DataError(path, line_of(text, nul), 0, "not a text table: byte 0x00 (a binary or UTF-16 file?)");
  }
  if (in.bad()) throw DataError(path, 0, 0, "error while reading the file");
  return text;
}

NumericTable read_numeric_table(const std::string& path, const TextFormat& format) {
  return parse_numeric_table(read_file(path), path, format);
}

}  // namespace bnn::data
