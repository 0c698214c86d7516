#pragma once
// Every output `bnnbench report` and `run` print or write: the report in each format, the
// per-split and job files, a figure experiment's grid and drawings, the artifacts' tables and
// figures, and the set of files a committed result holds (`report --publish`).
#include <string>
#include <utility>
#include <vector>

#include "datasets/src/registry.hpp"
#include "experiments/src/report/report.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

// What a report is made of: the spec, the registry, the results directory, the part shown and
// the data directory (for a figure's training points).
struct ReportSource {
  const ExperimentSpec& spec;
  const data::DatasetRegistry& registry;
  std::string results;
  ReportSelection selection;
  std::string data_dir;
};

// The formats `report --format` takes: md, csv, latex, splits, jobs, grid, observations, svg, or
// the name of an artifact file (e.g. parameter_marginals.csv, gaussian_posterior.svg).
std::string report_text(const std::string& format, const ReportSource& source);
// Throws std::invalid_argument naming the allowed formats, where `format` is not one of them.
void check_format(const std::string& format, const std::vector<std::string>& allowed);
std::string render(const ReportData& report, const std::string& format);  // md, csv or latex

// The files of `report --publish DIR`, as results/EXPERIMENT holds them: name -> contents. All
// are made before any is written.
std::vector<std::pair<std::string, std::string>> published_files(const ReportSource& source);

// `report --compare FILE`: our table (or our per-split metrics) against a published one. The
// text to print, and the exit status: 1 when any value differs or none could be compared.
struct ComparisonOutcome {
  std::string text, error;
  int status = 0;
};
ComparisonOutcome compare_with_published(const ReportSource& source, const std::string& file, double tolerance);

}  // namespace bnn::exp
