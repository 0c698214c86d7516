#include "model.hpp"

#include <stdexcept>

namespace bnn {

void check_training_data(const RegressionData& data, std::string_view method) {
  const std::string who(method);
  if (data.X.rows() == 0) throw std::invalid_argument(who + ": the training set is empty");
  if (data.X.rows() != data.y.size())
    throw std::invalid_argument(who + ": X has " + std::to_string(data.X.rows()) + " rows but y has " +
                                std::to_string(data.y.size()) + " entries");
  if (!data.X.allFinite() || !data.y.allFinite())
    throw std::invalid_argument(who + ": the training data contain NaN or Inf");
}

Eigen::VectorXd Model::predictive_variance(const Eigen::MatrixXd& X) const {
  const auto predictive = predict(X);
  Eigen::VectorXd variance(predictive->size());
  for (Eigen::Index i = 0; i < variance.size(); ++i) variance[i] = predictive->variance(i);
  return variance;
}

std::string to_string(FitStatus status) {
  switch (status) {
    case FitStatus::ok:
      return "ok";
    case FitStatus::not_converged:
      return "not_converged";
    case FitStatus::numerical_error:
      return "numerical_error";
  }
  return "unknown";
}

}  // namespace bnn
