#include "experiments/src/io/files.hpp"

#include <stdlib.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <zlib.h>

namespace bnn::exp {

namespace {
std::mutex inputs_mutex;
std::vector<std::pair<std::string, std::string>>& inputs() {  // path, what it is
  static std::vector<std::pair<std::string, std::string>> registered;
  return registered;
}
}  // namespace

ScratchDirectory::ScratchDirectory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "bnnbench-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("could not create a scratch directory under " +
                             std::filesystem::temp_directory_path().string());
  path_ = pattern;
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void register_input(const std::string& path, const std::string& what) {
  const std::lock_guard lock(inputs_mutex);
  inputs().emplace_back(path, what);
}

void check_output_path(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  if (fs::is_directory(path)) throw std::invalid_argument(option + " " + path + " is a directory, not a file");
  if (!fs::exists(path)) return;
  std::array<char, 16> head{};
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), head.size());
  if (in.gcount() == 16 && std::memcmp(head.data(), "SQLite format 3", 16) == 0)
    throw std::invalid_argument(option + " " + path +
                                " is a results store (SQLite database); refusing to overwrite it");
  const std::lock_guard lock(inputs_mutex);
  for (const auto& [input, what] : inputs()) {
    std::error_code ec;
    if (fs::equivalent(path, input, ec) && !ec)
      throw std::invalid_argument(option + " " + path + " is " + what + " (" + input +
                                  "), which this command reads; refusing to overwrite it");
  }
}

void write_text_file(const std::string& path, const std::string& text, const std::string& option) {
  namespace fs = std::filesystem;
  check_output_path(path, option);
  const std::string temporary = path + ".partial";
  const auto fail = [&] {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw std::runtime_error("cannot write " + path + " (" + option + ")");
  };
  if (path.ends_with(".gz")) {
    gzFile out = gzopen(temporary.c_str(), "wb9");  // zlib's header: no name, no time stamp
    if (out == nullptr) fail();
    const bool written =
        text.empty() || gzwrite(out, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size());
    if (gzclose(out) != Z_OK || !written) fail();
  } else {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    out.close();
    if (!out) fail();
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    fs::remove(temporary, error);
    throw std::runtime_error("cannot write " + path + " (" + option + ")");
  }
}

std::string read_text_file(const std::string& path, const std::string& option) {
  if (path.ends_with(".gz")) {
    gzFile in = gzopen(path.c_str(), "rb");
    if (in == nullptr) throw std::invalid_argument(option + ": cannot read " + path);
    std::string text;
    std::array<char, 1 << 16> buffer;
    int got = 0;
    while ((got = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0)
      text.append(buffer.data(), static_cast<std::size_t>(got));
    const bool damaged = got < 0;
    gzclose(in);
    if (damaged) throw std::invalid_argument(option + ": " + path + " is not a readable gzip file");
    return text;
  }
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(option + ": cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string find_text_file(const std::string& directory, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path plain = fs::path(directory) / name, compressed = fs::path(directory) / (name + ".gz");
  if (fs::exists(plain)) return plain.string();
  if (fs::exists(compressed)) return compressed.string();
  return {};
}

}  // namespace bnn::exp
