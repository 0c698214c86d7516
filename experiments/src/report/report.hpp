#pragma once
// Reports: results aggregated over splits, in the paper's layout, with the published numbers
// beside ours and a mark where they differ by more than two combined standard errors.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "datasets/src/registry.hpp"
#include "experiments/src/metrics/metrics.hpp"
#include "experiments/src/report/reference.hpp"
#include "experiments/src/spec/spec.hpp"
#include "experiments/src/store/store.hpp"

namespace bnn::exp {

struct Cell {
  std::optional<Summary> ours;  // absent: no finished job
  int n_splits = 0;             // finished splits behind `ours` (that have the metric)
  int n_planned = 0;            // splits of the protocol (0: not known)
  int n_failed = 0;
  std::optional<PaperValue> paper;
  bool differs = false;  // |ours - paper| beyond the paper's rounding > 2 sqrt(se_ours^2 + se_paper^2)
  // Ours averages fewer splits than the protocol has, not for failed jobs (shown as such) but for
  // splits not run (a --splits selection) or lacking the metric: shown as k/N and never marked
  // against the paper.
  bool partial() const { return ours && n_planned > 0 && n_splits + n_failed < n_planned; }
};

struct DatasetRow {
  const DatasetConfig* config = nullptr;  // the spec's entry
  std::string name;                       // canonical
  long n_train = 0, n_test = 0, d = 0;    // from our jobs (0 when none)
  long paper_n = 0, paper_d = 0;
  long failed_jobs = 0;      // shown as the reason when no job finished
  std::string loading = {};  // what loading does beyond reading numbers (one-hot columns, dropped rows)
};

struct ReportData {
  const ExperimentSpec* spec = nullptr;
  std::vector<DatasetRow> datasets;
  std::vector<std::string> methods;  // labels in spec order
  std::vector<std::string> metrics;
  std::map<std::tuple<std::string, std::string, std::string>, Cell> cells;  // dataset, label, metric
  std::vector<std::string> notes;
  std::vector<std::string> failures;  // "dataset/label/split k: message"
  // Warnings of finished fits (e.g. R-hat above 1.1), one line per dataset/label and text.
  std::vector<std::string> warnings;
  std::vector<RunRecord> runs;
  // Where a store has no run records (one made from the committed per-job files), what its jobs
  // say of where and when they were computed.
  struct JobsProvenance {
    long jobs = 0;
    std::set<std::string> code_versions, hosts;
    std::string first_finished, last_finished;
  } stored;
  std::string store_path;
  std::string artifacts;  // the Markdown section of the artifacts (artifact_report.hpp), if any

  const Cell& cell(const std::string& dataset, const std::string& label, const std::string& metric) const;
};

// The part of an experiment a report shows (`report --methods`, `--datasets`); empty: all.
struct ReportSelection {
  std::vector<std::string> methods;   // labels
  std::vector<std::string> datasets;  // canonical names
  bool shows_method(const std::string& label) const;
  bool shows_dataset(const std::string& name) const;
  bool shows(const JobKey& key) const { return shows_dataset(key.dataset) && shows_method(key.method_label); }
  bool all() const { return methods.empty() && datasets.empty(); }
};

// The stored jobs a report selection shows.
std::vector<JobRecord> selected_jobs(std::vector<JobRecord> jobs, const ReportSelection& selection);
// The selection of --methods and --datasets as a report shows it (data sets by canonical name);
// an unknown name is an error naming it.
ReportSelection report_selection(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                 const std::vector<std::string>& methods, const std::vector<std::string>& datasets);
// The finished jobs of the spec's current configuration in the selection, with their
// per-test-point data and artifacts: what the report's figures draw.
std::vector<JobRecord> shown_jobs(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                  ResultsStore& store, const ReportSelection& selection);

// Aggregates the finished jobs of the spec's current configuration (results made with other
// options or seeds are ignored and noted). `references` may be empty. A selection leaves out
// the other data sets and methods (a method's time relative to one left out is still shown).
ReportData build_report(const ExperimentSpec& spec, const data::DatasetRegistry& registry, ResultsStore& store,
                        const ReferenceValues& references, const ReportSelection& selection = {});

std::string render_markdown(const ReportData& report);
std::string render_latex(const ReportData& report);
std::string render_csv(const ReportData& report);
// Figure data: every finished job's grid predictions,
// dataset,method,split,input,x1..xd,mean,sd,lower95,upper95 (input: the varied input of a
// one-at-a-time grid, else empty); original units.
std::string render_grid_csv(const std::vector<std::pair<JobKey, GridPredictions>>& grids);

// Aggregates per-split metric values and pooled test points into the report metrics.
std::map<std::string, Summary> aggregate_metrics(const std::vector<const JobRecord*>& jobs);

}  // namespace bnn::exp
