#pragma once
#include <Eigen/Core>
#include <string>
#include <vector>

namespace bnn::data {

// A loaded regression data set in original units.
struct Dataset {
  std::string name;
  Eigen::MatrixXd X;  // rows are points
  Eigen::VectorXd y;
  std::string origin;                      // where it came from, for messages ("bostonHousing/data.txt")
  std::vector<std::string> feature_names;  // from a header row (user tables), else empty
  std::vector<long> row_lines;             // line of each row in `origin` (user tables), else empty
  // What loading did beyond reading numbers: one-hot encoded columns, dropped rows
  std::vector<std::string> notes;
};

// Train/test row indices of one split (0-based rows of Dataset::X).
struct Split {
  std::vector<Eigen::Index> train;
  std::vector<Eigen::Index> test;
};

Eigen::MatrixXd select_rows(const Eigen::MatrixXd& X, const std::vector<Eigen::Index>& rows);
Eigen::VectorXd select_rows(const Eigen::VectorXd& y, const std::vector<Eigen::Index>& rows);

}  // namespace bnn::data
