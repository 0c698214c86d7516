#pragma once
// One epoch of mini-batch training: the rows in a fresh random order, cut into batches of
// `batch_size` (the last one smaller), each gathered into its own matrix.
#include <Eigen/Core>
#include <algorithm>

#include "rng.hpp"

namespace bnn {

template <class Scalar, class Step>
void for_each_minibatch(const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& X,
                        const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& y, Eigen::Index batch_size, Rng& rng,
                        Step&& step) {
  const auto order = random_permutation(rng, static_cast<std::size_t>(X.rows()));
  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> Xb;
  Eigen::Matrix<Scalar, Eigen::Dynamic, 1> yb;
  for (Eigen::Index start = 0; start < X.rows(); start += batch_size) {
    const Eigen::Index rows = std::min(batch_size, X.rows() - start);
    Xb.resize(rows, X.cols());
    yb.resize(rows);
    for (Eigen::Index r = 0; r < rows; ++r) {
      const auto i = static_cast<Eigen::Index>(order[static_cast<std::size_t>(start + r)]);
      Xb.row(r) = X.row(i);
      yb[r] = y[i];
    }
    step(Xb, yb);
  }
}

}  // namespace bnn
