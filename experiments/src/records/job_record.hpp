#pragma once
// What a job leaves behind: its record (identity, provenance, fit report, per-split metrics of
// each evaluation step, per-test-point predictions, grid predictions, artifacts) and a run's
// record. The store keeps them (store/store.hpp); report, verify and the per-job files read them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiments/src/metrics/metrics.hpp"
#include "experiments/src/records/artifact_table.hpp"
#include "experiments/src/records/grid_predictions.hpp"
#include "experiments/src/records/job_key.hpp"

namespace bnn::exp {

struct Evaluation {
  int step = 0;
  long n_train = 0;
  std::map<std::string, double> metrics;
  std::vector<double> test_rows;  // 0-based rows of the data set (as doubles, exact)
  PointScores points;
};

struct JobRecord {
  JobKey key;
  std::string method;
  std::string config;
  std::uint64_t seed = 0;
  std::string status;  // "ok" or "failed"
  std::string error;
  std::string fit_status;
  std::string fit_message;
  long fit_iterations = 0;
  std::string diagnostics;  // "name=value;..."
  std::string warnings;
  long n_train = 0, n_test = 0, n_features = 0;
  std::string scale;
  double fit_seconds = 0.0, predict_seconds = 0.0, fit_cpu_seconds = 0.0;
  std::string code_version, host, finished_at;
  long run_id = 0;
  // A hash of the data the job was computed from (its data set as loaded and its split's rows);
  // `run` computes a finished job again when its data have changed since. Empty for jobs
  // stored before bnnbench recorded it.
  std::string data_hash;
  std::vector<Evaluation> evaluations;
  std::optional<GridPredictions> grid;
  // Artifacts the spec asked of this job: kind -> the request's canonical text (a job whose
  // stored requests differ from the spec's is not finished), and the tables they made.
  std::map<std::string, std::string> artifact_requests;
  std::vector<ArtifactTable> artifacts;
};

struct RunRecord {
  long run_id = 0;
  std::string experiment, command, shard, host, machine, code_version, started_at, finished_at;
  int threads = 0;
  long jobs_planned = 0, jobs_run = 0, jobs_failed = 0;
  double wall_seconds = 0.0;
  // Jobs of the store that this run computed (read, not written): for a run killed before its
  // end, whose counts above stay 0, what it did.
  long jobs_stored = 0;
  bool ended() const { return !finished_at.empty(); }
};

}  // namespace bnn::exp
