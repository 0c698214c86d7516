#include "shared.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "common.hpp"
#include "experiments/src/split_comparison.hpp"
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

std::vector<exp::JobRecord> selected_jobs(std::vector<exp::JobRecord> jobs, const exp::ReportSelection& selection) {
  std::erase_if(jobs, [&](const exp::JobRecord& j) { return !selection.shows(j.key); });
  return jobs;
}

exp::ReportSelection report_selection(const exp::ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                      const exp::PlanOptions& options) {
  exp::ReportSelection selection;
  selection.methods = options.only_methods;
  selection.datasets = exp::checked_selection(spec, registry, options.only_methods, options.only_datasets);
  return selection;
}

std::string read_text_file(const std::string& path, const std::string& option) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(option + ": cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A job stored before its method gained options hashes differently from a rerun of it; the
// configurations in the jobs.csv beside FILE tell whether they are the same computation.
int compare_with_split_file(const std::string& experiment, const std::vector<exp::JobRecord>& ours,
                            const std::string& ours_name, const std::string& file, const std::string& published,
                            double tolerance) {
  exp::EquivalentConfiguration equivalent;
  const std::filesystem::path job_file = std::filesystem::path(file).parent_path() / "jobs.csv";
  if (std::filesystem::exists(job_file)) {
    std::map<std::string, std::string> our_configs;
    for (const auto& job : ours) our_configs[job.key.config_hash] = job.config;
    equivalent = exp::older_configuration_rule(
        exp::read_job_configs(read_text_file(job_file.string(), "--compare"), job_file.string()), std::move(our_configs));
  }
  const exp::SplitComparison c =
      exp::compare_split_tables(exp::render_split_csv(ours), published, file, tolerance, equivalent);
  std::cout << "# " << experiment << ": " << ours_name << " against " << file << ", split by split\n\n"
            << c.jobs_compared << " job(s) compared (" << c.values_compared << " values, timings excepted; "
            << c.jobs_older << " stored before options of ours existed, at their defaults): " << c.jobs_identical
            << " identical, " << c.jobs_within << " within tolerance " << tolerance << ", " << c.jobs_differing
            << " differ; " << c.not_rerun
            << " published job(s) not rerun here (" << c.other_configuration << " of them under another "
            << "configuration here), " << c.not_published << " of ours not in the published file\n";
  if (c.jobs_compared == 0) {
    std::cerr << "bnnbench: no job of " << file << " is in " << ours_name
              << " (same data set, method, configuration and split)\n";
    return 1;
  }
  constexpr std::size_t kShown = 100;
  if (!c.differing.empty()) {
    std::cout << "\n| data set | method | split | metric | ours | published | relative difference |\n"
                 "|---|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < std::min(c.differing.size(), kShown); ++i) {
      const auto& d = c.differing[i];
      std::cout << "| " << d.dataset << " | " << d.method << " | " << d.split << " | " << d.metric << " | "
                << (d.ours.empty() ? "—" : d.ours) << " | " << d.theirs << " | " << d.relative << " |\n";
    }
    if (c.differing.size() > kShown) std::cout << "\n(" << c.differing.size() - kShown << " more not shown)\n";
  }
  return c.jobs_differing == 0 ? 0 : 1;
}

}  // namespace bnn::cli
