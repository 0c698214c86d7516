#pragma once
// What `bnnbench datasets` prints and does over the whole registry: the table of data sets with
// their state in a data directory, and fetching several at once.
#include <string>
#include <vector>

#include "fetch.hpp"
#include "registry.hpp"

namespace bnn::data {

// One row per data set: name, aliases, n and d as printed in the papers, source, published
// splits, and whether it is present and verified in `data_dir` (or built in).
std::string dataset_table(const DatasetRegistry& registry, const std::string& data_dir);

// Fetches the named data sets (every public one when `names` is empty), trying all of them:
// the error of each that failed, and, when fetching every one, those the source does not hold
// (a mirror without `year`), which are not failures.
struct FetchOutcome {
  std::vector<std::string> failed;
  std::vector<std::string> not_at_source;
};
FetchOutcome fetch_datasets(const DatasetRegistry& registry, const std::vector<std::string>& names,
                            const FetchOptions& options);

}  // namespace bnn::data
