#include "dataset.hpp"

namespace bnn::data {

Eigen::MatrixXd select_rows(const Eigen::MatrixXd& X, const std::vector<Eigen::Index>& rows) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), X.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = X.row(rows[i]);
  return out;
}

Eigen::VectorXd select_rows(const Eigen::VectorXd& y, const std::vector<Eigen::Index>& rows) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) out[static_cast<Eigen::Index>(i)] = y[rows[i]];
  return out;
}

}  // namespace bnn::data
