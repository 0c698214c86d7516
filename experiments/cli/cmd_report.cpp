// bnnbench report: argument parsing over report/publish.hpp (and verify/published_comparison.hpp).
#include <filesystem>
#include <iostream>

#include "common.hpp"
#include "experiments/src/io/files.hpp"
#include "experiments/src/report/publish.hpp"
#include "experiments/src/store/store.hpp"
#include "experiments/src/verify/published_comparison.hpp"
#include "experiments/src/verify/verify.hpp"
#include "job_filter.hpp"

namespace bnn::cli {
namespace {

// Every file is made before any is written: a failure leaves the directory as it was.
void publish(const exp::ReportSource& source, const std::string& directory) {
  const auto files = exp::published_files(source);
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error)
    throw std::invalid_argument("--publish: cannot create the directory " + directory + ": " + error.message());
  for (const auto& [name, text] : files) {
    const std::string path = (std::filesystem::path(directory) / name).string();
    exp::write_text_file(path, text, "--publish");
    std::cerr << "wrote " << path << "\n";
  }
}

}  // namespace

int cmd_report(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string experiment, results, format = "md", output, compare, publish_dir, paired_against;
  JobFilterOptions filter;  // its --methods, --datasets and --set
  double tolerance = 0.0;
  po::options_description options("bnnbench report options");
  // clang-format off
  options.add_options()
      ("experiment", po::value(&experiment), "experiment name or spec file")
      ("results", po::value(&results), "results directory (default: results/EXPERIMENT)")
      ("format", po::value(&format), exp::report_format_list().c_str())
      ("output,o", po::value(&output), "write to this file instead of standard output")
      ("publish", po::value(&publish_dir),
       "write every format into this directory, as results/EXPERIMENT holds them: report.md, report.html, and "
       "report.csv, report.tex, report.svg for a table or grid.csv, observations.csv, figure.svg for a figure; "
       "splits.csv, jobs.csv, and the artifacts' tables and figures")
      ("set", po::value(&filter.settings)->composing(), "the --set overrides the run used (to select its results)")
      ("methods", po::value(&filter.methods)->composing(), "only these method labels (comma-separated)")
      ("datasets", po::value(&filter.datasets)->composing(), "only these data sets (comma-separated names or aliases)")
      ("compare", po::value(&compare),
       "instead of the report, compare it with a published one: a table in the CSV format (e.g. "
       "results/EXPERIMENT/report.csv) or per-split metrics (e.g. results/EXPERIMENT/splits.csv); exit status 1 "
       "when any differ")
      ("paired-against", po::value(&paired_against),
       "instead of the report, every method against this method label: per data set the mean paired difference "
       "of RMSE and test log-likelihood over the splits both finished (se, z, wins/ties/losses) and the average "
       "ranks over data sets (md, csv, latex or html)")
      ("tolerance", po::value(&tolerance),
       "with --compare: largest relative difference accepted (default 0: a table's 10 significant digits, "
       "per-split values bit for bit)");
  // clang-format on
  if (common.parse_or_help(
          args, options, "experiment",
          "usage: bnnbench report EXPERIMENT [--results DIR] [--format FORMAT] [--paired-against LABEL]\n"
          "                        [-o FILE | --publish DIR]\n\n"
          "Aggregates finished jobs over splits in the paper's layout, with the paper's numbers\n"
          "beside ours; '*' marks a difference of more than two combined standard errors beyond the\n"
          "rounding of the paper's printed value."))
    return 0;
  if (experiment.empty()) throw po::error("missing EXPERIMENT");
  if (!(tolerance >= 0.0))
    throw std::invalid_argument("--tolerance is " + exp::format_tolerance(tolerance) + ", but must be >= 0");
  if (!compare.empty() && !publish_dir.empty()) throw po::error("--compare and --publish: give one of them");
  if (common.given.count("paired-against") && !compare.empty())
    throw po::error("--compare and --paired-against: give one of them");
  if (common.given.count("paired-against") && !publish_dir.empty())
    throw po::error(
        "--paired-against with --publish: the published folder holds the plain report; use --format and -o");
  if (!compare.empty()) exp::register_input(compare, "the published file to compare with (--compare)");
  const exp::ExperimentSpec spec = exp::load_spec(experiment, filter.settings);
  const data::DatasetRegistry registry = common.load_registry();
  const exp::PlanOptions selected = filter.plan_options("");
  const exp::ReportSource source{spec, registry, results.empty() ? exp::default_results_dir(spec.name) : results,
                                 exp::report_selection(spec, registry, selected.only_methods, selected.only_datasets),
                                 common.resolved_data_dir()};
  exp::register_store_files(source.results);
  if (!output.empty()) exp::check_output_path(output, "-o");  // before any work
  if (!compare.empty()) {
    const exp::ComparisonOutcome c = exp::compare_with_published(source, compare, tolerance);
    std::cout << c.text;
    if (!c.error.empty()) std::cerr << "bnnbench report: --compare: " << c.error << "\n";
    return c.status;
  }
  if (!publish_dir.empty()) {
    if (!output.empty() || common.given.count("format"))
      throw po::error("--publish writes every format: drop --format and -o");
    publish(source, publish_dir);
    return 0;
  }
  const std::string text = common.given.count("paired-against")
                               ? exp::paired_report_text(format, source, paired_against)
                               : exp::report_text(format, source);
  if (output.empty())
    std::cout << text;
  else
    exp::write_text_file(output, text, "-o");
  return 0;
}

}  // namespace bnn::cli
