#pragma once
// One fit and its scores: what `bnnbench fit` prints and what every job of a run starts from.
// Fits the method on the job's training data with the job's seed, predicts the test inputs
// and scores the test targets on the chosen scale (original units, or normalized).
#include <cstdint>
#include <memory>

#include "experiments/src/records/job_record.hpp"
#include "experiments/src/run/job_data.hpp"
#include "methods/registry.hpp"

namespace bnn::exp {

struct FitAndScore {
  std::unique_ptr<Model> model;
  Evaluation evaluation;  // step 0: metrics (fit_seconds included) and per-test-point scores
  double fit_seconds = 0.0, predict_seconds = 0.0;
  double fit_cpu_seconds = 0.0;  // this thread's (or with threads > 1 the process's) CPU time of the fit
  long non_finite = 0;           // test points whose prediction is not finite
};

// The calling thread's OpenMP team size for a scope (`threads` >= 1; else unchanged): a team
// the job's own code starts (run_pieces outside the workers' team) gets at most that many
// threads, so `--threads 1` runs a lone job's pieces on one thread too.
class TeamSize {
 public:
  explicit TeamSize(int threads);
  ~TeamSize();
  TeamSize(const TeamSize&) = delete;
  TeamSize& operator=(const TeamSize&) = delete;

 private:
  int saved_;
  bool set_;
};

// `threads` > 1: the fit may use that many threads (the caller sets the team size, TeamSize),
// and its CPU time is the process's.
// `also_predict`: the other inputs (normalized) the job will predict with the model, a figure's
// grid or active learning's pool, told to a method that predicts in the same run as it fits.
// Exceptions from the method (bad options, data) pass through.
FitAndScore fit_and_score(const MethodEntry& method, const ParamMap& params, const JobData& data, std::uint64_t seed,
                          bool original_scale, int threads = 1,
                          const std::vector<const Eigen::MatrixXd*>& also_predict = {});

}  // namespace bnn::exp
