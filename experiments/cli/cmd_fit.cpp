#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "common.hpp"
#include "datasets/src/load.hpp"
#include "datasets/src/normalize.hpp"
#include "datasets/src/target_transform.hpp"
#include "experiments/src/metrics.hpp"
#include "methods/registry.hpp"
#include "shared.hpp"

namespace bnn::cli {

namespace {
data::Header parse_header(const std::string& h) {
  if (h == "auto") return data::Header::automatic;
  if (h == "yes") return data::Header::present;
  if (h == "no") return data::Header::absent;
  throw std::invalid_argument("--header '" + h + "' must be auto, yes or no");
}
}  // namespace

int cmd_fit(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string method_name, train_file, test_file, target = "last", delimiter = "auto", header = "auto", predictions;
  std::string target_transform = "none";
  std::string constant_inputs = "zero";
  std::vector<std::string> settings;
  std::uint64_t seed = 1;
  po::options_description options("bnnbench fit options");
  options.add_options()
      ("method", po::value(&method_name), "method name (see `bnnbench list methods`)")
      ("train", po::value(&train_file), "training table (text: whitespace, tab or comma separated)")
      ("test", po::value(&test_file), "test table with the same columns")
      ("target", po::value(&target), "target column: 0-based number, header name, or 'last' (default)")
      ("delimiter", po::value(&delimiter), "auto, whitespace or comma")
      ("header", po::value(&header), "first row holds column names: auto, yes or no")
      ("target-transform", po::value(&target_transform), "model a transform of the target: none, sqrt or log1p")
      ("constant-inputs", po::value(&constant_inputs),
       "a constant training column becomes zeros (zero) or what numpy's float mean and sd make of it (numpy: +-1 "
       "where its sum rounds, as in the PBP authors' code)")
      ("set", po::value(&settings)->composing(), "method option OPTION=VALUE (repeatable)")
      ("seed", po::value(&seed), "random seed of the fit")
      ("predictions", po::value(&predictions), "write per-test-point predictions to this CSV file");
  if (common.parse_or_help(args, options, "method",
                           "usage: bnnbench fit METHOD --train FILE --test FILE [--target COLUMN] [--set OPTION=VALUE]\n\n"
                           "Normalizes inputs and target on the training file, fits, predicts the test file and\n"
                           "prints metrics in the target's original units (of the transformed target with\n"
                           "--target-transform)."))
    return 0;
  if (method_name.empty()) throw po::error("missing METHOD");
  if (train_file.empty() || test_file.empty()) throw po::error("both --train and --test are required");
  const MethodEntry& method = find_method(method_name);
  ParamMap params;
  for (const auto& s : settings) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--set '" + s + "' must look like OPTION=VALUE");
    params[s.substr(0, eq)] = s.substr(eq + 1);
  }
  method.canonical_config(params);  // validates options before any work
  if (!predictions.empty()) check_output_path(predictions, "--predictions");

  data::TargetTransform transform = data::TargetTransform::none;
  try {
    transform = data::parse_target_transform(target_transform);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--target-transform: ") + e.what());
  }
  data::ConstantInputs constant_mode = data::ConstantInputs::zero;
  try {
    constant_mode = data::parse_constant_inputs(constant_inputs);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--constant-inputs: ") + e.what());
  }
  const data::TextFormat format{data::parse_delimiter(delimiter), parse_header(header), false};
  data::Dataset train = data::load_user_table(train_file, target, format);
  data::Dataset test = data::load_user_table(test_file, target, format);
  data::apply_target_transform(train, transform);
  data::apply_target_transform(test, transform);
  if (train.X.cols() != test.X.cols())
    throw std::invalid_argument(test_file + " has " + std::to_string(test.X.cols()) + " feature columns but " +
                                train_file + " has " + std::to_string(train.X.cols()));
  // Columns are matched by position: with headers on both files, the names must agree.
  if (!train.feature_names.empty() && !test.feature_names.empty())
    for (std::size_t c = 0; c < train.feature_names.size(); ++c)
      if (train.feature_names[c] != test.feature_names[c])
        throw std::invalid_argument(test_file + ": feature column " + std::to_string(c + 1) + " is '" +
                                    test.feature_names[c] + "' but in " + train_file + " it is '" +
                                    train.feature_names[c] + "' (columns are matched by position)");
  data::check_usable(train, 2);
  const auto norm = data::Standardizer::fit(train.X, train.y, train_file, constant_mode);
  Rng rng(seed);
  const auto t0 = std::chrono::steady_clock::now();
  const auto model = method.fit({norm.transform_inputs(train.X), norm.transform_targets(train.y)}, params, rng);
  const auto t1 = std::chrono::steady_clock::now();
  const AffinePredictive predictive(model->predict(norm.transform_inputs(test.X)), norm.y_mean, norm.y_scale);
  const auto scores = exp::score_points(predictive, test.y);
  const auto metrics = exp::split_metrics(scores);

  std::printf("method        %s\n", method.name.c_str());
  std::printf("train / test  %ld / %ld rows, %ld features\n", static_cast<long>(train.X.rows()),
              static_cast<long>(test.X.rows()), static_cast<long>(train.X.cols()));
  std::printf("fit status    %s%s%s\n", to_string(model->report().status).c_str(),
              model->report().message.empty() ? "" : ": ", model->report().message.c_str());
  std::printf("rmse          %.6g\n", metrics.at("rmse"));
  if (transform != data::TargetTransform::none)
    std::printf("target        %s (metrics on that scale)\n", data::describe_target(transform).c_str());
  std::printf("test_ll       %.6g   (mean log density per test point, %s units)\n", metrics.at("test_ll"),
              transform == data::TargetTransform::none ? "original" : "transformed");
  std::printf("coverage95    %.4f\n", metrics.at("coverage95"));
  std::printf("crps          %.6g\n", metrics.at("crps"));
  std::printf("fit_seconds   %.4f\n", std::chrono::duration<double>(t1 - t0).count());
  for (const auto& [name, value] : model->report().diagnostics) std::printf("%-13s %.6g\n", name.c_str(), value);
  for (const auto& warning : model->report().warnings) std::printf("warning       %s\n", warning.c_str());
  if (!predictions.empty()) {
    std::ostringstream out;
    out << "row,y,mean,variance,log_density,squared_error\n";
    for (std::size_t i = 0; i < scores.mean.size(); ++i)
      out << i << "," << test.y[static_cast<Eigen::Index>(i)] << "," << scores.mean[i] << "," << scores.variance[i] << ","
          << scores.log_density[i] << "," << scores.squared_error[i] << "\n";
    write_text_file(predictions, out.str(), "--predictions");
  }
  const long non_finite = exp::count_non_finite(scores);
  if (non_finite > 0) {
    std::fprintf(stderr, "bnnbench fit: error: non-finite predictions at %ld of %ld test points (fit status %s)\n",
                 non_finite, static_cast<long>(scores.mean.size()),
                 to_string(model->report().status).c_str());
    return 1;
  }
  return 0;
}

}  // namespace bnn::cli
