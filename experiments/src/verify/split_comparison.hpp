#pragma once
// A store's per-split metrics against a published per-split file (`report --compare` with a
// results/EXPERIMENT/splits.csv, the `report --format splits` of the run that made a table).
// Unlike the table comparison it works on any subset of the jobs: rerun a few splits and
// compare them, job by job, with the committed run.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace bnn::exp {

// True when the text starts with the header of `report --format splits`.
bool is_split_table(const std::string& text);

struct SplitValueDifference {
  std::string dataset, method, metric;
  int split = 0;
  std::string ours, theirs;
  double relative = 0.0;  // infinity for a missing value or a different status
};

struct SplitComparison {
  long jobs_compared = 0, jobs_identical = 0, jobs_within = 0, jobs_differing = 0;
  long jobs_older = 0;  // compared jobs whose published configuration predates options of ours
  long values_compared = 0;
  long not_rerun = 0;            // published jobs this store does not hold
  long other_configuration = 0;  // ... of which the store holds the split under another configuration
  long not_published = 0;        // jobs of ours the published file does not hold
  std::vector<SplitValueDifference> differing;
};

// Whether a published job's configuration (by hash) is the same computation as one of ours
// under another hash: a method gains options, and a job stored before that hashes differently.
using EquivalentConfiguration = std::function<bool(const std::string& published_hash, const std::string& our_hash)>;

// Both texts in the format of `report --format splits`. Jobs match on data set, method and
// split, and configuration hash or, failing that, `equivalent`; timing metrics are not
// compared; a value differs when its relative difference exceeds `tolerance`, a job when any
// of its values or its status does. Throws std::invalid_argument naming `theirs_name` and the
// line for a malformed file.
SplitComparison compare_split_tables(const std::string& ours, const std::string& theirs, const std::string& theirs_name,
                                     double tolerance, const EquivalentConfiguration& equivalent = {});

// `equivalent` from the configuration texts (hash -> text) of both sides: the published one
// lacks only options that ours has at their defaults (selection.hpp's compare_config).
EquivalentConfiguration older_configuration_rule(std::map<std::string, std::string> published_configs,
                                                 std::map<std::string, std::string> our_configs);

// The finished jobs of a per-split file: (data set, method, split).
std::set<std::tuple<std::string, std::string, int>> finished_split_jobs(const std::string& text,
                                                                        const std::string& name);

// hash -> configuration text from a `report --format jobs` file. Throws std::invalid_argument
// naming `name` and the line for a malformed file.
std::map<std::string, std::string> read_job_configs(const std::string& text, const std::string& name);

}  // namespace bnn::exp
