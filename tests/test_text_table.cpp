// Tests of the numeric text-table parser (datasets/src/text_table.*): delimiters, line endings,
// missing values, headers, and the location (file, line, column) of every malformed-input error.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/src/data_error.hpp"
#include "datasets/src/text_table.hpp"
#include "tests/support/data_mirror.hpp"

using namespace std::string_literals;
using bnn::data::ColumnKind;
using bnn::data::DataError;
using bnn::data::Delimiter;
using bnn::data::Header;
using bnn::data::NumericTable;
using bnn::data::parse_numeric_table;
using bnn::data::TextFormat;

namespace {

const std::string kFile = "table.txt";

TextFormat fmt(Delimiter d = Delimiter::automatic, Header h = Header::absent, bool missing = false) {
  return TextFormat{d, h, missing};
}

// Parses `text` expecting a DataError; returns it (empty optional if none was thrown).
std::optional<DataError> parse_error(std::string_view text, const TextFormat& format = {}) {
  try {
    parse_numeric_table(text, kFile, format);
  } catch (const DataError& e) {
    return e;
  }
  return std::nullopt;
}

// The DataError must name the file, the line and (when > 0) the column, both in its accessors
// and at the start of what(); `fragment` must occur in the message.
void require_located(const std::optional<DataError>& error, long line, long column, const std::string& fragment) {
  REQUIRE(error.has_value());
  const std::string what = error->what();
  CAPTURE(what);
  CHECK(error->file() == kFile);
  CHECK(error->line() == line);
  CHECK(error->column() == column);
  std::string prefix = kFile;
  if (line > 0) prefix += ", line " + std::to_string(line);
  if (column > 0) prefix += ", column " + std::to_string(column);
  prefix += ": ";
  CHECK(what.rfind(prefix, 0) == 0);
  CHECK(what.find(fragment) != std::string::npos);
}

void require_matrix(const NumericTable& t, const std::vector<std::vector<double>>& expected) {
  REQUIRE(t.values.rows() == static_cast<Eigen::Index>(expected.size()));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    REQUIRE(t.values.cols() == static_cast<Eigen::Index>(expected[i].size()));
    for (std::size_t j = 0; j < expected[i].size(); ++j) {
      CAPTURE(i, j);
      CHECK(t.values(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) == expected[i][j]);
    }
  }
}

}  // namespace

TEST_CASE("text table: whitespace, tab and comma delimiters", "[text_table]") {
  const std::vector<std::vector<double>> expected = {{1, 2.5, -3}, {4e-3, 5, 6}};
  SECTION("spaces, repeated and leading/trailing") {
    const auto t = parse_numeric_table("1 2.5   -3\n  4e-3 5 6  \n", kFile, fmt(Delimiter::whitespace));
    require_matrix(t, expected);
    CHECK(t.line_numbers == std::vector<long>{1, 2});
    CHECK(t.names.empty());
    CHECK(t.missing_count == 0);
    CHECK(t.file == kFile);
  }
  SECTION("tabs, with a trailing tab and space") {
    require_matrix(parse_numeric_table("1\t2.5\t-3\t \n4e-3\t5\t6\n", kFile, fmt(Delimiter::whitespace)), expected);
  }
  SECTION("commas, with spaces around fields") {
    require_matrix(parse_numeric_table("1,2.5, -3\n4e-3 ,5,6\n", kFile, fmt(Delimiter::comma)), expected);
  }
  SECTION("automatic: comma detected") {
    require_matrix(parse_numeric_table("1,2.5,-3\n4e-3,5,6\n", kFile, fmt()), expected);
    std::vector<std::size_t> widths;
    const Delimiter used =
        bnn::data::for_each_row("1,2.5,-3\n4e-3,5,6\n", kFile, Delimiter::automatic,
                                [&](long, const std::vector<std::string_view>& f) { widths.push_back(f.size()); });
    CHECK(used == Delimiter::comma);
    CHECK(widths == std::vector<std::size_t>{3, 3});
  }
  SECTION("automatic: whitespace detected") {
    require_matrix(parse_numeric_table("1 2.5\t-3\n4e-3 5 6\n", kFile, fmt()), expected);
    const Delimiter used = bnn::data::for_each_row("1 2\n", kFile, Delimiter::automatic, [](long, const auto&) {});
    CHECK(used == Delimiter::whitespace);
  }
  SECTION("whitespace mode does not split on commas") {
    require_located(parse_error("1,2\n", fmt(Delimiter::whitespace)), 1, 1, "non-numeric value '1,2'");
  }
  SECTION("automatic mode decides on the first row") {
    require_located(parse_error("1\n3,4\n"), 2, 1, "non-numeric value '3,4'");
  }
  SECTION("numbers in various notations") {
    require_matrix(parse_numeric_table("+1 .5 5. -0.25 1E3 2e+2 -1.5e-2\n", kFile, fmt()),
                   {{1, 0.5, 5, -0.25, 1000, 200, -0.015}});
  }
  SECTION("parse_delimiter names") {
    CHECK(bnn::data::parse_delimiter("auto") == Delimiter::automatic);
    CHECK(bnn::data::parse_delimiter("whitespace") == Delimiter::whitespace);
    CHECK(bnn::data::parse_delimiter("tab") == Delimiter::tab);
    CHECK(bnn::data::parse_delimiter("space") == Delimiter::whitespace);
    CHECK(bnn::data::parse_delimiter("comma") == Delimiter::comma);
    CHECK_THROWS_AS(bnn::data::parse_delimiter("semicolon"), std::invalid_argument);
  }
}

