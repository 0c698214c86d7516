#pragma once
// The data a job fits and scores: its split's training part, normalized with that part's own
// statistics (unless the spec says normalization = "none"), the test inputs in the same
// units, the test targets in original units.
#include <Eigen/Core>
#include <vector>

#include "datasets/src/load.hpp"
#include "datasets/src/normalize.hpp"
#include "datasets/src/target_transform.hpp"
#include "experiments/src/plan/plan.hpp"
#include "methods/core/model.hpp"

namespace bnn::exp {

struct JobData {
  RegressionData train;
  Eigen::MatrixXd X_test;
  Eigen::VectorXd y_test;       // original units
  data::Standardizer norm;      // identity when not normalized
  std::vector<long> test_rows;  // rows of the data set
  // `bnnbench fit`: whether the first row of the training and test files named the columns
  bool train_header = false, test_header = false;
  std::vector<std::string> warnings;  // `bnnbench fit`: doubts about the data (data_warnings)
};

JobData prepare_job_data(const Plan& plan, const Job& job);
// The same for given training and test rows of a data set (active learning's growing training
// set); `what` names the data in errors.
JobData prepare_job_data(const PreparedDataset& pd, const std::vector<Eigen::Index>& train,
                         const std::vector<Eigen::Index>& test, const std::string& what);

// `bnnbench fit`: a user's training and test files as a job's data, normalized with the
// training file's statistics. Columns are matched by position; with headers on both files the
// names must agree. Errors name the file.
struct UserFiles {
  std::string train, test, target;
  data::TextFormat format;
  data::TargetTransform transform = data::TargetTransform::none;
  data::ConstantInputs constant_inputs = data::ConstantInputs::zero;
};
JobData user_job_data(const UserFiles& files);

// A standardizer that leaves the data as they are (normalization = "none").
data::Standardizer identity_standardizer(Eigen::Index inputs);

}  // namespace bnn::exp
