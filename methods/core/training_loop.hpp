#pragma once
// The epoch loop of every fit that passes over its training rows in random order: bp, vi,
// mc-dropout, deep-ensemble and PBP's ADF passes. Each epoch draws a fresh order of the rows from
// the fit's RNG, cuts it into minibatches (the last one smaller) and hands each to the
// objective's step; a step that reports divergence ends the fit, and a callback at the end of
// each epoch may refine the fit's state or stop early.
//   step(std::span<const std::size_t> rows) -> bool          false: diverged, stop
//   end_of_epoch(int epoch) -> bool                           false: stop after this epoch
// The RNG is used in this order: the epoch's permutation, then whatever the steps draw.
#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>

#include "rng.hpp"

namespace bnn {

struct EpochSchedule {
  int epochs = 1;
  std::size_t batch_size = 1;
};

struct TrainingOutcome {
  int epochs_run = 0;     // epochs completed
  bool diverged = false;  // a step reported divergence
};

template <class Step, class EndOfEpoch>
TrainingOutcome run_epochs(const EpochSchedule& schedule, std::size_t rows, Rng& rng, Step&& step,
                           EndOfEpoch&& end_of_epoch) {
  TrainingOutcome outcome;
  const std::size_t batch = std::max<std::size_t>(schedule.batch_size, 1);
  for (int epoch = 0; epoch < schedule.epochs; ++epoch) {
    const std::vector<std::size_t> order = random_permutation(rng, rows);
    const std::span<const std::size_t> all(order);
    for (std::size_t start = 0; start < rows; start += batch)
      if (!step(all.subspan(start, std::min(batch, rows - start)))) {
        outcome.diverged = true;
        return outcome;
      }
    outcome.epochs_run = epoch + 1;
    if (!end_of_epoch(epoch)) break;
  }
  return outcome;
}

template <class Step>
TrainingOutcome run_epochs(const EpochSchedule& schedule, std::size_t rows, Rng& rng, Step&& step) {
  return run_epochs(schedule, rows, rng, step, [](int) { return true; });
}

// A step over gathered matrices: the minibatch's rows of X and y copied into matrices of their
// own (kept across steps), then step(Xb, yb) -> bool.
template <class Scalar, class MatrixStep>
auto gathered_rows(const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& X,
                   const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& y, MatrixStep&& step) {
  return [&X, &y, step, Xb = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>(),
          yb = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>()](std::span<const std::size_t> rows) mutable {
    const auto n = static_cast<Eigen::Index>(rows.size());
    Xb.resize(n, X.cols());
    yb.resize(n);
    for (Eigen::Index r = 0; r < n; ++r) {
      const auto i = static_cast<Eigen::Index>(rows[static_cast<std::size_t>(r)]);
      Xb.row(r) = X.row(i);
      yb[r] = y[i];
    }
    return step(std::as_const(Xb), std::as_const(yb));
  };
}

}  // namespace bnn
