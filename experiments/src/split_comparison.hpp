#pragma once
// A store's per-split metrics against a published per-split file (`report --compare` with a
// results/EXPERIMENT/splits.csv, the `report --format splits` of the run that made a table).
// Unlike the table comparison it works on any subset of the jobs: rerun a few splits and
// compare them, job by job, with the committed run.
#include <string>
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
  long values_compared = 0;
  long not_rerun = 0;            // published jobs this store does not hold
  long other_configuration = 0;  // ... of which the store holds the split under another configuration
  long not_published = 0;        // jobs of ours the published file does not hold
  std::vector<SplitValueDifference> differing;
};

// Both texts in the format of `report --format splits`. Jobs match on data set, method,
// configuration hash and split; timing metrics are not compared; a value differs when its
// relative difference exceeds `tolerance`, a job when any of its values or its status does.
// Throws std::invalid_argument naming `theirs_name` and the line for a malformed file.
SplitComparison compare_split_tables(const std::string& ours, const std::string& theirs,
                                     const std::string& theirs_name, double tolerance);

}  // namespace bnn::exp
