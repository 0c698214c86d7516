#include "data_error.hpp"

#include "methods/core/one_line.hpp"

namespace bnn::data {
namespace {
// what() stays one line (one_line.hpp).
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
