#pragma once
// Tune, then refit (BP and VI, PBP paper section 5.1): a few hyperparameters chosen by Bayesian
// optimization on a validation part of the training data (never the test part), then the model
// refit on all of it with the search's configurations in order of validation score until one
// trains (refit.hpp). Without tuning the given configuration is refit alone.
#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "bayes_opt.hpp"
#include "methods/core/model.hpp"
#include "methods/core/rng.hpp"
#include "refit.hpp"
#include "validation.hpp"

namespace bnn::tuning {

template <class Config>
struct Scored {
  Config config;
  double validation_score = std::numeric_limits<double>::quiet_NaN();  // NaN when not tuned
};

template <class Config>
struct Tuned {
  Scored<Config> refit;  // the configuration the model was refit with
  double best_validation_score = std::numeric_limits<double>::quiet_NaN();  // of the search
};

template <class Config>
struct TuneThenRefit {
  const char* method = "";  // in messages
  std::string what;         // what diverges, e.g. "SGD": "<what> diverged with learning rate ..."
  bool tune = true;
  int evaluations = 30;  // Bayesian-optimization evaluations
  double validation_fraction = 0.2;
  std::size_t refit_attempts = 5;
  int dimension = 1;  // of the unit cube searched
  Config given{};     // refit alone when tune = false
  // The configuration at a point of the unit cube.
  std::function<Config(const Eigen::VectorXd& u)> decode;
  // Validation score of a configuration trained on split.fit from a start drawn from `seed`
  // (the same seed for every candidate): smaller is better, +inf when training diverged. Called
  // from several threads at once (bayes_opt.hpp).
  std::function<double(const ValidationSplit& split, const Config& config, std::uint64_t seed)> score;
  // Trains on all the data with a configuration; false when it diverged.
  std::function<bool(const Config& config)> refit;
  // The learning rate of a configuration, named in warnings.
  std::function<double(const Config& config)> learning_rate;

  // The search settings of a method's options (fields tune, tuning_evaluations and
  // validation_fraction), tuning `dimension` hyperparameters in the unit cube.
  template <class Options>
  TuneThenRefit(const char* method_name, std::string diverging, const Options& options, int cube_dimension,
                Config given_config)
      : method(method_name),
        what(std::move(diverging)),
        tune(options.tune),
        evaluations(options.tuning_evaluations),
        validation_fraction(options.validation_fraction),
        dimension(cube_dimension),
        given(std::move(given_config)) {}

  // Draws from rng in this order: the validation split, the start seed, the search; then the refits.
  Tuned<Config> run(const RegressionData& data, Rng& rng, FitReport& report) const {
    std::vector<Scored<Config>> candidates;  // best first
    if (tune) {
      const ValidationSplit split = split_validation(data, validation_fraction, rng, method);
      const std::uint64_t seed = rng();
      BayesOptOptions options;
      options.evaluations = evaluations;
      const BayesOptResult result =
          minimize([&](const Eigen::VectorXd& u) { return score(split, decode(u), seed); }, dimension, options, rng);
      if (!std::isfinite(result.best_value)) {
        report.status = FitStatus::numerical_error;
        report.message = "every tuning run diverged";
      }
      for (std::size_t i : ranked_evaluations(result, refit_attempts))
        candidates.push_back({decode(result.xs[i]), result.values[i]});
      if (candidates.empty()) candidates.push_back({decode(result.best_x), result.best_value});
    } else {
      candidates.push_back({given});
    }
    const std::size_t used = refit_until_stable(
        candidates.size(), [&](std::size_t c) { return refit(candidates[c].config); },
        [&](std::size_t c) { return learning_rate(candidates[c].config); }, what, report);
    return {candidates[used], candidates.front().validation_score};
  }
};

}  // namespace bnn::tuning
