#pragma once
// Expanding an experiment into jobs: data set x method configuration x split. Splits are
// seeded by (experiment seed, data set) so every method sees the same splits; a job's own
// seed is derived from (experiment seed, data set, method label, split).
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/src/dataset.hpp"
#include "datasets/src/registry.hpp"
#include "experiments/src/records/job_key.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

struct PreparedDataset {
  const data::DatasetSpec* spec = nullptr;
  DatasetConfig config;
  data::Protocol protocol;
  data::Dataset data;  // original units, with any irrelevant inputs appended
  std::vector<data::Split> splits;
  bool normalize = true;              // the spec's normalization: the training part's statistics, or none
  std::vector<std::string> warnings;  // doubts about the data (data_warnings), kept with every job
};

struct Job {
  JobKey key;
  const MethodConfig* method = nullptr;
  ParamMap params;     // options for this data set
  std::string config;  // canonical configuration text (stored with the results)
  std::size_t dataset = 0;
  std::uint64_t seed = 0;
  // Active learning: the seed of its fits, the same for the configurations that differ only in
  // their selection, so that a method's "variance" and "random" jobs of a split start from the
  // same fit (a paired comparison). Otherwise `seed`.
  std::uint64_t fit_seed = 0;
  std::vector<const ArtifactSpec*> artifacts;  // the spec's requests that apply to this job
  // The data it is computed from, hashed (data_hash): a stored job with another is stale.
  std::string data_hash;
};

struct Plan {
  std::vector<PreparedDataset> datasets;
  std::vector<Job> jobs;
  std::vector<std::string> notes;  // skipped data sets and methods, with the reason
};

// Checks a selection of method labels and data sets (names or aliases) against the spec, with
// an error naming an unknown one; returns the data sets' canonical names.
std::vector<std::string> checked_selection(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                           const std::vector<std::string>& method_labels,
                                           const std::vector<std::string>& dataset_names);

struct PlanOptions {
  std::string data_dir;
  std::vector<std::string> only_methods;   // labels; empty: all
  std::vector<std::string> only_datasets;  // names or aliases; empty: all
  std::vector<int> only_splits;            // empty: all
};

// Identity of a (data set, method configuration) pair: the canonical text of everything
// that changes its results, and its 16-hex-digit hash (part of the job key).
struct ConfigIdentity {
  std::string canonical;
  std::string hash;
};
ConfigIdentity config_identity(const ExperimentSpec& spec, const DatasetConfig& dataset,
                               const data::DatasetSpec& dataset_spec, const MethodConfig& method);

bool method_available(const std::string& method);

// Loads the data, makes the splits and lists the jobs. Data sets that are not fetched, not
// public, or methods not implemented are skipped with a note unless named explicitly in
// the options, which is an error.
Plan make_plan(const ExperimentSpec& spec, const data::DatasetRegistry& registry, const PlanOptions& options);

// The deterministic share K of N (1-based K) of a job list.
std::vector<Job> shard_jobs(const std::vector<Job>& jobs, int k, int n);

// "0,2,5-9" -> {0, 2, 5, 6, 7, 8, 9}; std::invalid_argument on bad text.
std::vector<int> parse_split_list(const std::string& text);

// The artifact requests of the spec that apply to a job (`dataset_name` as the spec writes it):
// those listing its method, data set and split, or listing no methods where its method
// offers the kind.
std::vector<const ArtifactSpec*> artifact_requests(const ExperimentSpec& spec, const JobKey& key,
                                                   const std::string& dataset_name);

std::uint64_t split_seed(const ExperimentSpec& spec, const std::string& dataset);
// A job's data hashed: the data set as loaded (inputs and targets, after any target transform
// and irrelevant inputs: table_hash), then the split's training and test rows (16 hex digits).
std::uint64_t table_hash(const data::Dataset& data);
std::string data_hash(std::uint64_t table, const data::Split& split);
std::uint64_t job_seed(const ExperimentSpec& spec, const JobKey& key);

}  // namespace bnn::exp
