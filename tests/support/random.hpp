#pragma once
// Random test inputs drawn from the project's Rng (methods/core/rng.hpp): vectors and matrices
// of normal entries and random symmetric positive definite matrices. A seed gives the same
// numbers on every platform, and each helper states the order of its draws, so a test that
// switches to them, or draws more afterwards, sees the same values as before.
#include <Eigen/Core>

#include "methods/core/rng.hpp"

namespace bnn::test {

// sd times standard normal draws, entry 0 first.
inline Eigen::VectorXd random_vector(Eigen::Index size, Rng& rng, double sd = 1.0) {
  Eigen::VectorXd v(size);
  for (Eigen::Index i = 0; i < size; ++i) v[i] = sd * standard_normal(rng);
  return v;
}

// The order in which random_matrix draws the entries: row after row (as data points are read)
// or column after column (Eigen's storage order).
enum class DrawOrder { by_rows, by_columns };

// A matrix of standard normal draws.
inline Eigen::MatrixXd random_matrix(Eigen::Index rows, Eigen::Index cols, Rng& rng,
                                     DrawOrder order = DrawOrder::by_rows) {
  Eigen::MatrixXd m(rows, cols);
  if (order == DrawOrder::by_rows) {
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = standard_normal(rng);
  } else {
    for (Eigen::Index j = 0; j < cols; ++j)
      for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = standard_normal(rng);
  }
  return m;
}

// scale (A A' / size) + ridge I for a square A of standard normal draws (column after column):
// a random symmetric matrix with entries of order scale, positive definite for ridge > 0.
inline Eigen::MatrixXd random_spd(Eigen::Index size, Rng& rng, double scale, double ridge) {
  const Eigen::MatrixXd a = random_matrix(size, size, rng, DrawOrder::by_columns);
  return scale * (a * a.transpose() / static_cast<double>(size)) + ridge * Eigen::MatrixXd::Identity(size, size);
}

}  // namespace bnn::test
