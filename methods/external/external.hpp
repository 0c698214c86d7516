#pragma once
// The external method: a program in any language, run once per fit through the protocol in
// PROTOCOL.md (this folder). The one method that does I/O: it writes the job's normalized data
// to a private folder, runs the program, and reads its predictive back; scoring, metrics and
// the store stay the harness's. Options are text like every method's, but `command` is a JSON
// array and `settings` a JSON object (the spec's TOML array and table, converted).
#include <Eigen/Core>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "methods/core/model.hpp"
#include "methods/core/options.hpp"
#include "methods/core/rng.hpp"
#include "response.hpp"

namespace bnn::external {

inline constexpr int kProtocolVersion = 1;

struct Options {
  std::vector<std::string> command;  // as written in the spec
  std::string settings = "{}";       // canonical JSON (keys sorted)
  double timeout_seconds = 3600.0;
  // Where relative paths of the command are resolved: the spec's folder (the spec loader sets
  // it), else the working directory. Not part of the job's identity.
  std::string spec_folder;
};

// Throws std::invalid_argument with one line naming the option ("external: command ...").
Options parse_options(const ParamMap& params);
// The job's identity: the command as written, the settings, and the sha256 of every file the
// command names. Throws std::invalid_argument if the program cannot be found.
std::string canonical_config(const Options& options);
// The argument vector as it runs: arguments naming a file beside the spec made absolute, the
// program resolved on PATH. Throws std::invalid_argument if the program cannot be found.
std::vector<std::string> resolved_command(const Options& options);

// What one run of the program needs besides the data.
struct Invocation {
  std::vector<std::string> argv;  // resolved
  std::string settings;
  double timeout_seconds = 3600.0;
  std::uint64_t seed = 0;
  int threads = 1;
};

// One run: the training data and the point sets (normalized) in, the response out. Throws
// std::runtime_error with one line when the run or its response fails.
Response run_program(const Invocation& invocation, const RegressionData& train,
                     const std::vector<const Eigen::MatrixXd*>& points, double& cpu_seconds);

class Model final : public ModelBase {
 public:
  Model(Invocation invocation, RegressionData train, std::vector<std::pair<Eigen::MatrixXd, Prediction>> answered,
        FitReport report);
  // The answer of the fit's run for a point set it was told of; other points run the program again.
  std::unique_ptr<Predictive> predict(const Eigen::MatrixXd& X) const override;
  Eigen::VectorXd predictive_variance(const Eigen::MatrixXd& X) const override;

 private:
  const Prediction* answered(const Eigen::MatrixXd& X) const;
  Invocation invocation_;
  RegressionData train_;
  std::vector<std::pair<Eigen::MatrixXd, Prediction>> answered_;
};

// Runs the program once for the training data and `points`.
std::unique_ptr<Model> fit(const RegressionData& train, const Options& options, Rng& rng,
                           const std::vector<const Eigen::MatrixXd*>& points);

}  // namespace bnn::external
