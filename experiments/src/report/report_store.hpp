#pragma once
// The store a report reads: the results folder's own, or, where it has none but holds the
// committed per-job files (a fresh clone's results/EXPERIMENT), one made in a scratch folder
// from them (export/published_jobs.hpp), described as what it was made from.
#include <memory>
#include <optional>

#include "experiments/src/io/files.hpp"
#include "experiments/src/report/publish.hpp"
#include "experiments/src/store/store.hpp"

namespace bnn::exp {

class ReportStore {
 public:
  explicit ReportStore(const ReportSource& source);
  ResultsStore& operator*() { return *store_; }
  // Made from the committed per-job files: no grids, per-point predictions or artifacts.
  bool from_committed_files() const { return scratch_.has_value(); }

 private:
  std::optional<ScratchDirectory> scratch_;
  std::unique_ptr<ResultsStore> store_;
};

}  // namespace bnn::exp
