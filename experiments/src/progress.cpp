#include "progress.hpp"

#include <cmath>
#include <cstdio>

namespace bnn::exp {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  char buffer[32];
  const long s = std::lround(seconds);
  if (s < 60) std::snprintf(buffer, sizeof buffer, "%lds", s);
  else if (s < 3600) std::snprintf(buffer, sizeof buffer, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buffer;
}

Progress::Progress(long total, bool terminal)
    : total_(total), terminal_(terminal), start_(std::chrono::steady_clock::now()) {
  if (terminal_ && total_ > 0) draw();
}

void Progress::draw() {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = done_ > 0 ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_) : NAN;
  constexpr int width = 30;
  const int filled = total_ > 0 ? static_cast<int>(width * done_ / total_) : width;
  std::string bar(static_cast<std::size_t>(filled), '=');
  bar.resize(width, ' ');
  std::fprintf(stderr, "\r[%s] %ld/%ld jobs%s  elapsed %s  ETA %s   ", bar.c_str(), done_, total_,
               failed_ ? (" (" + std::to_string(failed_) + " failed)").c_str() : "",
               format_duration(elapsed).c_str(), done_ > 0 ? format_duration(eta).c_str() : "?");
  std::fflush(stderr);
}

void Progress::job_done(const std::string& what, bool ok, double seconds, const std::string& error) {
  std::lock_guard lock(mutex_);
  ++done_;
  if (!ok) ++failed_;
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
