// bnnbench fit: one method on a user's files, through the runner's fit-and-score.
#include <charconv>
#include <iostream>

#include "common.hpp"
#include "experiments/src/io/files.hpp"
#include "experiments/src/report/fit_summary.hpp"
#include "experiments/src/run/fit_and_score.hpp"
#include "experiments/src/run/runner.hpp"

namespace bnn::cli {
namespace {

data::Header parse_header(const std::string& h) {
  if (h == "auto") return data::Header::automatic;
  if (h == "yes") return data::Header::present;
  if (h == "no") return data::Header::absent;
  throw std::invalid_argument("--header '" + h + "' must be auto, yes or no");
}

template <class Parse>
auto parsed_option(const std::string& option, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--" + option + ": " + e.what());
  }
}

}  // namespace

int cmd_fit(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string method_name, delimiter = "auto", header = "auto", predictions, transform = "none", constant = "zero";
  exp::UserFiles files;
  files.target = "last";
  std::vector<std::string> settings;
  std::string seed_text = "1";
  int threads = 1;
  po::options_description options("bnnbench fit options");
  // clang-format off
  options.add_options()
      ("method", po::value(&method_name), "method name (see `bnnbench list methods`)")
      ("train", po::value(&files.train), "training table (text: whitespace, tab or comma separated)")
      ("test", po::value(&files.test), "test table with the same columns")
      ("target", po::value(&files.target), "target column: 0-based number, header name, or 'last' (default)")
      ("delimiter", po::value(&delimiter), "auto, whitespace, comma or tab")
      ("header", po::value(&header), "first row holds column names: auto, yes or no")
      ("target-transform", po::value(&transform), "model a transform of the target: none, sqrt or log1p")
      ("constant-inputs", po::value(&constant),
       "a constant training column becomes zeros (zero) or what numpy's float mean and sd make of it (numpy: +-1 "
       "where its sum rounds, as in the PBP authors' code)")
      ("set", po::value(&settings)->composing(), "method option OPTION=VALUE (repeatable)")
      ("seed", po::value(&seed_text), "random seed of the fit (an integer >= 0)")
      ("threads", po::value(&threads), "OpenMP threads of the fit (default 1)")
      ("predictions", po::value(&predictions), "write per-test-point predictions to this CSV file");
  // clang-format on
  if (common.parse_or_help(
          args, options, "method",
          "usage: bnnbench fit METHOD --train FILE --test FILE [--target COLUMN] [--set OPTION=VALUE]\n\n"
          "Normalizes inputs and target on the training file, fits, predicts the test file and\n"
          "prints metrics in the target's original units (of the transformed target with\n"
          "--target-transform)."))
    return 0;
  if (method_name.empty()) throw po::error("missing METHOD");
  std::uint64_t seed = 0;
  const char* seed_end = seed_text.data() + seed_text.size();
  if (const auto [end, error] = std::from_chars(seed_text.data(), seed_end, seed);
      seed_text.empty() || seed_text.front() == '-' || error != std::errc() || end != seed_end)
    throw po::error("--seed is '" + seed_text + "', but must be an integer from 0 to 2^64 - 1");
  exp::check_threads(threads);
  if (files.train.empty() || files.test.empty()) throw po::error("both --train and --test are required");
  exp::register_input(files.train, "the training table (--train)");
  exp::register_input(files.test, "the test table (--test)");
  const MethodEntry& method = find_method(method_name);
  ParamMap params;
  for (const auto& s : settings) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument("--set '" + s + "' must look like OPTION=VALUE");
    params[s.substr(0, eq)] = s.substr(eq + 1);
  }
  method.canonical_config(params);  // validates options before any work
  if (!predictions.empty()) exp::check_output_path(predictions, "--predictions");
  files.transform = parsed_option("target-transform", transform, data::parse_target_transform);
  files.constant_inputs = parsed_option("constant-inputs", constant, data::parse_constant_inputs);
  files.format = {data::parse_delimiter(delimiter), parse_header(header), false};
  const exp::JobData data = exp::user_job_data(files);
  for (const auto& warning : data.warnings) std::cerr << "bnnbench fit: warning: " << warning << "\n";
  const exp::FitAndScore fitted = exp::fit_and_score(method, params, data, seed, /*original_scale=*/true, threads);
  std::cout << exp::fit_summary(method.name, data, fitted, files.transform);
  if (!predictions.empty()) exp::write_text_file(predictions, exp::fit_predictions_csv(data, fitted), "--predictions");
  if (fitted.non_finite > 0) {
    std::cerr << "bnnbench fit: error: non-finite predictions at " << fitted.non_finite << " of " << data.X_test.rows()
              << " test points (fit status " << to_string(fitted.model->report().status) << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace bnn::cli
