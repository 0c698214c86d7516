#pragma once
// Reading and writing the harness's text files (reports, CSV tables, figures).
#include <string>

namespace bnn::exp {

// A file this process reads (its spec, registry files, results store, a table given to `fit`),
// as `what` names it: no output may overwrite it, whatever path names it (the same device and
// inode; a hard or symbolic link too).
void register_input(const std::string& path, const std::string& what);

// Writes `text` to `path` through a temporary file and a rename, so that a failed write leaves
// the old file; gzip-compressed when the name ends in ".gz". Refuses a directory, a results
// store (an SQLite file) and a registered input, naming `option`.
void write_text_file(const std::string& path, const std::string& text, const std::string& option);
// The refusals of write_text_file alone, for a command to check before long work.
void check_output_path(const std::string& path, const std::string& option);
// The file's text (decompressed, for a gzip file); throws std::invalid_argument naming `option`
// when it cannot be read.
std::string read_text_file(const std::string& path, const std::string& option);
// A new folder under the system's temporary directory, removed with everything in it.
class ScratchDirectory {
 public:
  ScratchDirectory();
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `directory`/`name`, or `name`.gz there if only that exists (a large committed per-job file);
// empty when neither does.
std::string find_text_file(const std::string& directory, const std::string& name);

}  // namespace bnn::exp
