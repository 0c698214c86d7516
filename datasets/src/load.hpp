#pragma once
// Loading registry data sets (and users' own files) into a Dataset, with every problem
// reported as a DataError that names the file, line and column.
#include <string>
#include <vector>

#include "dataset.hpp"
#include "registry.hpp"

namespace bnn::data {

// Loads a data set from the data directory (checksums verified first) or generates a
// synthetic one. Throws DataError for bad content, std::runtime_error when files are missing.
Dataset load_dataset(const DatasetSpec& spec, const std::string& data_dir);

// Reads the published train/test index files of a data set with `rows` rows; checks that
// indices are integers in range, not repeated, and that train and test are disjoint.
std::vector<Split> read_published_splits(const DatasetSpec& spec, const std::string& data_dir, Eigen::Index rows);

// Reads a list of 0-based non-negative integers, one or more per line (index files).
std::vector<long> read_index_file(const std::string& path);

// A user's own table: the target is a 0-based column number, a header name, or "last".
Dataset load_user_table(const std::string& path, const std::string& target, const TextFormat& format);

// Rejects data a regression protocol cannot use: fewer than `min_rows` rows or a constant target.
void check_usable(const Dataset& data, Eigen::Index min_rows);
// What makes results on usable data doubtful: a target constant but for rounding, or one value
// on all but a few rows (at most 1% of them, or one, of ten or more).
std::vector<std::string> data_warnings(const Dataset& data);

}  // namespace bnn::data
