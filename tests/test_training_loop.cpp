// The epoch loop the stochastic-gradient fits share (methods/core/training_loop.hpp).
#include <catch2/catch.hpp>
#include <vector>

#include "methods/core/rng.hpp"
#include "methods/core/training_loop.hpp"

using namespace bnn;

TEST_CASE("epoch loop: a fresh permutation per epoch, cut into batches, the last smaller", "[training-loop]") {
  Rng rng(3), reference(3);
  std::vector<std::vector<std::size_t>> batches;
  std::vector<int> epochs_ended;
  const TrainingOutcome outcome = run_epochs(
      {3, 4}, 10, rng,
      [&](std::span<const std::size_t> rows) {
        batches.emplace_back(rows.begin(), rows.end());
        return true;
      },
      [&](int epoch) {
        epochs_ended.push_back(epoch);
        return true;
      });
  CHECK(outcome.epochs_run == 3);
  CHECK_FALSE(outcome.diverged);
  CHECK(epochs_ended == std::vector<int>{0, 1, 2});
  REQUIRE(batches.size() == 9);  // 4 + 4 + 2 per epoch
  for (int epoch = 0; epoch < 3; ++epoch) {
    const std::vector<std::size_t> order = random_permutation(reference, 10);
    std::vector<std::size_t> seen;
    for (int b = 0; b < 3; ++b) {
      const auto& batch = batches[static_cast<std::size_t>(3 * epoch + b)];
      CHECK(batch.size() == (b < 2 ? 4u : 2u));
      seen.insert(seen.end(), batch.begin(), batch.end());
    }
    CHECK(seen == order);
  }
  CHECK(rng() == reference());  // nothing drawn besides the permutations
}

TEST_CASE("epoch loop: a diverged step ends the fit at once, and the epoch hook can stop early", "[training-loop]") {
  Rng rng(5);
  int steps = 0;
  const TrainingOutcome diverged =
      run_epochs({5, 1}, 6, rng, [&](std::span<const std::size_t>) { return ++steps < 9; });
  CHECK(diverged.diverged);
  CHECK(steps == 9);
  CHECK(diverged.epochs_run == 1);  // the second epoch's third step diverged

  steps = 0;
  const TrainingOutcome stopped = run_epochs(
      {5, 4}, 6, rng,
      [&](std::span<const std::size_t>) {
        ++steps;
        return true;
      },
      [](int epoch) { return epoch < 1; });
  CHECK_FALSE(stopped.diverged);
  CHECK(stopped.epochs_run == 2);
  CHECK(steps == 4);
}

TEST_CASE("epoch loop: gathered rows are the batch's rows of X and y, in its order", "[training-loop]") {
  Eigen::MatrixXd X(5, 2);
  X << 0, 10, 1, 11, 2, 12, 3, 13, 4, 14;
  const Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(5, 100, 104);
  Rng rng(8), reference(8);
  std::vector<double> firsts, targets;
  run_epochs({1, 2}, 5, rng, gathered_rows(X, y, [&](const Eigen::MatrixXd& Xb, const Eigen::VectorXd& yb) {
               for (Eigen::Index r = 0; r < Xb.rows(); ++r) {
                 CHECK(Xb(r, 1) == Xb(r, 0) + 10);
                 firsts.push_back(Xb(r, 0));
                 targets.push_back(yb[r]);
               }
               return true;
             }));
  const std::vector<std::size_t> order = random_permutation(reference, 5);
  REQUIRE(firsts.size() == 5);
  for (std::size_t k = 0; k < 5; ++k) {
    CHECK(firsts[k] == static_cast<double>(order[k]));
    CHECK(targets[k] == 100.0 + static_cast<double>(order[k]));
  }
}