TEST_CASE("text table: LF, CRLF and CR CR LF line endings, trailing blank lines", "[text_table]") {
  const std::vector<std::vector<double>> expected = {{1, 2}, {3, 4}};
  for (const std::string& eol : {"\n"s, "\r\n"s, "\r\r\n"s}) {
    CAPTURE(eol.size());
    for (const std::string& sep : {" "s, ","s}) {
      const std::string body = "1" + sep + "2" + eol + "3" + sep + "4";
      const auto with_final = parse_numeric_table(body + eol, kFile, fmt());
      require_matrix(with_final, expected);
      CHECK(with_final.line_numbers == std::vector<long>{1, 2});
      require_matrix(parse_numeric_table(body, kFile, fmt()), expected);  // no final newline
      const auto blanks = parse_numeric_table(body + eol + eol + "  " + eol + "\t" + eol, kFile, fmt());
      require_matrix(blanks, expected);
      CHECK(blanks.line_numbers == std::vector<long>{1, 2});
    }
  }
  SECTION("line numbers count every line") {
    const auto t =
        parse_numeric_table("a b\r\n1 2\r\n3 4\r\n5 6\r\n\r\n", kFile, fmt(Delimiter::automatic, Header::present));
    CHECK(t.line_numbers == std::vector<long>{2, 3, 4});
  }
}

TEST_CASE("text table: '?' is accepted only with allow_missing", "[text_table]") {
  SECTION("allowed: NaN and counted") {
    const auto t = parse_numeric_table("1,?,3\n?,5,?\n", kFile, fmt(Delimiter::comma, Header::absent, true));
    REQUIRE(t.values.rows() == 2);
    REQUIRE(t.values.cols() == 3);
    CHECK(t.missing_count == 3);
    CHECK(std::isnan(t.values(0, 1)));
    CHECK(std::isnan(t.values(1, 0)));
    CHECK(std::isnan(t.values(1, 2)));
    CHECK(t.values(0, 0) == 1);
    CHECK(t.values(1, 1) == 5);
    CHECK(t.values(0, 2) == 3);
  }
  SECTION("allowed with whitespace delimiter") {
    const auto t = parse_numeric_table("1 ?\n", kFile, fmt(Delimiter::whitespace, Header::absent, true));
    CHECK(t.missing_count == 1);
    CHECK(std::isnan(t.values(0, 1)));
  }
  SECTION("not allowed") {
    require_located(parse_error("1,2,3\n4,?,6\n", fmt(Delimiter::comma)), 2, 2, "missing value '?'");
    require_located(parse_error("1 2\n3 4\n5 ?\n", fmt(Delimiter::whitespace)), 3, 2, "missing value '?'");
  }
  SECTION("only a lone '?' is missing") {
    require_located(parse_error("1 ??\n", fmt(Delimiter::whitespace, Header::absent, true)), 1, 2,
                    "non-numeric value '?\?'");
    require_located(parse_error("1,? 2\n", fmt(Delimiter::comma, Header::absent, true)), 1, 2,
                    "non-numeric value '? 2'");
  }
}

