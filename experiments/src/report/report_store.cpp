#include "experiments/src/report/report_store.hpp"

#include <filesystem>
#include <iostream>

#include "experiments/src/export/published_jobs.hpp"

namespace bnn::exp {

ReportStore::ReportStore(const ReportSource& source) {
  namespace fs = std::filesystem;
  const std::string splits = fs::exists(fs::path(source.results) / "bnnbench.sqlite")
                                 ? std::string()
                                 : find_text_file(source.results, "splits.csv");
  if (splits.empty()) {
    store_ = std::make_unique<ResultsStore>(source.results, ResultsStore::Access::read_only);
    return;
  }
  const std::string jobs = find_text_file(source.results, "jobs.csv");
  scratch_.emplace();
  store_ = std::make_unique<ResultsStore>(scratch_->path());
  for (const JobRecord& job : published_jobs(source.spec.name, read_text_file(splits, "--results"), splits,
                                             jobs.empty() ? std::string() : read_text_file(jobs, "--results"), jobs))
    store_->record(job);
  store_->describe_as(splits + " (no results store here: the committed per-split metrics" +
                      (jobs.empty() ? std::string() : " and " + jobs) + ", without run records)");
  static bool told = false;  // once per process (--publish renders several files)
  if (!told)
    std::cerr << "note: no results store in " << source.results << ": rendering from the committed " << splits
              << " (per-split metrics; no per-point pooling, grids or artifacts)\n";
  told = true;
}

}  // namespace bnn::exp
