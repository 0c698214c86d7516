#pragma once
// The per-job files of a results folder, written from job records: splits.csv (every job's
// per-split metrics, 17 significant digits: the stored bits) and jobs.csv (every job's
// configuration, seed, status, fit report, times and provenance). published_jobs.hpp reads them
// back.
#include <string>
#include <vector>

#include "experiments/src/records/job_record.hpp"

namespace bnn::exp {

// Every stored job's per-split metrics, tidy: dataset,method,config_hash,split,status,metric,value
// (a step of an active-learning job as metric@step).
std::string render_split_csv(const std::vector<JobRecord>& jobs);
// Every stored job's provenance and fit report, one row per job: the configuration that made
// it (method, every option, seed, protocol), status, fit status and message, iterations, sizes,
// times, code version, host, date, warnings, diagnostics ("name=value;...") and data hash; text
// fields quoted as CSV needs.
std::string render_job_csv(const std::vector<JobRecord>& jobs);

}  // namespace bnn::exp
