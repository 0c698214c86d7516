// libFuzzer target for the numeric text-table parser (datasets/src/text_table.cpp).
//
// The input bytes are parsed as a whole file with every TextFormat setting (4 delimiters x
// 3 header modes x allow_missing on/off, every column a number), and with two plans that mix
// number, category and unused columns (4 delimiters x automatic header x allow_missing on/off).
// bnn::data::DataError is the only accepted failure;
// any other exception, a crash, a sanitizer report or a broken invariant (checked below and
// reported with abort()) is a finding. The number-token parser is also compared with strtod.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "datasets/src/data_error.hpp"
#include "datasets/src/text_table.hpp"

namespace {

using bnn::data::ColumnKind;
using bnn::data::DataError;
using bnn::data::Delimiter;
using bnn::data::Header;
using bnn::data::NumericTable;
using bnn::data::TextFormat;

const std::string kFile = "fuzz-input.txt";

[[noreturn]] void finding(const char* what, const TextFormat& format) {
  std::fprintf(stderr, "FINDING: %s (delimiter %d, header %d, allow_missing %d)\n", what,
               static_cast<int>(format.delimiter), static_cast<int>(format.header),
               static_cast<int>(format.allow_missing));
  std::abort();
}

long count_lines(std::string_view text) {
  long lines = 0;
  for (char c : text) lines += c == '\n';
  return lines + 1;  // a last line without '\n'
}

void check_table(const NumericTable& t, std::string_view text, const TextFormat& format) {
  const long lines = count_lines(text);
  if (t.values.rows() < 1 || t.values.cols() < 1) finding("empty table returned", format);
  if (static_cast<std::size_t>(t.values.rows()) != t.line_numbers.size())
    finding("rows != line_numbers.size()", format);
  if (!t.names.empty() && static_cast<Eigen::Index>(t.names.size()) != t.values.cols())
    finding("header width differs from the table width", format);
  if (format.header == Header::absent && !t.names.empty()) finding("header read with Header::absent", format);
  if (format.header == Header::present && t.names.empty()) finding("no header with Header::present", format);
  long previous = 0;
  for (long line : t.line_numbers) {
    if (line <= previous || line > lines) finding("line numbers not increasing / out of range", format);
    previous = line;
  }
  if (static_cast<Eigen::Index>(t.levels.size()) != t.values.cols()) finding("levels.size() != columns", format);
  long nan_count = 0;
  for (Eigen::Index j = 0; j < t.values.cols(); ++j) {
    const ColumnKind kind = format.kind(static_cast<std::size_t>(j));
    const auto& levels = t.levels[static_cast<std::size_t>(j)];
    if (kind != ColumnKind::category && !levels.empty()) finding("levels of a column that is not a category", format);
    for (std::size_t k = 0; k < levels.size(); ++k)
      if (levels[k].empty() || (k > 0 && levels[k] == levels[k - 1])) finding("empty or repeated level", format);
    for (Eigen::Index i = 0; i < t.values.rows(); ++i) {
      const double v = t.values(i, j);
      if (kind == ColumnKind::unused) {
        if (!std::isnan(v)) finding("a value in an unused column", format);
      } else if (std::isnan(v)) {
        ++nan_count;
      } else if (!std::isfinite(v)) {
        finding("infinite value accepted", format);
      } else if (kind == ColumnKind::category &&
                 (v != std::floor(v) || v < 0 || v >= static_cast<double>(levels.size()))) {
        finding("a category code outside its levels", format);
      }
    }
  }
  if (nan_count != t.missing_count) finding("missing_count differs from the number of NaNs", format);
  if (!format.allow_missing && nan_count != 0) finding("'?' accepted without allow_missing", format);
}

void check_error(const DataError& e, std::string_view text, const TextFormat& format) {
  const std::string what = e.what();
  if (e.file() != kFile || what.rfind(kFile, 0) != 0) finding("DataError does not name the file", format);
  if (e.line() < 0 || e.column() < 0) finding("negative line or column", format);
  if (e.line() > count_lines(text)) finding("error line beyond the end of the input", format);
  if (e.line() > 0 && what.find(", line " + std::to_string(e.line())) == std::string::npos)
    finding("what() does not show the line", format);
  if (e.column() > 0 && what.find(", column " + std::to_string(e.column())) == std::string::npos)
    finding("what() does not show the column", format);
  if (e.line() == 0 && e.column() != 0) finding("column without a line", format);
  if (what.find('\n') != std::string::npos) finding("what() is not one line", format);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const Delimiter delimiters[] = {Delimiter::automatic, Delimiter::whitespace, Delimiter::comma, Delimiter::tab};
  static const Header headers[] = {Header::absent, Header::automatic, Header::present};
  const auto parse = [&](const TextFormat& format) {
    try {
      check_table(bnn::data::parse_numeric_table(text, kFile, format), text, format);
    } catch (const DataError& e) {
      check_error(e, text, format);
    }
    // Anything else propagates out of this function: libFuzzer reports it as a crash.
  };
  for (Delimiter delimiter : delimiters)
    for (bool allow_missing : {false, true}) {
      for (Header header : headers) parse(TextFormat{delimiter, header, allow_missing});
      parse(TextFormat{
          delimiter, Header::automatic, allow_missing, {ColumnKind::category, ColumnKind::unused}, ColumnKind::number});
      parse(TextFormat{delimiter, Header::automatic, allow_missing, {ColumnKind::number}, ColumnKind::category});
    }
  // The token parser on its own, against strtod (C locale) as a reference: every maximal run of
  // characters that can make up a decimal number must be accepted by both or by neither, with
  // the same value; a value too small for a double is 0 (finite), one too large is rejected.
  static const std::string_view number_chars = "0123456789.eE+-";
  std::size_t at = 0;
  while (at < size) {
    const std::size_t start = text.find_first_of(number_chars, at);
    if (start == std::string_view::npos) break;
    std::size_t end = text.find_first_not_of(number_chars, start);
    if (end == std::string_view::npos) end = size;
    at = end;
    if (end - start > 64) continue;
    const std::string token(text.substr(start, end - start));
    double value = 0.0;
    const bool accepted = bnn::data::parse_number(token, value);
    if (accepted && !std::isfinite(value)) finding("parse_number accepted a non-finite value", {});
    char* stop = nullptr;
    const double reference = std::strtod(token.c_str(), &stop);
    // strtod also takes "+-"-free forms only; parse_number refuses "+-1" and "++1", as does strtod.
    const bool reference_accepts = stop == token.c_str() + token.size() && std::isfinite(reference);
    if (accepted != reference_accepts) {
      std::fprintf(stderr, "token '%s': parse_number %d, strtod %d\n", token.c_str(), accepted, reference_accepts);
      finding("parse_number and strtod disagree on acceptance", {});
    }
    if (accepted && value != reference) {
      std::fprintf(stderr, "token '%s': parse_number %.17g, strtod %.17g\n", token.c_str(), value, reference);
      finding("parse_number and strtod disagree on the value", {});
    }
  }
  return 0;
}
