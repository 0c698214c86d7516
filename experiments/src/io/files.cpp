#include "experiments/src/io/files.hpp"

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace bnn::exp {

void check_output_path(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  if (fs::is_directory(path)) throw std::invalid_argument(option + " " + path + " is a directory, not a file");
  if (fs::exists(path)) {
    std::array<char, 16> head{};
    std::ifstream in(path, std::ios::binary);
    in.read(head.data(), head.size());
    if (in.gcount() == 16 && std::memcmp(head.data(), "SQLite format 3", 16) == 0)
      throw std::invalid_argument(option + " " + path +
                                  " is a results store (SQLite database); refusing to overwrite it");
  }
}

void write_text_file(const std::string& path, const std::string& text, const std::string& option) {
  namespace fs = std::filesystem;
  check_output_path(path, option);
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw std::runtime_error("cannot write " + path + " (" + option + ")");
    }
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    fs::remove(temporary, error);
    throw std::runtime_error("cannot write " + path + " (" + option + ")");
  }
}

std::string read_text_file(const std::string& path, const std::string& option) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(option + ": cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace bnn::exp