TEST_CASE("text table: header automatic, present and absent", "[text_table]") {
  SECTION("automatic, with a header row") {
    const auto t = parse_numeric_table("x1,x2,y\n1,2,3\n4,5,6\n", kFile, fmt(Delimiter::automatic, Header::automatic));
    CHECK(t.names == std::vector<std::string>{"x1", "x2", "y"});
    require_matrix(t, {{1, 2, 3}, {4, 5, 6}});
    CHECK(t.line_numbers == std::vector<long>{2, 3});
  }
  SECTION("automatic, without a header row") {
    const auto t = parse_numeric_table("1 2\n3 4\n", kFile, fmt(Delimiter::automatic, Header::automatic));
    CHECK(t.names.empty());
    require_matrix(t, {{1, 2}, {3, 4}});
  }
  SECTION("automatic: a first row with '?' is data") {
    const auto t = parse_numeric_table("1 ?\n3 4\n", kFile, fmt(Delimiter::automatic, Header::automatic, true));
    CHECK(t.names.empty());
    CHECK(t.values.rows() == 2);
  }
  SECTION("automatic: a first row of numbers and text is neither for sure: an error asking") {
    // a headerless file whose first row has a text field used to lose that row as a header
    require_located(parse_error("1 chevrolet 3\n4 5 6\n", fmt(Delimiter::automatic, Header::automatic)), 1, 2,
                    "the first row mixes numbers and text ('chevrolet'): say whether it is a header");
    const auto t = parse_numeric_table("1 chevrolet 3\n4 5 6\n", kFile, fmt(Delimiter::automatic, Header::present));
    CHECK(t.names == std::vector<std::string>{"1", "chevrolet", "3"});
  }
  SECTION("present: the first row is a header even if numeric") {
    const auto t = parse_numeric_table("10 20\n3 4\n", kFile, fmt(Delimiter::automatic, Header::present));
    CHECK(t.names == std::vector<std::string>{"10", "20"});
    require_matrix(t, {{3, 4}});
    CHECK(t.line_numbers == std::vector<long>{2});
  }
  SECTION("absent: a text first row is an error") {
    require_located(parse_error("a b\n1 2\n", fmt(Delimiter::automatic, Header::absent)), 1, 1,
                    "non-numeric value 'a'");
  }
  SECTION("automatic: a second text row is an error at its line") {
    require_located(parse_error("a b\nc d\n", fmt(Delimiter::automatic, Header::automatic)), 2, 1,
                    "non-numeric value 'c'");
  }
  SECTION("a header and no data") {
    for (const Header h : {Header::automatic, Header::present}) {
      const auto e = parse_error("a b\n\n", fmt(Delimiter::automatic, h));
      require_located(e, 0, 0, "no data rows");
    }
  }
  SECTION("a header wider than the data is a ragged row") {
    require_located(parse_error("a b c\n1 2\n", fmt(Delimiter::automatic, Header::automatic)), 2, 3,
                    "row has 2 columns but line 1 has 3");
  }
}

