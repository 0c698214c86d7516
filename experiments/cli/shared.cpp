#include "shared.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common.hpp"
#include "methods/registry.hpp"

namespace bnn::cli {

exp::ExperimentSpec load_spec(const std::string& name_or_path, const std::vector<std::string>& settings) {
  exp::ExperimentSpec spec = exp::load_experiment(exp::find_experiment_file(name_or_path));
  std::vector<std::string> flat;
  for (const auto& s : settings) flat.push_back(s);
  exp::apply_settings(spec, flat, [](const std::string& method, const std::string& option) {
    for (const auto& entry : method_registry())
      if (entry.name == method)
        for (const auto& o : entry.options)
          if (o.name == option) return true;
    return false;
  });
  return spec;
}

std::string default_results_dir(const std::string& experiment) {
  return (std::filesystem::path("results") / experiment).string();
}

void check_format(const std::string& format, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), format) != allowed.end()) return;
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  throw std::invalid_argument("--format '" + format + "' must be " + list);
}

std::string render(const exp::ReportData& report, const std::string& format) {
  if (format == "csv") return exp::render_csv(report);
  if (format == "latex") return exp::render_latex(report);
  return exp::render_markdown(report);
}

void check_threads(int threads) {
  if (threads < 1 || threads > kMaxThreads)
    throw std::invalid_argument("--threads is " + std::to_string(threads) + ", but must be between 1 and " +
                                std::to_string(kMaxThreads));
}

void check_output_path(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  if (fs::is_directory(path)) throw std::invalid_argument(option + " " + path + " is a directory, not a file");
  if (fs::exists(path)) {
    std::array<char, 16> head{};
    std::ifstream in(path, std::ios::binary);
    in.read(head.data(), head.size());
    if (in.gcount() == 16 && std::memcmp(head.data(), "SQLite format 3", 16) == 0)
      throw std::invalid_argument(option + " " + path + " is a results store (SQLite database); refusing to overwrite it");
  }
}

void write_text_file(const std::string& path, const std::string& text, const std::string& option) {
  namespace fs = std::filesystem;
  check_output_path(path, option);
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw std::runtime_error("cannot write " + path + " (" + option + ")");
    }
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    fs::remove(temporary, error);
    throw std::runtime_error("cannot write " + path + " (" + option + ")");
  }
}

void JobFilterOptions::add_to(po::options_description& options) {
  options.add_options()
      ("methods", po::value(&methods)->composing(), "only these method labels (comma-separated)")
      ("datasets", po::value(&datasets)->composing(), "only these data sets (comma-separated names or aliases)")
      ("splits", po::value(&splits)->notifier([this](const std::string&) { splits_given = true; }),
       "only these splits, e.g. 0-4 or 0,3,7")
      ("set", po::value(&settings)->composing(),
       "override: seed=N, LABEL.OPTION=VALUE, OPTION=VALUE (every method having it) or "
       "per_dataset.NAME.target_transform=none|sqrt|log1p; repeatable");
}

exp::PlanOptions JobFilterOptions::plan_options(const std::string& data_dir) const {
  exp::PlanOptions out;
  out.data_dir = data_dir;
  out.only_methods = split_list(methods);
  out.only_datasets = split_list(datasets);
  // An empty value would otherwise select everything.
  if (!methods.empty() && out.only_methods.empty()) throw std::invalid_argument("--methods is empty");
  if (!datasets.empty() && out.only_datasets.empty()) throw std::invalid_argument("--datasets is empty");
  if (splits_given && splits.find_first_not_of(" ,") == std::string::npos)
    throw std::invalid_argument("--splits is empty");
  if (!splits.empty()) out.only_splits = exp::parse_split_list(splits);
  return out;
}

}  // namespace bnn::cli
