#pragma once
// Makes the artifacts a spec asks of a job from its fitted model: the typed result of the
// model's artifact function (methods/core/artifacts.hpp) as stored tables, and any scalar
// results (an objective, a KL) as the job's metrics.
#include <map>
#include <string>
#include <vector>

#include "experiments/src/records/artifact_table.hpp"
#include "experiments/src/spec/spec.hpp"
#include "methods/core/model.hpp"

namespace bnn::exp {

struct ArtifactInputs {
  const Model& model;
  const RegressionData& train;         // as the method saw it
  const Eigen::MatrixXd& X_test;       // in the same units
  const std::vector<long>& test_rows;  // rows of the data set
};

// Appends the request's tables to `tables` and its scalars to `metrics`. Throws
// std::invalid_argument when the model does not offer the kind or the request does not fit it.
void produce_artifact(const ArtifactSpec& request, const ArtifactInputs& inputs, std::vector<ArtifactTable>& tables,
                      std::map<std::string, double>& metrics);

}  // namespace bnn::exp
