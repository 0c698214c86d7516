#pragma once
// Which stored jobs stand for the spec's current configuration. A job's key hashes its whole
// configuration text (method, every option, seed, protocol, scale), so a method that gains an
// option would otherwise orphan every stored job of it. A job whose text differs from the
// current one only by options it does not record, each now at the value that stands for the
// time before it existed (its default, or its declared earlier value: options.hpp), is taken as
// the same computation ("older"): adding an option whose default keeps the earlier behaviour
// keeps old results usable, while a changed value or a changed default still does not.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "experiments/src/plan/plan.hpp"
#include "experiments/src/records/job_record.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

enum class ConfigMatch { same, older, different };

struct ConfigComparison {
  ConfigMatch match = ConfigMatch::different;
  std::vector<std::string> missing_options;  // for `older`: options the stored text lacks
};

// `stored` and `current` are configuration texts as config_identity writes them
// ("method=...|options=a=1;b=2|seed=...|..."); defaults and earlier values come from the method
// registry.
ConfigComparison compare_config(const std::string& stored, const std::string& current);

// The jobs of one (data set, method label) that a report takes: per split the first of a
// finished job with the current configuration, a finished older one, a failed current one,
// a failed older one.
struct JobSelection {
  std::vector<const JobRecord*> jobs;     // ordered by split
  int older = 0;                          // how many of `jobs` are older configurations
  std::set<std::string> missing_options;  // union over those
  bool other_configurations = false;      // the store also holds jobs of other configurations
};
JobSelection select_jobs(const std::vector<JobRecord>& stored, const std::string& dataset,
                         const std::string& method_label, const ConfigIdentity& current);

// The keys of the jobs select_jobs takes for every data set and method of the spec.
std::set<JobKey> selected_job_keys(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                   const std::vector<JobRecord>& stored);

// Per job of a plan, the stored record select_jobs takes for its split (nullptr: none). The
// job is finished when that record's status is "ok"; `run` runs the others and --dry-run
// counts them.
std::vector<const JobRecord*> stored_records(const std::vector<Job>& jobs, const std::vector<JobRecord>& stored);

// Whether the stored record was computed from other data than the job's now (a data or split
// file edited since): its data hash differs. Records stored before bnnbench kept the hash
// never count as changed.
bool data_changed(const Job& job, const JobRecord* record);

// Whether the stored record finishes the job: it is finished ("ok"), from the job's data, and
// holds the artifacts the job is asked for, as asked.
bool is_finished(const Job& job, const JobRecord* record);

// What `run` would do with a plan, per data set and method label (`run --dry-run`).
struct PlanStatus {
  std::string dataset, method_label;
  long planned = 0;
  long done = 0;          // finished with the current configuration
  long done_older = 0;    // finished before some options existed (see select_jobs)
  long retry = 0;         // failed before: run again
  long artifacts = 0;     // finished, but without artifacts the spec now asks for: run again
  long data_changed = 0;  // finished (or stopped part way) on data that have changed since: run again
  long partial = 0;       // active learning stopped part way: resumes after its stored steps
  long fresh = 0;         // never run
  double seconds = 0.0;   // fit + predict, summed over the finished ones
};
std::vector<PlanStatus> plan_status(const std::vector<Job>& jobs, const std::vector<JobRecord>& stored);

}  // namespace bnn::exp
