// TeamSize: the thread budget of one job. `run --threads 1` must keep a job's parallel pieces
// (GP starts, NN-MC chains) on the job's own thread, even on a machine with more cores.
#include <omp.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "experiments/src/run/fit_and_score.hpp"
#include "methods/core/parallel_pieces.hpp"

namespace {

// The threads that ran four pieces of 20 ms each.
std::set<std::thread::id> threads_of_pieces() {
  std::mutex mutex;
  std::set<std::thread::id> ids;
  bnn::run_pieces(4, [&](int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::lock_guard<std::mutex> lock(mutex);
    ids.insert(std::this_thread::get_id());
  });
  return ids;
}

}  // namespace

TEST_CASE("TeamSize 1 keeps a job's pieces on its thread, and the team size comes back after", "[parallel]") {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(2);  // as on a machine of two cores or more
  {
    const bnn::exp::TeamSize team(1);
    CHECK(omp_get_max_threads() == 1);
    CHECK(threads_of_pieces() == std::set<std::thread::id>{std::this_thread::get_id()});
  }
  CHECK(omp_get_max_threads() == 2);
  CHECK(threads_of_pieces().size() == 2);  // without a budget the pieces get a team of two
  omp_set_num_threads(saved);
}
