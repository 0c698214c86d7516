#pragma once
// The jobs of a committed results folder read back from its per-job files: splits.csv (every
// job's per-split metrics, `report --format splits`) and, when it is there, jobs.csv (their
// provenance and fit reports, `report --format jobs`). What a report needs when there is no
// store (a fresh clone): every per-split metric to the bit, no per-point predictions or grids.
#include <string>
#include <vector>

#include "experiments/src/records/job_record.hpp"

namespace bnn::exp {

// `splits` and `jobs` are the files' texts (`jobs` may be empty), named in errors by
// `splits_name` and `jobs_name`; throws std::invalid_argument naming the file and line of a
// malformed row.
std::vector<JobRecord> published_jobs(const std::string& experiment, const std::string& splits,
                                      const std::string& splits_name, const std::string& jobs,
                                      const std::string& jobs_name);

}  // namespace bnn::exp
