#pragma once
// Our jobs against a published per-split file (`report --format splits`, e.g. the committed
// results/EXPERIMENT/splits.csv): what `report --compare` and `verify` on a clean checkout print.
#include <string>
#include <vector>

#include "experiments/src/records/job_record.hpp"

namespace bnn::exp {

struct SplitFileOutcome {
  std::string text;   // the summary and the values that differ (Markdown)
  std::string error;  // why nothing could be compared, if so
  int status = 0;     // 1 when a job differs or none could be compared
};

// The jobs.csv beside `file`, if any, supplies the configurations of jobs stored before their
// method gained options (a job stored then hashes differently from a rerun of it).
SplitFileOutcome compare_with_split_file(const std::string& experiment, const std::vector<JobRecord>& ours,
                                         const std::string& ours_name, const std::string& file,
                                         const std::string& published, double tolerance);

}  // namespace bnn::exp
