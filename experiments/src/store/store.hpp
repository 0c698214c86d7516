#pragma once
// The results store: one SQLite database per results directory (bnnbench.sqlite).
// A job's row, its metrics and its per-test-point arrays are written in one transaction, so
// a process killed at any moment loses no finished job; rerunning skips finished jobs, and a
// failure never overwrites a finished job.
//
// Tables (query them with sqlite3 directly if you like):
//   jobs(experiment, dataset, method_label, config_hash, split, method, config, seed, status,
//        error, fit_status, fit_message, fit_iterations, diagnostics, warnings, n_train, n_test,
//        n_features, scale, fit_seconds, predict_seconds, fit_cpu_seconds, code_version, host,
//        finished_at, run_id, data_hash)
//   metrics(experiment, dataset, method_label, config_hash, split, step, name, value)
//   points(experiment, dataset, method_label, config_hash, split, step, n_train, test_rows,
//          log_density, squared_error, crps, covered95, mean, variance)  -- float64 blobs
//   grid(experiment, dataset, method_label, config_hash, split, inputs, x, varied, mean,
//        variance, lower95, upper95)  -- predictions on a figure grid, float64 blobs
//   artifact_requests(experiment, dataset, method_label, config_hash, split, kind, request)
//   artifacts(experiment, dataset, method_label, config_hash, split, table_name, kind,
//             column_index, column_name, text_rows, numbers, texts)  -- a column per row: a
//             float64 blob (text_rows -1), or text_rows texts joined by the unit separator 0x1f
//   runs(run_id, experiment, command, threads, shard, host, machine, code_version, started_at,
//        finished_at, jobs_planned, jobs_run, jobs_failed, wall_seconds)
// A job has one or more evaluation steps (an active-learning loop has several; others one).
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "experiments/src/records/job_record.hpp"

struct sqlite3;

namespace bnn::exp {

class ResultsStore {
 public:
  // Opens `results_dir`/bnnbench.sqlite: `create` makes the directory and store if needed,
  // `existing` requires the store, `read_only` requires it and never writes (not even the
  // schema): what report and verify use, so that a store in a read-only place can be read.
  // A file there that is not a bnnbench store (another program's database, any other file) is
  // refused before anything is written to it.
  enum class Access { create, existing, read_only };
  explicit ResultsStore(const std::string& results_dir, Access access = Access::create);
  ResultsStore(const std::string& results_dir, bool create)
      : ResultsStore(results_dir, create ? Access::create : Access::existing) {}
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  const std::string& path() const { return path_; }
  // How a report names the store: its path, or what it was made from (describe_as).
  const std::string& description() const { return description_.empty() ? path_ : description_; }
  void describe_as(std::string text) { description_ = std::move(text); }
  // Writes a job atomically, replacing an earlier attempt, except that a failed attempt never
  // replaces a finished job (`run --rerun`): then nothing is written and the result is false.
  // Thread-safe.
  bool record(const JobRecord& job);
  std::vector<JobRecord> jobs(const std::string& experiment, bool with_points);
  // Finished jobs' grid predictions, in job order.
  std::vector<std::pair<JobKey, GridPredictions>> grids(const std::string& experiment);
  long begin_run(const RunRecord& run);
  void end_run(const RunRecord& run);
  std::vector<RunRecord> runs(const std::string& experiment);
  // Throws naming the store when SQLite's quick_check finds damage.
  void check_integrity();
  // Throws when `results_dir` holds a file bnnbench.sqlite that is not a bnnbench store, for
  // a command to check before it makes anything there (run's and merge's lock file).
  static void check_output_store(const std::string& results_dir);
  // What merge_from requires of an input store (present, upgraded to the current schema,
  // undamaged), for a caller to check every input before creating its output.
  static void prepare_merge_input(const std::string& results_dir);
  // Copies every job and run of another store into this one; finished jobs here are kept,
  // failed ones are replaced by finished ones from `other`. Returns jobs copied. Without
  // points, the per-test-point predictions and grids stay behind: a small store that still
  // gives every per-split metric (and reports of tables that pool no test points).
  long merge_from(const std::string& other_results_dir, bool with_points = true);

 private:
  void exec(const std::string& sql);
  // Whether the store has the table (a store of an older bnnbench, read-only, may lack one), or
  // the column of a table.
  bool has_table(const std::string& name);
  bool has_column(const std::string& table, const std::string& column);
  // Throws unless the open database is empty or holds only bnnbench's tables.
  void refuse_foreign();
  std::string path_;
  std::string description_;
  sqlite3* db_ = nullptr;
  std::mutex mutex_;
};

// Registers the store's files in `results_dir` as inputs (io/files.hpp: no output may overwrite
// them), for a command to do before it writes anything.
void register_store_files(const std::string& results_dir);

// Current time as ISO 8601 UTC, and this machine's name.
std::string utc_now();
std::string host_name();
// CPU model, number of hardware threads and memory, e.g. "AMD EPYC (2 hardware threads, 23.5 GiB)".
std::string machine_description();
// The host a job record names: "NAME (MACHINE DESCRIPTION)", so that a job's time can be read
// against its machine also where the run records are not kept (splits.csv / jobs.csv).
std::string job_host();

}  // namespace bnn::exp
