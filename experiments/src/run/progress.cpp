#include "experiments/src/run/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

namespace bnn::exp {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  char buffer[32];
  const long s = std::lround(seconds);
  if (s < 60)
    std::snprintf(buffer, sizeof buffer, "%lds", s);
  else if (s < 3600)
    std::snprintf(buffer, sizeof buffer, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buffer;
}

double estimate_remaining_seconds(const std::vector<JobCost>& jobs, const std::vector<double>& seconds, int workers,
                                  const std::vector<double>& running) {
  std::map<std::string, std::pair<double, double>> by_label;  // seconds, size of finished jobs
  double all_seconds = 0.0, all_size = 0.0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (std::isnan(seconds[j])) continue;
    auto& [label_seconds, label_size] = by_label[jobs[j].label];
    label_seconds += seconds[j];
    label_size += jobs[j].size;
    all_seconds += seconds[j];
    all_size += jobs[j].size;
  }
  if (!(all_size > 0.0)) return NAN;
  double total = 0.0, largest = 0.0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (!std::isnan(seconds[j])) continue;
    const auto it = by_label.find(jobs[j].label);
    const double rate = it != by_label.end() ? it->second.first / it->second.second : all_seconds / all_size;
    const double ran = j < running.size() && !std::isnan(running[j]) ? running[j] : 0.0;
    const double cost = std::max(rate * jobs[j].size - ran, 0.0);
    total += cost;
    largest = std::max(largest, cost);
  }
  return std::max(total / std::max(1, workers), largest);
}

Progress::Progress(std::vector<JobCost> jobs, int workers, bool terminal)
    : jobs_(std::move(jobs)),
      seconds_(jobs_.size(), NAN),
      started_(jobs_.size()),
      running_(jobs_.size(), false),
      workers_(workers),
      total_(static_cast<long>(jobs_.size())),
      terminal_(terminal),
      start_(std::chrono::steady_clock::now()) {
  if (terminal_ && total_ > 0) draw();
}

void Progress::draw() {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::vector<double> running(jobs_.size(), NAN);
  for (std::size_t j = 0; j < jobs_.size(); ++j)
    if (running_[j]) running[j] = std::chrono::duration<double>(now - started_[j]).count();
  const double eta = estimate_remaining_seconds(jobs_, seconds_, workers_, running);
  constexpr int width = 30;
  const int filled = total_ > 0 ? static_cast<int>(width * done_ / total_) : width;
  std::string bar(static_cast<std::size_t>(filled), '=');
  bar.resize(width, ' ');
  std::fprintf(stderr, "\r[%s] %ld/%ld jobs%s  elapsed %s  ETA %s   ", bar.c_str(), done_, total_,
               failed_ ? (" (" + std::to_string(failed_) + " failed)").c_str() : "", format_duration(elapsed).c_str(),
               format_duration(eta).c_str());
  std::fflush(stderr);
}

void Progress::job_started(std::size_t index) {
  std::lock_guard lock(mutex_);
  if (index >= running_.size()) return;
  running_[index] = true;
  started_[index] = std::chrono::steady_clock::now();
}

void Progress::job_done(std::size_t index, const std::string& what, bool ok, double seconds, const std::string& error) {
  std::lock_guard lock(mutex_);
  ++done_;
  if (!ok) ++failed_;
  if (index < seconds_.size()) {
    seconds_[index] = seconds;
    running_[index] = false;
  }
  if (terminal_) {
    if (!ok) std::fprintf(stderr, "\r\033[K%s: FAILED: %s\n", what.c_str(), error.c_str());
    draw();
  } else {
    std::fprintf(stderr, "[%ld/%ld] %s: %s (%.2f s)\n", done_, total_, what.c_str(),
                 ok ? "ok" : ("FAILED: " + error).c_str(), seconds);
  }
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (terminal_ && total_ > 0) std::fprintf(stderr, "\n");
}

}  // namespace bnn::exp
