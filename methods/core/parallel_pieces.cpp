#include "parallel_pieces.hpp"

#include <omp.h>
#include <time.h>

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace bnn {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// True while this thread's CPU time is already accounted for: it is a run_pieces caller (whose
// own clock its caller reads) or it runs a piece an enclosing run_pieces measures.
thread_local bool clock_counted = false;

// The CPU time the pieces of this thread's run_pieces calls spent elsewhere
// (pieces_cpu_seconds_elsewhere).
thread_local double elsewhere_total = 0.0;

// Sets clock_counted for a scope and restores it.
class CountedScope {
 public:
  CountedScope() : saved_(clock_counted) { clock_counted = true; }
  ~CountedScope() { clock_counted = saved_; }
  CountedScope(const CountedScope&) = delete;
  CountedScope& operator=(const CountedScope&) = delete;

 private:
  bool saved_;
};

}  // namespace

void run_pieces(int count, const std::function<void(int)>& piece, int max_threads, bool nested) {
  if (count < 0) throw std::invalid_argument("run_pieces: count is " + std::to_string(count) + ", but must be >= 0");
  const auto n = static_cast<std::size_t>(count);
  std::vector<std::exception_ptr> errors(n);
  std::vector<double> cpu_elsewhere(n, 0.0);
  const CountedScope caller;
  // A tied task runs start to end on one thread, and while it waits for nested pieces that
  // thread runs only their descendants, so the thread CPU clock around a piece measures the
  // piece and the nested pieces it ran itself, which their own counts then leave out. What the
  // piece's nested calls counted is taken from the running thread's total into this call's.
  const auto run_one = [&](int i) {
    const bool measure = !clock_counted;
    const CountedScope counted;
    const double start = measure ? thread_cpu_seconds() : 0.0;
    const double total_before = elsewhere_total;
    try {
      piece(i);
    } catch (...) {
      errors[static_cast<std::size_t>(i)] = std::current_exception();
    }
    double& seconds = cpu_elsewhere[static_cast<std::size_t>(i)];
    if (measure) seconds = thread_cpu_seconds() - start;
    seconds += elsewhere_total - total_before;
    elsewhere_total = total_before;
  };
  if (count == 1) {
    run_one(0);
  } else if (count > 1 && omp_in_parallel()) {
    // Within an active team: the caller waits for its pieces (and, being tied, runs only
    // those); idle threads of the team take the others.
#pragma omp taskloop grainsize(1) default(shared)
    for (int i = 0; i < count; ++i) run_one(i);
  } else if (count > 1) {
    const int available = max_threads > 0 ? max_threads : omp_get_max_threads();
    const int threads = std::max(1, nested ? available : std::min(count, available));
#pragma omp parallel num_threads(threads) default(shared)
#pragma omp single
#pragma omp taskloop grainsize(1) default(shared)
    for (int i = 0; i < count; ++i) run_one(i);
  }
  for (double seconds : cpu_elsewhere) elsewhere_total += seconds;
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

double pieces_cpu_seconds_elsewhere() { return elsewhere_total; }

}  // namespace bnn