TEST_CASE("text table: malformed input gives DataError with file, line and column", "[text_table]") {
  SECTION("ragged row, too few fields") {
    require_located(parse_error("1 2 3\n4 5 6\n7 8\n"), 3, 3, "row has 2 columns but line 1 has 3");
  }
  SECTION("ragged row, too many fields") {
    require_located(parse_error("1,2\n3,4,5\n"), 2, 3, "row has 3 columns but line 1 has 2");
  }
  SECTION("ragged row after a header, CRLF endings") {
    require_located(parse_error("a,b\r\n1,2\r\n3\r\n", fmt(Delimiter::comma, Header::present)), 3, 2,
                    "row has 1 columns but line 1 has 2");
  }
  SECTION("non-numeric token") {
    require_located(parse_error("1 2\n3 4x\n"), 2, 2, "non-numeric value '4x'");
    require_located(parse_error("1,2\n3,abc\n"), 2, 2, "non-numeric value 'abc'");
    require_located(parse_error("1 0x10\n"), 1, 2, "non-numeric value '0x10'");
    require_located(parse_error("1 +-2\n"), 1, 2, "non-numeric value '+-2'");
    require_located(parse_error("1 1e\n"), 1, 2, "non-numeric value '1e'");
  }
  SECTION("nan, inf and overflowing tokens") {
    for (const std::string& token :
         {"nan"s, "NaN"s, "-nan"s, "inf"s, "-inf"s, "+inf"s, "Infinity"s, "1e999"s, "-1e999"s, "1.8e308"s}) {
      CAPTURE(token);
      require_located(parse_error("1 2\n3 " + token + "\n"), 2, 2, "non-finite value '" + token + "'");
      require_located(parse_error("1," + token + "\n", fmt(Delimiter::comma)), 1, 2, "non-finite");
    }
  }
  SECTION("empty file") {
    require_located(parse_error(""), 0, 0, "the file is empty");
    require_located(parse_error("", fmt(Delimiter::comma, Header::automatic)), 0, 0, "the file is empty");
  }
  SECTION("whitespace-only file") {
    require_located(parse_error("  \n\t\n\r\n \r\r\n"), 0, 0, "the file is empty");
    require_located(parse_error("\n"), 0, 0, "the file is empty");
  }
  SECTION("blank line inside the table") {
    require_located(parse_error("1 2\n\n3 4\n"), 2, 0, "blank line inside the table");
    require_located(parse_error("1 2\r\n3 4\r\n \t \r\n5 6\r\n"), 3, 0, "data follows on line 4");
    require_located(parse_error("\n1 2\n"), 1, 0, "blank line");  // a leading blank line
  }
  SECTION("empty comma field") {
    require_located(parse_error("1,2,3\n4,,6\n"), 2, 2, "empty field");
    require_located(parse_error("1,2,\n"), 1, 3, "empty field");
    require_located(parse_error(",1,2\n"), 1, 1, "empty field");
    require_located(parse_error("1, ,2\n"), 1, 2, "empty field");
    require_located(parse_error("1,2\n3,4\n5,\t\n", fmt(Delimiter::comma)), 3, 2, "empty field");
  }
  SECTION("lone carriage return inside a line") {
    require_located(parse_error("1 2\r3 4\n"), 1, 0, "carriage return inside a line");
    require_located(parse_error("1 2\n3\r4\n5 6\n"), 2, 0, "carriage return inside a line");
    require_located(parse_error("1,2\r\n3,4\r5,6\r\n"), 2, 0, "carriage return inside a line");
  }
  SECTION("bytes no text table holds: NUL (binary, UTF-16) and other control characters") {
    require_located(parse_error("1 2\n3 \0\n"s), 2, 0, "not a text table: byte 0x00");
    require_located(parse_error("\0"s), 1, 0, "not a text table: byte 0x00 (a binary or UTF-16 file?)");
    require_located(parse_error("1,\0,3\n"s), 1, 0, "byte 0x00");
    require_located(parse_error("1 2\n3 4\n5 \x01\n"s), 3, 0, "byte 0x01");
    require_located(parse_error("1 2\x7f\n"s), 1, 0, "byte 0x7f");
    // a UTF-16 file: every other byte is 0
    require_located(parse_error("1\0 \0002\0\n\0"s), 1, 0, "UTF-16");
  }
  SECTION("an unnamed input is called <input>") {
    try {
      parse_numeric_table("x\n", "", fmt());
      FAIL("no DataError");
    } catch (const DataError& e) {
      CHECK(std::string(e.what()).rfind("<input>, line 1, column 1: ", 0) == 0);
    }
  }
}

TEST_CASE("text table: parse_number", "[text_table]") {
  double v = -1.0;
  CHECK(bnn::data::parse_number("42", v));
  CHECK(v == 42.0);
  CHECK(bnn::data::parse_number("+2.5", v));
  CHECK(v == 2.5);
  CHECK(bnn::data::parse_number("-1e-3", v));
  CHECK(v == -1e-3);
  CHECK(bnn::data::parse_number("1e-310", v));  // subnormal
  CHECK(v == 1e-310);
  for (const char* bad :
       {"", "+", "-", "+-1", "++1", "1e", "e5", "0x10", " 1", "1 ", "1,5", "inf", "nan", "1e999", "?"}) {
    CAPTURE(bad);
    CHECK_FALSE(bnn::data::parse_number(bad, v));
  }
}

