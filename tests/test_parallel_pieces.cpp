// run_pieces: every piece runs once, exceptions stay inside the OpenMP regions, and inside a
// team of workers an idle thread takes up the pieces of a busy one.
#include <omp.h>
#include <time.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "methods/core/parallel_pieces.hpp"

using bnn::run_pieces;

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Busy until `others` more pieces have started (or 20 s have passed: the test then fails on
// the count instead of hanging), then burns `cpu` seconds of this thread's CPU time.
bool wait_for_company(std::atomic<int>& started, int others, double cpu) {
  ++started;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  bool met = true;
  while (started.load() < others + 1) {
    if (std::chrono::steady_clock::now() > deadline) {
      met = false;
      break;
    }
  }
  const double until = thread_cpu_seconds() + cpu;
  while (thread_cpu_seconds() < until) {}
  return met;
}

// The CPU time the run_pieces calls of `work` counted on other threads: the change in the
// calling thread's total over it.
template <class Work>
double cpu_elsewhere_during(Work&& work) {
  const double before = bnn::pieces_cpu_seconds_elsewhere();
  work();
  return bnn::pieces_cpu_seconds_elsewhere() - before;
}

}  // namespace

TEST_CASE("run_pieces runs every piece once, in its own team when called alone", "[parallel]") {
  for (int threads : {1, 2, 3}) {
    std::vector<int> runs(7, 0);
    const double elsewhere = cpu_elsewhere_during([&] {
      run_pieces(
          7, [&](int i) { runs[static_cast<std::size_t>(i)] += i + 1; }, threads);
    });
    CHECK(runs == std::vector<int>{1, 2, 3, 4, 5, 6, 7});
    CHECK(elsewhere >= 0.0);
    if (threads == 1) CHECK(elsewhere == 0.0);
  }
  CHECK(cpu_elsewhere_during([] { run_pieces(0, [](int) { FAIL("no piece expected"); }); }) == 0.0);
  CHECK_THROWS_WITH(run_pieces(-1, [](int) {}), Catch::Contains("count is -1"));
}

TEST_CASE("run_pieces: two pieces alone run at the same time on two threads", "[parallel]") {
  std::atomic<int> started{0};
  std::vector<char> met(2, 0);
  const double elsewhere = cpu_elsewhere_during([&] {
    run_pieces(
        2, [&](int i) { met[static_cast<std::size_t>(i)] = wait_for_company(started, 1, 0.01); }, 2);
  });
  CHECK(met == std::vector<char>{1, 1});
  CHECK(elsewhere >= 0.009);  // one piece ran on the team's second thread
}

TEST_CASE("run_pieces inside a team: a thread with no work left takes up the pieces", "[parallel]") {
  // Worker 0's job splits into two pieces that can only finish together; worker 1's job is
  // empty, so only worker 1 (waiting at the loop's barrier) can run the second piece.
  std::atomic<int> started{0};
  std::vector<char> met(2, 0);
  double elsewhere = -1.0;
#pragma omp parallel for num_threads(2) schedule(static, 1)
  for (int job = 0; job < 2; ++job) {
    if (job == 0) {
      elsewhere = cpu_elsewhere_during([&] {
        run_pieces(2, [&](int i) { met[static_cast<std::size_t>(i)] = wait_for_company(started, 1, 0.01); });
      });
    }
  }
  CHECK(met == std::vector<char>{1, 1});
  CHECK(elsewhere >= 0.009);
}

TEST_CASE("run_pieces: every piece runs even if some throw, and the lowest index's error is rethrown", "[parallel]") {
  for (int threads : {1, 2}) {
    std::vector<int> ran(5, 0);
    const auto pieces = [&](int i) {
      ran[static_cast<std::size_t>(i)] = 1;
      if (i == 1 || i == 3) throw std::runtime_error("piece " + std::to_string(i) + " failed");
    };
    CHECK_THROWS_WITH(run_pieces(5, pieces, threads), "piece 1 failed");
    CHECK(ran == std::vector<int>{1, 1, 1, 1, 1});
  }
}

TEST_CASE("run_pieces: nested pieces count each CPU second once", "[parallel]") {
  // Two pieces that split into four each, on two threads. The CPU time reported elsewhere
  // plus the caller's own can be no more than the process used: a nested piece counted both by
  // its own call and by the clock of the piece that ran it would exceed it. The outer call's
  // count holds the nested ones.
  const auto process_cpu = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  const auto burn = [](double cpu) {
    const double until = thread_cpu_seconds() + cpu;
    while (thread_cpu_seconds() < until) {}
  };
  std::vector<double> inner(2, 0.0);
  const double process0 = process_cpu(), caller0 = thread_cpu_seconds();
  const double outer = cpu_elsewhere_during([&] {
    run_pieces(
        2,
        [&](int i) {
          burn(0.02);
          inner[static_cast<std::size_t>(i)] = cpu_elsewhere_during([&] { run_pieces(4, [&](int) { burn(0.02); }); });
        },
        2, true);
  });
  const double caller = thread_cpu_seconds() - caller0, process = process_cpu() - process0;
  const double reported = caller + outer;
  CHECK(reported >= 0.2 - 0.005);  // 10 pieces of 20 ms
  CHECK(reported <= process + 0.005);
  CHECK(outer >= inner[0] + inner[1] - 1e-12);
}
