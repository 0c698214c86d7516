#pragma once
// Putting data files into the data directory: from the registry's URLs (libcurl), from a
// local mirror folder, or from a mirror URL; every file is checked against its sha256 before
// it is moved into place, so a partial or corrupted download never looks present.
#include <functional>
#include <string>
#include <vector>

#include "registry.hpp"

namespace bnn::data {

class FetchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The source does not have the file (not in the mirror folder, HTTP 404): a data set the mirror
// does not hold, rather than one that failed.
class SourceMissing : public FetchError {
 public:
  using FetchError::FetchError;
};

// --data-dir if given, else $BNNBENCH_DATA, else $XDG_CACHE_HOME/bnnbench or ~/.cache/bnnbench.
std::string resolve_data_dir(const std::string& from_command_line);

std::string sha256_hex(std::string_view bytes);
std::string sha256_file(const std::string& path);  // FetchError if unreadable

struct FetchOptions {
  std::string data_dir;
  std::string from;  // empty: registry URLs; a folder or an http(s)/file URL of a mirror
  std::function<void(const std::string&)> log = [](const std::string&) {};
};

// Fetches the source files of one data set and builds its derived table. Throws FetchError
// naming the data set and file on any failure; files already verified are kept.
void fetch_dataset(const DatasetSpec& spec, const FetchOptions& options);

struct DatasetStatus {
  bool present = false;   // every file needed to load the table is there
  bool verified = false;  // ... and matches its registry checksum
  std::string detail;     // e.g. "missing data.txt", "checksum mismatch", "no checksum known"
};
DatasetStatus dataset_status(const DatasetSpec& spec, const std::string& data_dir);

// The checksum of `file` that its manifest (file.manifest, in the data set's folder `folder`)
// gives; FetchError naming the manifest and line when it is unreadable, malformed or lacks it.
std::string manifest_checksum(const DatasetSpec& spec, const std::string& folder, const SourceFile& file);

// Path of a data set's file in the data directory.
std::string dataset_file(const DatasetSpec& spec, const std::string& data_dir, const std::string& relative_path);

// Downloads `url` into `destination` (exposed for tests).
void download(const std::string& url, const std::string& destination);

}  // namespace bnn::data