TEST_CASE("text table: values too small for a double read as zero", "[text_table]") {
  // 1e-400 is a finite decimal number that rounds to 0; strtod and numpy read it as 0.0.
  double v = -1.0;
  CHECK(bnn::data::parse_number("1e-400", v));
  CHECK(v == 0.0);
  CHECK(bnn::data::parse_number("-0.00001e-320", v));
  CHECK(v == 0.0);
  CHECK(std::signbit(v));
  // Exponents at the limits of a long.
  CHECK(bnn::data::parse_number("0.01e-9223372036854775807", v));
  CHECK(v == 0.0);
  CHECK(bnn::data::parse_number("0.01e-99999999999999999999999", v));
  CHECK_FALSE(bnn::data::parse_number("100e9223372036854775807", v));
  CHECK_FALSE(bnn::data::parse_number("100e+99999999999999999999999", v));
  const auto t = parse_numeric_table("1 1e-400\n2 3\n", kFile, fmt());
  CHECK(t.values(0, 1) == 0.0);
  // ... but overflow stays an error.
  require_located(parse_error("1 100000e304\n"), 1, 2, "non-finite value");
}

TEST_CASE("text table: reading files", "[text_table]") {
  const std::filesystem::path dir = bnn::test::scratch_dir("text_table", "reading-files");
  const std::string path = (dir / "t.csv").string();
  {
    std::ofstream out(path, std::ios::binary);
    out << "a,b\r\n1,2\r\n3,x\r\n";
  }
  try {
    bnn::data::read_numeric_table(path, fmt(Delimiter::comma, Header::present));
    FAIL("no DataError");
  } catch (const DataError& e) {
    CHECK(e.file() == path);
    CHECK(e.line() == 3);
    CHECK(e.column() == 2);
    CHECK(std::string(e.what()).rfind(path + ", line 3, column 2: non-numeric value 'x'", 0) == 0);
  }
  const std::string missing = (dir / "does-not-exist.txt").string();
  try {
    bnn::data::read_numeric_table(missing);
    FAIL("no DataError");
  } catch (const DataError& e) {
    CHECK(e.file() == missing);
    CHECK(e.line() == 0);
    CHECK(std::string(e.what()).find("cannot open") != std::string::npos);
  }
}

TEST_CASE("text table: a file with a NUL byte is refused on its first read", "[text_table]") {
  const auto path = bnn::test::scratch_dir("text_table", "nul") / "table.bin";
  {
    std::ofstream out(path, std::ios::binary);
    out << "1 2\n3 4\n" << '\0' << std::string(3 << 20, 'x');  // 3 MiB after it
  }
  try {
    bnn::data::read_file(path.string());
    FAIL("no DataError");
  } catch (const DataError& e) {
    CHECK(e.line() == 3);
    CHECK(std::string(e.what()).find("not a text table") != std::string::npos);
  }
  std::filesystem::remove(path);
}

TEST_CASE("text table: a tab delimiter separates at every tab", "[text_table]") {
  SECTION("a field may hold spaces") {
    const auto t = parse_numeric_table("a b\tc\n1\t2\n", kFile, fmt(Delimiter::tab, Header::present));
    CHECK(t.names == std::vector<std::string>{"a b", "c"});
    require_matrix(t, {{1, 2}});
  }
  SECTION("an empty field is missing, not a skipped column") {
    require_located(parse_error("1\t\t3\n", fmt(Delimiter::tab)), 1, 2, "empty field");
    const auto t = parse_numeric_table("1\t\t3\n", kFile, fmt(Delimiter::tab, Header::absent, true));
    REQUIRE(t.values.cols() == 3);
    CHECK(std::isnan(t.values(0, 1)));
    CHECK(t.missing_count == 1);
  }
  SECTION("spaces around a field are padding") {
    require_matrix(parse_numeric_table(" 1 \t 2\n", kFile, fmt(Delimiter::tab)), {{1, 2}});
  }
}

