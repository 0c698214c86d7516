#pragma once
// What the formats of one report share, each made once when a format first needs it: the store
// it reads, the jobs selected, the table, the grids, the jobs shown with their per-point
// predictions, and the files drawn from them (artifacts, the experiment kind's own).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "datasets/src/load.hpp"
#include "datasets/src/synthetic.hpp"
#include "experiments/src/records/grid_predictions.hpp"
#include "experiments/src/records/job_key.hpp"
#include "experiments/src/report/publish.hpp"
#include "experiments/src/report/report_store.hpp"

namespace bnn::exp {

class ReportContext {
 public:
  explicit ReportContext(const ReportSource& source) : source_(source) {}
  const ReportSource& source() const { return source_; }
  ResultsStore& store();
  bool from_committed_files();
  // The selected jobs (no per-point predictions).
  const std::vector<JobRecord>& jobs();
  const ReportData& report();
  // The grids of the jobs the table shows (the spec's current configuration, the selection).
  const std::vector<std::pair<JobKey, GridPredictions>>& grids();
  // The jobs the table shows, with their per-point predictions.
  const std::vector<JobRecord>& shown();
  // The files drawn from the shown jobs: the artifacts' tables and figures, and what the
  // experiment's kind adds (an active-learning experiment's learning curves). Name -> contents.
  const std::vector<std::pair<std::string, std::string>>& figure_files();

 private:
  const ReportSource& source_;
  std::optional<ReportStore> opened_;
  std::optional<std::vector<JobRecord>> jobs_, shown_;
  std::optional<ReportData> report_;
  std::optional<std::vector<std::pair<JobKey, GridPredictions>>> grids_;
  std::optional<std::vector<std::pair<std::string, std::string>>> figures_;
};

// The selected data sets of the spec (original units), to plot beside a grid.
std::vector<data::Dataset> spec_datasets(const ReportSource& source);
// The true functions of the spec's synthetic data sets, by name.
std::map<std::string, data::LatentFunction> synthetic_truth(const ReportSource& source);
// The paper's values of one metric per method label (first data set that has them), as printed.
std::map<std::string, std::string> paper_values(const ReportData& report, const std::string& metric);

}  // namespace bnn::exp
