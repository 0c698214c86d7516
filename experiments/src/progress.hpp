#pragma once
// Progress on stderr: a bar with ETA when stderr is a terminal, one log line per job otherwise.
#include <chrono>
#include <mutex>
#include <string>

namespace bnn::exp {

class Progress {
 public:
  Progress(long total, bool terminal);
  void job_done(const std::string& what, bool ok, double seconds, const std::string& error);
  void finish();

 private:
  void draw();
  long total_;
  long done_ = 0;
  long failed_ = 0;
  bool terminal_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
};

std::string format_duration(double seconds);

}  // namespace bnn::exp
