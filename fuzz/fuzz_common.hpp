#pragma once
// Shared by the fuzz targets of the TOML readers (fuzz_registry.cpp, fuzz_spec.cpp): scratch
// files for the parsers, which read files, the DataError contract, and how findings are reported.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "datasets/src/data_error.hpp"

namespace bnn::fuzz {

// Finding ids listed (comma-separated) in $BNN_FUZZ_KNOWN are printed once and not aborted on,
// so that a long run can go on past a finding already reported (see fuzz/README.md).
inline bool is_known(std::string_view id) {
  static const std::string known = [] {
    const char* env = std::getenv("BNN_FUZZ_KNOWN");
    return "," + std::string(env ? env : "") + ",";
  }();
  return known.find("," + std::string(id) + ",") != std::string::npos;
}

// Reports a broken invariant as "FINDING [id]: message" and aborts (libFuzzer then saves the
// input), unless the id is known; then it returns and the caller goes on.
inline void finding(std::string_view id, const std::string& message) {
  if (is_known(id)) {
    static std::set<std::string, std::less<>> seen;
    if (seen.insert(std::string(id)).second)
      std::fprintf(stderr, "KNOWN FINDING [%.*s] (first occurrence, not aborting): %s\n", static_cast<int>(id.size()),
                   id.data(), message.c_str());
    return;
  }
  std::fprintf(stderr, "FINDING [%.*s]: %s\n", static_cast<int>(id.size()), id.data(), message.c_str());
  std::abort();
}

// With $BNN_FUZZ_VERBOSE set, the targets print what the parser made of each input (to see
// what a seed or a reproducer exercises).
inline bool verbose() {
  static const bool on = std::getenv("BNN_FUZZ_VERBOSE") != nullptr;
  return on;
}

}  // namespace bnn::fuzz

// A failed toml++ assertion (toml_assert.hpp). Defined here, so this header is included by one
// source file per target. A known "toml-assert" is printed once per place in toml++.
extern "C" void bnn_fuzz_toml_assert(const char* expression, const char* file, int line) {
  const std::string where = std::string(file) + ":" + std::to_string(line) + ": " + expression;
  if (bnn::fuzz::is_known("toml-assert")) {
    static std::set<std::string> seen;
    if (seen.insert(where).second)
      std::fprintf(stderr, "KNOWN FINDING [toml-assert] (first occurrence here, not aborting): %s\n", where.c_str());
    return;
  }
  bnn::fuzz::finding("toml-assert", "toml++ assertion failed: " + where);
}

namespace bnn::fuzz {

// A file of this process in /dev/shm ($BNN_FUZZ_TMPDIR overrides), removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name) {
    const char* dir = std::getenv("BNN_FUZZ_TMPDIR");
    path_ = std::string(dir && *dir ? dir : "/dev/shm") + "/bnnbench-fuzz-" + std::to_string(::getpid()) + "-" + name;
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& path() const { return path_; }
  void write(std::string_view text) const {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f) != 0) {
      std::fprintf(stderr, "fuzz target: cannot write %s\n", path_.c_str());
      std::exit(2);  // the environment, not a finding
    }
  }

 private:
  std::string path_;
};

inline long count_lines(std::string_view text) {
  long lines = 0;
  for (char c : text) lines += c == '\n';
  return lines + 1;  // a last line without '\n'
}

inline std::string printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
      out += buffer;
    }
  }
  return out;
}

// DataError's contract (data_error.hpp): what() is one line, "FILE, line L, column C: message",
// naming the file that was read; line and column are >= 0, 0 meaning not applicable.
inline void check_data_error(const data::DataError& e, const std::string& path, std::string_view text) {
  const std::string what = e.what();
  const std::string shown = "'" + printable(what) + "'";
  if (e.file() != path || what.rfind(path, 0) != 0)
    finding("error-file", "DataError does not name " + path + ": " + shown);
  if (e.line() < 0 || e.column() < 0) finding("error-location", "negative line or column: " + shown);
  if (e.line() > count_lines(text)) finding("error-location", "error line beyond the end of the input: " + shown);
  if (e.line() == 0 && e.column() != 0) finding("error-location", "column without a line: " + shown);
  std::string where = path;
  if (e.line() > 0) where += ", line " + std::to_string(e.line());
  if (e.column() > 0) where += ", column " + std::to_string(e.column());
  where += ": ";
  if (what.rfind(where, 0) != 0 || what.size() == where.size())
    finding("error-format", "what() is not 'FILE, line L, column C: message': " + shown);
  if (what.find_first_of("\r\n") != std::string::npos) finding("error-one-line", "what() is not one line: " + shown);
}

}  // namespace bnn::fuzz
