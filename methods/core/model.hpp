#pragma once
// The interface every inference method implements: fit(train, options, rng) returns a Model
// whose predict(X) gives a predictive distribution per row of X. Methods see data already
// normalized by the harness and never do I/O.
#include <Eigen/Core>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "predictive.hpp"

namespace bnn {

struct RegressionData {
  Eigen::MatrixXd X;  // rows are points
  Eigen::VectorXd y;
};

// Throws std::invalid_argument naming `method` if X and y disagree, are empty or non-finite.
void check_training_data(const RegressionData& data, std::string_view method);

enum class FitStatus { ok, not_converged, numerical_error };
std::string to_string(FitStatus status);

// What happened inside a fit. Numerical trouble is recorded here, never thrown.
struct FitReport {
  FitStatus status = FitStatus::ok;
  std::string message;
  long iterations = 0;
  std::vector<std::pair<std::string, double>> diagnostics;  // e.g. {"log_evidence", -12.3}
  std::vector<std::string> warnings;
  // CPU time the fit's parallel pieces spent on threads other than the one that called fit
  // (run_pieces); the harness adds it to the job's CPU time.
  double cpu_seconds_elsewhere = 0.0;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const = 0;
  virtual const FitReport& report() const = 0;
};

}  // namespace bnn
