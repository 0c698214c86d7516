#pragma once
// Helpers used by several commands.
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "datasets/src/registry.hpp"
#include "experiments/src/plan.hpp"
#include "experiments/src/report.hpp"
#include "experiments/src/spec.hpp"
#include "experiments/src/store.hpp"

namespace bnn::cli {

// Loads a spec by name or path and applies --set overrides.
exp::ExperimentSpec load_spec(const std::string& name_or_path, const std::vector<std::string>& settings);
std::string default_results_dir(const std::string& experiment);
// Throws std::invalid_argument naming the allowed formats.
void check_format(const std::string& format, const std::vector<std::string>& allowed);
std::string render(const exp::ReportData& report, const std::string& format);
// --threads must be in 1 .. kMaxThreads (OpenMP cannot start arbitrarily many).
inline constexpr int kMaxThreads = 1024;
void check_threads(int threads);
// Writes `text` to `path` through a temporary file and a rename, so that a failed write leaves
// the old file. Refuses a directory and a results store (an SQLite file), naming `option`.
void write_text_file(const std::string& path, const std::string& text, const std::string& option);
// The refusals of write_text_file alone, for a command to check before long work.
void check_output_path(const std::string& path, const std::string& option);

// Our jobs against a published per-split file (`report --format splits`, e.g. the committed
// results/EXPERIMENT/splits.csv; the jobs.csv beside it, if any, supplies the configurations
// of jobs stored before their method gained options). Prints the summary and the values that
// differ; returns the exit status: 1 when a job differs or none could be compared.
int compare_with_split_file(const std::string& experiment, const std::vector<exp::JobRecord>& ours,
                            const std::string& ours_name, const std::string& file, const std::string& published,
                            double tolerance);
// The stored jobs a report selection shows.
std::vector<exp::JobRecord> selected_jobs(std::vector<exp::JobRecord> jobs, const exp::ReportSelection& selection);
// The selection of --methods and --datasets as a report shows it (data sets by canonical name);
// an unknown name is an error naming it.
exp::ReportSelection report_selection(const exp::ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                      const exp::PlanOptions& options);
// The file's text; throws std::invalid_argument naming `option` when it cannot be read.
std::string read_text_file(const std::string& path, const std::string& option);

// Which jobs of an experiment a command works on: --methods, --datasets, --splits, --set.
struct JobFilterOptions {
  std::vector<std::string> methods, datasets, settings;
  std::string splits;
  bool splits_given = false;
  void add_to(boost::program_options::options_description& options);
  exp::PlanOptions plan_options(const std::string& data_dir) const;
};

}  // namespace bnn::cli
