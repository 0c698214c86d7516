#pragma once
// Reading the program's response.json (PROTOCOL.md): the fit's report and, per point set, its
// predictive in one of the four forms, checked field by field.
#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "methods/core/model.hpp"
#include "methods/core/predictive.hpp"

namespace bnn::external {

// One point set's answer, as the arrays the program gave.
struct Prediction {
  std::string form;                  // gaussian, student_t, mixture, draws
  Eigen::VectorXd first, second;     // mean & variance, or location & scale
  double number = 0.0;               // student_t's dof, draws' noise variance
  Eigen::VectorXd weights;           // mixture
  Eigen::MatrixXd means, variances;  // mixture: points x components
  Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> draws;  // points x draws

  Eigen::Index size() const;
  std::unique_ptr<Predictive> predictive() const;  // a new one per call
};

struct Response {
  FitReport report;
  bool failed = false;  // status "failed": the program gave up, report.message says why
  std::vector<Prediction> predictions;
};

// `folder` holds response.json and its arrays; `rows` are the sizes of the point sets asked for.
// Throws std::runtime_error with one line naming the file and the field.
Response read_response(const std::string& folder, const std::vector<Eigen::Index>& rows);

}  // namespace bnn::external
