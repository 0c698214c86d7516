#pragma once
#include <stdexcept>
#include <string>

namespace bnn::data {

// A problem with input data, located as precisely as known. what() is one line:
// "FILE, line L, column C: message" (line and column are 1-based; 0 means not applicable).
class DataError : public std::runtime_error {
 public:
  DataError(std::string file, long line, long column, const std::string& message);
  const std::string& file() const { return file_; }
  long line() const { return line_; }
  long column() const { return column_; }

 private:
  std::string file_;
  long line_;
  long column_;
};

}  // namespace bnn::data
