#pragma once
// Tolerance comparisons of Eigen vectors and matrices (and numbers) for CHECK: close_to(actual,
// expected, relative, absolute) entry by entry, as Catch's Approx would judge each entry, and
// close_in_max_norm(actual, expected, relative) for the largest difference against the largest
// expected entry. Both return a Comparison that converts to bool and, printed by Catch when a
// CHECK fails, names the worst entry, its two values and by how much it misses.
#include <Eigen/Core>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>

namespace bnn::test {

// The outcome of a comparison: true when it holds; streams a description of the worst entry.
class Comparison {
 public:
  Comparison(bool holds, std::string description) : holds_(holds), description_(std::move(description)) {}
  explicit operator bool() const { return holds_; }
  friend std::ostream& operator<<(std::ostream& out, const Comparison& c) { return out << c.description_; }

 private:
  bool holds_;
  std::string description_;
};

namespace detail {

// "entry 3" of a vector, "entry (1, 2)" of a matrix.
inline std::string entry_name(const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::Index row, Eigen::Index col) {
  if (m.cols() == 1) return "entry " + std::to_string(row);
  if (m.rows() == 1) return "entry " + std::to_string(col);
  return "entry (" + std::to_string(row) + ", " + std::to_string(col) + ")";
}

inline std::string shape_mismatch(const Eigen::Ref<const Eigen::MatrixXd>& actual,
                                  const Eigen::Ref<const Eigen::MatrixXd>& expected) {
  std::ostringstream out;
  out << "shapes differ: actual " << actual.rows() << " x " << actual.cols() << ", expected " << expected.rows()
      << " x " << expected.cols();
  return out.str();
}

}  // namespace detail

// Every entry within max(absolute, relative |expected|) of the expected one: an entry passes
// exactly when Approx(expected).epsilon(relative).margin(absolute) == actual. The worst entry
// is the one furthest out in units of what it is allowed.
inline Comparison close_to(const Eigen::Ref<const Eigen::MatrixXd>& actual,
                           const Eigen::Ref<const Eigen::MatrixXd>& expected, double relative, double absolute = 0.0) {
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols())
    return {false, detail::shape_mismatch(actual, expected)};
  Eigen::Index failures = 0, worst_row = 0, worst_col = 0;
  double worst_ratio = -1.0;  // |difference| / allowed; NaN counts as infinitely far
  for (Eigen::Index j = 0; j < expected.cols(); ++j)
    for (Eigen::Index i = 0; i < expected.rows(); ++i) {
      const double a = actual(i, j), e = expected(i, j);
      if (!(Catch::Detail::Approx(e).epsilon(relative).margin(absolute) == a)) ++failures;
      const double difference = std::abs(a - e), allowed = std::max(absolute, relative * std::abs(e));
      double ratio = difference / allowed;
      if (std::isnan(ratio)) ratio = difference == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        worst_row = i;
        worst_col = j;
      }
    }
  std::ostringstream out;
  out << failures << " of " << expected.size() << " entries differ by more than max(" << absolute << ", " << relative
      << " |expected|)";
  if (expected.size() > 0) {
    const double a = actual(worst_row, worst_col), e = expected(worst_row, worst_col);
    out.precision(17);
    out << "; the worst, " << detail::entry_name(expected, worst_row, worst_col) << ": " << a << " against " << e
        << ", off by " << std::abs(a - e) << " where " << std::max(absolute, relative * std::abs(e)) << " is allowed";
  }
  return {failures == 0, out.str()};
}

inline Comparison close_to(double actual, double expected, double relative, double absolute = 0.0) {
  return close_to(Eigen::Matrix<double, 1, 1>(actual), Eigen::Matrix<double, 1, 1>(expected), relative, absolute);
}

// The largest |actual - expected| below relative times the largest |expected|: a tolerance on
// the whole array, for entries that are small only where the others are large.
inline Comparison close_in_max_norm(const Eigen::Ref<const Eigen::MatrixXd>& actual,
                                    const Eigen::Ref<const Eigen::MatrixXd>& expected, double relative) {
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols())
    return {false, detail::shape_mismatch(actual, expected)};
  if (expected.size() == 0) return {false, "nothing to compare"};
  // NaN anywhere counts as an infinite difference or scale, so that it fails.
  const auto magnitude = [](double x) { return std::isnan(x) ? std::numeric_limits<double>::infinity() : std::abs(x); };
  Eigen::Index row = 0, col = 0;
  double largest_difference = 0.0, scale = 0.0;
  for (Eigen::Index j = 0; j < expected.cols(); ++j)
    for (Eigen::Index i = 0; i < expected.rows(); ++i) {
      const double difference = magnitude(actual(i, j) - expected(i, j));
      if (difference > largest_difference) {
        largest_difference = difference;
        row = i;
        col = j;
      }
      scale = std::max(scale, magnitude(expected(i, j)));
    }
  std::ostringstream out;
  out << "the largest difference must be below " << relative << " x the largest |expected|";
  out.precision(17);
  out << ": it is " << largest_difference << " at " << detail::entry_name(expected, row, col) << " ("
      << actual(row, col) << " against " << expected(row, col) << "), the largest |expected| is " << scale;
  return {largest_difference < relative * scale, out.str()};
}

}  // namespace bnn::test
