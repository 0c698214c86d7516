#pragma once
// Progress on stderr: a bar with ETA when stderr is a terminal, one log line per job otherwise.
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace bnn::exp {

// A job as the ETA sees it: its method label and its size (training rows x (columns + 1)).
struct JobCost {
  std::string label;
  double size = 1.0;
};

// Seconds of wall time left, given each job's seconds (NaN while unfinished) and, for jobs
// running now, the seconds since they started (`running`, NaN for the others; may be empty):
// every unfinished job costs its label's seconds per unit of size among the finished jobs (the
// rate of all finished jobs while its label has none), less the time it has already run; the
// sum is spread over `workers` threads, and the result is at least the largest of these
// costs. NaN before any job finished.
double estimate_remaining_seconds(const std::vector<JobCost>& jobs, const std::vector<double>& seconds, int workers,
                                  const std::vector<double>& running = {});

class Progress {
 public:
  Progress(std::vector<JobCost> jobs, int workers, bool terminal);
  // `index` is the job's position in the constructor's list.
  void job_started(std::size_t index);
  void job_done(std::size_t index, const std::string& what, bool ok, double seconds, const std::string& error);
  void finish();

 private:
  void draw();
  std::vector<JobCost> jobs_;
  std::vector<double> seconds_;
  std::vector<std::chrono::steady_clock::time_point> started_;
  std::vector<bool> running_;
  int workers_;
  long total_;
  long done_ = 0;
  long failed_ = 0;
  bool terminal_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
};

std::string format_duration(double seconds);

}  // namespace bnn::exp
