#include "external.hpp"

#include <omp.h>
#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "child_process.hpp"
#include "methods/core/one_line.hpp"
#include "methods/registry.hpp"
#include "npy.hpp"
#include "scratch_folder.hpp"

namespace bnn::external {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
constexpr const char* kName = "external";
constexpr double kMaxTimeoutSeconds = 30.0 * 24 * 3600;

[[noreturn]] void bad_option(const std::string& what) { throw std::invalid_argument(std::string(kName) + ": " + what); }

// The file an argument names, if it is one: relative to the spec's folder, or absolute.
std::optional<fs::path> named_file(const std::string& argument, const std::string& spec_folder) {
  if (argument.empty()) return std::nullopt;
  const fs::path path = fs::path(argument).is_absolute() ? fs::path(argument)
                                                         : fs::path(spec_folder.empty() ? "." : spec_folder) / argument;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  return fs::absolute(path, ec).lexically_normal();
}

std::string sha256_of_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in && !in.eof()) bad_option("cannot read " + path.string() + " to hash it");
  const std::string bytes = content.str();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    bad_option("cannot hash " + path.string());
  std::string hex;
  char pair[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(pair, sizeof pair, "%02x", digest[i]);
    hex += pair;
  }
  return hex;
}

std::string helper_python_path() {
  std::string path = BNNBENCH_PYTHON_HELPER;
  if (const char* existing = std::getenv("PYTHONPATH"); existing && *existing) path += std::string(":") + existing;
  return path;
}

void write_vector(const std::string& path, const Eigen::VectorXd& values) {
  write_npy(path, Eigen::Map<const NpyMatrix>(values.data(), values.size(), 1), true);
}

std::string exit_description(const ChildResult& result) {
  if (result.signalled) return "was killed by signal " + std::to_string(result.signal);
  return "exited with status " + std::to_string(result.exit_status);
}

}  // namespace

Options parse_options(const ParamMap& params) {
  Options options;
  for (const auto& [key, text] : params) {
    if (key == "command") {
      json parsed;
      try {
        parsed = json::parse(text);
      } catch (const json::parse_error&) {
        bad_option("command is '" + one_line(text) +
                   "', but must be an array of texts like [\"python3\", \"my_bnn.py\"]");
      }
      if (!parsed.is_array() || parsed.empty())
        bad_option("command is '" + one_line(text) +
                   "', but must be a non-empty array of texts like [\"python3\", \"my_bnn.py\"]");
      for (const auto& item : parsed) {
        if (!item.is_string()) bad_option("command is '" + one_line(text) + "', but every element must be a text");
        options.command.push_back(item.get<std::string>());
      }
    } else if (key == "settings") {
      json parsed;
      try {
        parsed = json::parse(text);
      } catch (const json::parse_error&) {
        bad_option("settings is '" + one_line(text) + "', but must be a table");
      }
      if (!parsed.is_object()) bad_option("settings is '" + one_line(text) + "', but must be a table");
      options.settings = parsed.dump();  // keys sorted: one text per table
    } else if (key == "timeout_seconds") {
      double seconds = 0.0;
      if (!option_detail::parse_double(text, seconds) || !(seconds > 0.0) || seconds > kMaxTimeoutSeconds)
        bad_option("timeout_seconds is '" + one_line(text) + "', but must be > 0 and at most 30 days (2592000)");
      options.timeout_seconds = seconds;
    } else if (key == "files") {
      // The hashes a canonical text carries (canonical_config): recomputed from the files, never read.
    } else if (key == kSpecFolderOption) {
      options.spec_folder = text;
    } else {
      bad_option("unknown option '" + one_line(key) + "'; options: command, settings, timeout_seconds");
    }
  }
  if (options.command.empty()) bad_option("command is missing: give e.g. command = [\"python3\", \"my_bnn.py\"]");
  return options;
}

std::vector<std::string> resolved_command(const Options& options) {
  std::vector<std::string> argv;
  for (const std::string& argument : options.command) {
    const auto file = named_file(argument, options.spec_folder);
    argv.push_back(file ? file->string() : argument);
  }
  if (named_file(options.command[0], options.spec_folder)) {
    if (resolve_program(argv[0]).empty())
      bad_option("command '" + options.command[0] +
                 "' is a file, but not executable (chmod +x, or run it through "
                 "its interpreter: [\"python3\", \"" +
                 options.command[0] + "\"])");
  } else {
    argv[0] = resolve_program(options.command[0]);
    if (argv[0].empty())
      bad_option("command '" + options.command[0] + "' is not found: no such file beside the spec" +
                 (options.command[0].find('/') == std::string::npos ? " and no such program on PATH" : ""));
  }
  return argv;
}

std::string canonical_config(const Options& options) {
  resolved_command(options);  // a missing program is an error of the spec, found before any job runs
  std::string files;
  for (const std::string& argument : options.command)
    if (const auto file = named_file(argument, options.spec_folder))
      files += (files.empty() ? "" : ",") + argument + ":" + sha256_of_file(*file);
  return "command=" + json(options.command).dump() + ";files=" + files + ";settings=" + options.settings;
}

