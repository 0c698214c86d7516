#pragma once
// What a report shows of the artifacts of its jobs: a Markdown section summarizing each kind,
// and the files `report --publish` writes (a CSV per artifact table, the figure of each kind).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "experiments/src/records/artifact_table.hpp"
#include "experiments/src/records/job_record.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

// The tables of that name of `jobs` (in their order), each with its job's data set, label and split.
std::vector<JobTable> artifact_tables(const std::vector<const JobRecord*>& jobs, const std::string& table_name);

// "## Artifacts": per kind the spec asks for, a table summarizing each job's artifact and the
// files that hold it. Empty when the spec asks for none.
std::string artifact_markdown(const ExperimentSpec& spec, const std::vector<const JobRecord*>& jobs);

// The files of the artifacts: file name -> contents (CSV per table, SVG per kind; a kind drawn
// per job, chain-traces, gets a file per job when there are several). `paper_kl`: the paper's
// KL(Q||P) per method label, for the gaussian-posterior figure.
std::vector<std::pair<std::string, std::string>> artifact_files(const ExperimentSpec& spec,
                                                                const std::vector<const JobRecord*>& jobs,
                                                                const std::map<std::string, std::string>& paper_kl);

}  // namespace bnn::exp
