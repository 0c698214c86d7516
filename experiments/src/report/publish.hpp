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

// The formats of a report are one registry (publish.cpp: name, description, the file it is
// published as for a table or a figure experiment, whether `run` prints it, how it is made):
// `report --format`, `report --publish` and `run --format` all read it.
//
// A report in one format (md, csv, latex, html, svg, splits, jobs, grid, observations), or the
// name of an artifact file (e.g. parameter_marginals.csv, gaussian_posterior.svg).
std::string report_text(const std::string& format, const ReportSource& source);
// `report --paired-against BASELINE` (report/paired_comparison.hpp) in one format (md, csv,
// latex, html); std::invalid_argument for another format or a label the spec lacks.
std::string paired_report_text(const std::string& format, const ReportSource& source, const std::string& baseline);
// The formats with their descriptions, for --help.
std::string report_format_list();
// std::invalid_argument naming the formats `run --format` takes, where `format` is not one.
void check_run_format(const std::string& format);
// Throws std::invalid_argument naming the allowed formats, where `format` is not one of them.
void check_format(const std::string& format, const std::vector<std::string>& allowed);

// The files of `report --publish DIR`, as results/EXPERIMENT holds them: name -> contents, the
// report built once for all of them. All are made before any is written.
std::vector<std::pair<std::string, std::string>> published_files(const ReportSource& source);
// A published file's name for this spec: splits.csv and jobs.csv of an active-learning
// experiment are compressed (.gz).
std::string published_name(const ExperimentSpec& spec, const std::string& file);

}  // namespace bnn::exp
