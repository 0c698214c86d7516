#include "data_error.hpp"

namespace bnn::data {
namespace {
// what() stays one line: a control character that reaches a message (a key holding a newline,
// the character a TOML parser stopped at) is shown escaped.
std::string one_line(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f)
      out += c;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else
      out += std::string("\\x") + "0123456789abcdef"[u >> 4] + "0123456789abcdef"[u & 15];
  }
  return out;
}

std::string locate(const std::string& file, long line, long column, const std::string& message) {
  std::string where = file.empty() ? std::string("<input>") : file;
  if (line > 0) where += ", line " + std::to_string(line);
  if (column > 0) where += ", column " + std::to_string(column);
  return one_line(where + ": " + message);
}
}  // namespace

DataError::DataError(std::string file, long line, long column, const std::string& message)
    : std::runtime_error(locate(file, line, column, message)), file_(std::move(file)), line_(line), column_(column) {}

}  // namespace bnn::data
