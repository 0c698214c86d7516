#pragma once
// Reading and writing the harness's text files (reports, CSV tables, figures).
#include <string>

namespace bnn::exp {

// Writes `text` to `path` through a temporary file and a rename, so that a failed write leaves
// the old file; gzip-compressed when the name ends in ".gz". Refuses a directory and a results
// store (an SQLite file), naming `option`.
void write_text_file(const std::string& path, const std::string& text, const std::string& option);
// The refusals of write_text_file alone, for a command to check before long work.
void check_output_path(const std::string& path, const std::string& option);
// The file's text (decompressed, for a gzip file); throws std::invalid_argument naming `option`
// when it cannot be read.
std::string read_text_file(const std::string& path, const std::string& option);
// `directory`/`name`, or `name`.gz there if only that exists (a large committed per-job file);
// empty when neither does.
std::string find_text_file(const std::string& directory, const std::string& name);

}  // namespace bnn::exp