Response run_program(const Invocation& invocation, const RegressionData& train,
                     const std::vector<const Eigen::MatrixXd*>& points, double& cpu_seconds) {
  const ScratchFolder folder;
  nlohmann::ordered_json request;
  request["protocol"] = kProtocolVersion;
  request["seed"] = invocation.seed;
  request["threads"] = invocation.threads;
  request["settings"] = json::parse(invocation.settings);
  write_npy(folder.file("train_X.npy"), train.X);
  write_vector(folder.file("train_y.npy"), train.y);
  request["train"] = {{"X", "train_X.npy"}, {"y", "train_y.npy"}, {"target_scale", train.target_scale}};
  request["predict"] = nlohmann::ordered_json::array();
  std::vector<Eigen::Index> rows;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string name = "predict_" + std::to_string(i) + "_X.npy";
    write_npy(folder.file(name), *points[i]);
    request["predict"].push_back({{"name", i == 0 ? "test" : "query"}, {"X", name}});
    rows.push_back(points[i]->rows());
  }
  request["response"] = "response.json";
  {
    std::ofstream out(folder.file("request.json"));
    out << request.dump(2) << '\n';
    if (!out.flush()) throw std::runtime_error("external: cannot write " + folder.file("request.json"));
  }
  ChildRun run;
  run.argv = invocation.argv;
  run.argv.push_back(folder.file("request.json"));
  const std::string threads = std::to_string(invocation.threads);
  run.environment_overrides = {"BNNBENCH_REQUEST=" + folder.file("request.json"), "PYTHONPATH=" + helper_python_path(),
                               "OMP_NUM_THREADS=" + threads, "OPENBLAS_NUM_THREADS=" + threads,
                               "MKL_NUM_THREADS=" + threads};
  run.working_folder = folder.path();
  run.stdout_file = folder.file("stdout.txt");
  run.stderr_file = folder.file("stderr.txt");
  run.timeout_seconds = invocation.timeout_seconds;
  const ChildResult result = run_child(run);
  cpu_seconds += result.cpu_seconds;
  const std::string program = fs::path(invocation.argv.back()).filename().string();
  if (result.timed_out)
    throw std::runtime_error("external: " + program + " timed out after " +
                             option_detail::format_double(invocation.timeout_seconds) +
                             " s (its process group was killed)");
  if (result.exit_status != 0 || result.signalled) {
    std::string message = "external: " + program + " " + exit_description(result);
    try {  // a failure the program explained (the Python helper writes one)
      const Response response = read_response(folder.path(), rows);
      if (response.failed && !response.report.message.empty()) message += ": " + response.report.message;
    } catch (const std::exception&) {}
    const std::string tail = last_lines(run.stderr_file, 5);
    throw std::runtime_error(message + (tail.empty() ? "" : "; stderr: " + tail));
  }
  Response response = read_response(folder.path(), rows);
  if (response.failed)
    throw std::runtime_error("external: " + program + " reported failure: " +
                             (response.report.message.empty() ? "(no message)" : response.report.message));
  return response;
}

Model::Model(Invocation invocation, RegressionData train, std::vector<std::pair<Eigen::MatrixXd, Prediction>> answered,
             FitReport report)
    : ModelBase(std::move(report)),
      invocation_(std::move(invocation)),
      train_(std::move(train)),
      answered_(std::move(answered)) {}

const Prediction* Model::answered(const Eigen::MatrixXd& X) const {
  for (const auto& [points, prediction] : answered_)
    if (points.rows() == X.rows() && points.cols() == X.cols() && points == X) return &prediction;
  return nullptr;
}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  if (const Prediction* known = answered(X)) return known->predictive();
  double cpu_seconds = 0.0;
  Response response = run_program(invocation_, train_, {&X}, cpu_seconds);
  report_to_extend().cpu_seconds_in_children += cpu_seconds;
  return response.predictions.at(0).predictive();
}

Eigen::VectorXd Model::predictive_variance(const Eigen::MatrixXd& X) const {
  if (const Prediction* known = answered(X)) {
    const auto predictive = known->predictive();
    Eigen::VectorXd out(predictive->size());
    for (Eigen::Index i = 0; i < out.size(); ++i) out[i] = predictive->variance(i);
    return out;
  }
  if (X.rows() == 1)  // one row of a set already answered (active learning's random choice)
    for (const auto& [points, prediction] : answered_)
      for (Eigen::Index r = 0; r < points.rows(); ++r)
        if (points.cols() == X.cols() && points.row(r) == X.row(0))
          return Eigen::VectorXd::Constant(1, prediction.predictive()->variance(r));
  return bnn::Model::predictive_variance(X);
}

std::unique_ptr<Model> fit(const RegressionData& train, const Options& options, Rng& rng,
                           const std::vector<const Eigen::MatrixXd*>& points) {
  check_training_data(train, kName);
  Invocation invocation;
  invocation.argv = resolved_command(options);
  invocation.settings = options.settings;
  invocation.timeout_seconds = options.timeout_seconds;
  invocation.seed = rng() >> 11;  // 53 bits: exact as a JSON number in every language
  invocation.threads = omp_get_max_threads();
  double cpu_seconds = 0.0;
  Response response = run_program(invocation, train, points, cpu_seconds);
  response.report.cpu_seconds_in_children = cpu_seconds;
  std::vector<std::pair<Eigen::MatrixXd, Prediction>> answered;
  for (std::size_t i = 0; i < points.size(); ++i) answered.emplace_back(*points[i], std::move(response.predictions[i]));
  return std::make_unique<Model>(std::move(invocation), train, std::move(answered), std::move(response.report));
}

}  // namespace bnn::external
