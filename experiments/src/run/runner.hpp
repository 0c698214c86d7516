#pragma once
// Runs the jobs of a plan in parallel with OpenMP (one job per thread, or every thread for a
// lone job; no exception leaves the parallel region), writing each finished job to the
// results store at once.
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "experiments/src/plan/plan.hpp"
#include "experiments/src/run/fit_and_score.hpp"
#include "experiments/src/run/job_data.hpp"
#include "experiments/src/run/progress.hpp"
#include "experiments/src/store/store.hpp"
#include "methods/core/model.hpp"

namespace bnn::exp {

// --threads must be in 1 .. kMaxThreads (OpenMP cannot start arbitrarily many); throws
// std::invalid_argument otherwise.
inline constexpr int kMaxThreads = 1024;
void check_threads(int threads);

struct RunOptions {
  int threads = 1;
  int shard_index = 1;
  int shard_count = 1;
  bool progress_bar = false;  // a bar on a terminal, log lines otherwise
  bool quiet = false;
  // Run finished jobs again too, each new result replacing the finished one; a rerun that
  // fails is reported and the finished result kept (ResultsStore::record).
  bool rerun = false;
  std::string command_line;
};

struct RunSummary {
  long planned = 0;       // jobs in this shard
  long already_done = 0;  // skipped: finished in an earlier run (see selection.hpp)
  long data_changed = 0;  // run again: finished before on data that have changed since
  long ran = 0;
  long failed = 0;
  long kept = 0;  // failed reruns: the finished result stays in the store
  // A job the store could not take (a full disk, a damaged store) stops the run: the jobs in
  // progress finish, none starts after it. Their results are lost, the ones stored are kept.
  long not_stored = 0;
  long not_started = 0;  // after a storage failure
  std::vector<std::string> store_errors;
  double wall_seconds = 0.0;
};

// Runs one job (fit, predict, score; an active-learning job fits and scores at every step) and
// returns its record; never throws. `threads` > 1: the calling thread's OpenMP team size for
// the job, and CPU time counted for the process. An active-learning job resumes after the
// evaluations of `resume` (its partial record) and gives `checkpoint` its record after every
// evaluation.
JobRecord execute_job(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads = 1,
                      const JobRecord* resume = nullptr, const std::function<void(const JobRecord&)>& checkpoint = {});

// Pieces of a job's record: its identity and provenance; a fit's times (added to the record's)
// and report; a failure for predictions that are not finite.
JobRecord new_job_record(const ExperimentSpec& spec, const Job& job);
void add_fit(JobRecord& rec, const FitAndScore& fitted, const std::vector<std::string>& data_warnings);
void fail_non_finite(JobRecord& rec, long non_finite);
// Runs `body`; what it throws fails the record with its message (a job never throws).
void fail_on_exception(JobRecord& rec, const std::function<void()>& body);

// Training rows x (columns + 1) of the job's split: the scale of its cost.
double job_size(const Plan& plan, const Job& job);

// The order run_plan starts jobs in: largest training data (rows x (columns + 1)) first, plan
// order among equals, so that long jobs do not start last and leave threads idle.
std::vector<const Job*> largest_first(const Plan& plan, std::vector<const Job*> jobs);

// What a run has to do: its shard's jobs, those not finished yet (all with `rerun`) largest
// first, and the stored steps of active-learning jobs stopped part way, which they resume from.
// Holds pointers into itself: not copyable.
struct PendingJobs {
  PendingJobs(const ExperimentSpec& spec, const Plan& plan, ResultsStore& store, const RunOptions& options);
  PendingJobs(const PendingJobs&) = delete;
  PendingJobs& operator=(const PendingJobs&) = delete;
  const JobRecord* resume_of(const Job& job) const;  // nullptr: start from the beginning

  std::vector<Job> share;
  std::vector<JobRecord> stored;
  std::vector<const Job*> jobs;  // into `share`
  std::map<const Job*, const JobRecord*> partial;
  long already_done = 0;
  long data_changed = 0;  // stored jobs of other data, run again from the start
};

// Where a run's finished jobs go (thread-safe): each is stored at once and counted; the first
// storage failure is remembered, and no job should start after it.
class ResultsSink {
 public:
  ResultsSink(ResultsStore& store, long run_id) : store_(store), run_id_(run_id) {}
  // A step of an active-learning job.
  void checkpoint(JobRecord step);
  // A finished job (given the run's id); "" when stored, else what went wrong ("not stored: ...").
  std::string finished(JobRecord& record);
  bool storage_failed() const { return storage_failed_.load(); }
  void summarize(RunSummary& summary, long jobs);

 private:
  void failed_to_store(std::string what);
  ResultsStore& store_;
  long run_id_;
  std::atomic<long> ran_{0}, failed_{0}, kept_{0}, not_stored_{0};
  std::atomic<bool> storage_failed_{false};
  std::mutex mutex_;
  std::vector<std::string> errors_;
};

// A run's row in the store (begin_run), and its closing (wall time into `summary` too).
RunRecord new_run_record(const ExperimentSpec& spec, const RunOptions& options, long jobs_planned);
void end_run_record(RunRecord& run, ResultsStore& store, RunSummary& summary,
                    std::chrono::steady_clock::time_point start);
// The progress display's view of `jobs`.
std::vector<JobCost> job_costs(const Plan& plan, const std::vector<const Job*>& jobs);

RunSummary run_plan(const ExperimentSpec& spec, const Plan& plan, ResultsStore& store, const RunOptions& options);

std::string code_version();

}  // namespace bnn::exp
