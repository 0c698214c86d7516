#pragma once
// The data-set registry (datasets/registry.toml): names, sources with checksums, how to
// read each table, published splits and synthetic generators.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text_table.hpp"

namespace bnn::data {

struct SourceFile {
  std::string path;     // relative to the data set's folder
  std::string sha256;   // empty: no checksum known (unless `manifest` gives it), used unverified
  std::string url;      // full URL; empty: url_base + path
  std::string archive;  // when set, the download is this zip archive holding `path`
  // When set, the checksum is this file's line for `path` (a file of the data set's folder in
  // sha256sum's format: "<64 hex digits>  <path>" per line).
  std::string manifest;
};

struct DeriveSpec {
  std::string recipe;
  std::string output;
  std::string sha256;
};

// Which columns: all of them, those listed in an index file, or an explicit list.
struct ColumnSelector {
  enum class Kind { all, index_file, list } kind = Kind::list;
  std::string index_file;
  std::vector<long> columns;
};

// What a '?' or an empty field in a column the table uses does: stop with an error at its line,
// or drop the row (not with published splits, whose row numbers refer to the file).
enum class MissingValues { error, drop_rows };

struct TableSpec {
  std::vector<std::string> files;         // rows concatenated in this order
  std::vector<std::string> target_files;  // optional separate label files (same row order)
  Delimiter delimiter = Delimiter::automatic;
  bool header = false;  // each file starts with a row of column names
  ColumnSelector features;
  ColumnSelector target;
  std::vector<long> categorical;  // feature columns of labels, one-hot encoded on loading
  MissingValues missing = MissingValues::error;
};

// Published splits as a file-name pattern. Their files need no entries in `files`: each one not
// listed there is fetched from the data set's source like a listed one, checked against the
// manifest when there is one, else used unverified.
struct PublishedSplits {
  int count = 0;
  std::string train_pattern;  // "{k}" is replaced by the split number, 0-based
  std::string test_pattern;
  std::string manifest;  // optional: sha256sum-format checksums of the split files
  std::string train_file(int k) const;
  std::string test_file(int k) const;
};

struct SyntheticSpec {
  std::string generator;
  long n = 0;
  std::uint64_t seed = 0;
};

struct DatasetSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string title;
  std::vector<std::string> papers;
  std::string availability;  // public | url-only | not-public | synthetic
  long paper_n = 0;
  long paper_d = 0;
  std::string paper_note;
  std::string folder;
  std::string source;
  std::string url_base;
  std::string notes;
  std::vector<SourceFile> files;
  std::optional<DeriveSpec> derive;
  std::optional<TableSpec> table;
  std::optional<PublishedSplits> splits;
  std::optional<SyntheticSpec> synthetic;
  std::string defined_in;  // registry file and line, for messages
  // The definition of this entry in the first registry file (the project's), if it has one
  // there: a job's identity records the definition only when it differs (see definition()).
  std::string base_definition;

  bool is_synthetic() const { return availability == "synthetic"; }
  bool is_public() const { return availability == "public" || availability == "url-only"; }
  std::string url_of(const SourceFile& file) const;
  // Everything that decides the loaded table, as one canonical text: files and checksums,
  // derivation, how the table is read, its columns (or the synthetic generator).
  std::string definition() const;
  // Whether a later registry file changed or added this entry.
  bool redefined() const { return definition() != base_definition; }
};

class DatasetRegistry {
 public:
  // Reads one or more registry files; a later file may add sets or replace same-named ones.
  static DatasetRegistry load(const std::vector<std::string>& paths);
  const std::vector<DatasetSpec>& all() const { return datasets_; }
  // Finds by name or alias (case-insensitive); throws std::invalid_argument listing names.
  const DatasetSpec& find(std::string_view name) const;
  const DatasetSpec* try_find(std::string_view name) const;

 private:
  std::vector<DatasetSpec> datasets_;
};

// The registry shipped with bnnbench (path compiled in; $BNNBENCH_REGISTRY overrides).
std::string default_registry_path();

}  // namespace bnn::data