TEST_CASE("text table: quoted fields", "[text_table]") {
  TextFormat names_and_numbers = fmt(Delimiter::automatic, Header::absent);
  names_and_numbers.columns = {ColumnKind::number, ColumnKind::category};
  SECTION("RFC 4180: commas, doubled quotes and line breaks inside quotes") {
    const auto t = parse_numeric_table("1,\"chevrolet, chevelle\"\n2,\"say \"\"hi\"\"\"\n3,\"two\nlines\"\n4,plain\n",
                                       kFile, names_and_numbers);
    REQUIRE(t.values.rows() == 4);
    CHECK(t.line_numbers == std::vector<long>{1, 2, 3, 5});  // a record's first line
    CHECK(t.levels[1] == std::vector<std::string>{"chevrolet, chevelle", "plain", "say \"hi\"", "two\nlines"});
    CHECK(t.values(0, 1) == 0);
    CHECK(t.values(1, 1) == 2);
    CHECK(t.values(3, 1) == 1);
  }
  SECTION("a quoted text column after a tab in a whitespace-separated file (auto-mpg)") {
    TextFormat mpg = fmt(Delimiter::automatic);
    mpg.columns = {ColumnKind::number, ColumnKind::number, ColumnKind::unused};
    const auto t =
        parse_numeric_table("18.0   8\t\"chevrolet chevelle malibu\"\n15.0   8\t\"buick skylark 320\"\n", kFile, mpg);
    REQUIRE(t.values.rows() == 2);
    REQUIRE(t.values.cols() == 3);
    CHECK(t.values(1, 0) == 15.0);
    CHECK(std::isnan(t.values(1, 2)));
  }
  SECTION("a comma inside quotes does not make the file comma-separated") {
    const auto used = bnn::data::for_each_row("1 \"a, b\"\n", kFile, Delimiter::automatic, [](long, const auto&) {});
    CHECK(used == Delimiter::whitespace);
  }
  SECTION("quoted numbers and header names are unquoted") {
    const auto t = parse_numeric_table("\"x\",\"y\"\n\"1.5\",2\n", kFile, fmt(Delimiter::comma, Header::automatic));
    CHECK(t.names == std::vector<std::string>{"x", "y"});
    require_matrix(t, {{1.5, 2}});
  }
  SECTION("errors: an unclosed quote, text after a closing quote") {
    require_located(parse_error("1,2\n3,\"abc\n5,6\n", fmt(Delimiter::comma)), 2, 2, "quoted field is not closed");
    require_located(parse_error("1,\"a\"b\n", fmt(Delimiter::comma)), 1, 2, "text after the closing quote");
    require_located(parse_error("1 \"a\"b\n", fmt(Delimiter::whitespace)), 1, 2, "right after the closing quote");
  }
}

TEST_CASE("text table: unused columns are not parsed, and category columns are labels", "[text_table]") {
  TextFormat format = fmt(Delimiter::comma, Header::automatic);
  format.columns = {ColumnKind::category, ColumnKind::unused, ColumnKind::number};
  format.other_columns = ColumnKind::unused;
  SECTION("text in an unused column is fine; levels are sorted") {
    const auto t = parse_numeric_table("grade,name,price,notes\nE,abc,1,x\nA,?,2,\nC,,3,y\nA,d,4,z\n", kFile, format);
    CHECK(t.names.size() == 4);
    CHECK(t.levels[0] == std::vector<std::string>{"A", "C", "E"});
    CHECK(t.levels[1].empty());
    REQUIRE(t.values.rows() == 4);
    CHECK(t.values(0, 0) == 2);
    CHECK(t.values(1, 0) == 0);
    CHECK(t.values(2, 0) == 1);
    CHECK(std::isnan(t.values(0, 1)));
    CHECK(std::isnan(t.values(0, 3)));
    CHECK(t.values(3, 2) == 4);
    CHECK(t.missing_count == 0);  // the '?' and the empty fields are in unused columns
  }
  SECTION("numeric labels sort as numbers") {
    const auto t = parse_numeric_table("10,x,1\n9,x,2\n100,x,3\n", kFile, format);
    CHECK(t.levels[0] == std::vector<std::string>{"9", "10", "100"});
  }
  SECTION("a missing label is missing") {
    require_located(parse_error("A,x,1\n?,x,2\n", format), 2, 1, "missing value");
    format.allow_missing = true;
    const auto t = parse_numeric_table("A,x,1\n?,x,2\n", kFile, format);
    CHECK(std::isnan(t.values(1, 0)));
    CHECK(t.missing_count == 1);
  }
  SECTION("the header is judged on the number columns") {
    // "E" in a category column does not make the first row a header, nor a mixed one
    CHECK(parse_numeric_table("E,abc,1\nA,d,2\n", kFile, format).values.rows() == 2);
    CHECK(parse_numeric_table("grade,name,price\nA,d,2\n", kFile, format).names.size() == 3);
  }
  SECTION("non-numeric text in a number column is still an error") {
    require_located(parse_error("A,x,1\nB,y,one\n", format), 2, 3, "non-numeric value 'one'");
  }
}
