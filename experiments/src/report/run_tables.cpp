#include "experiments/src/report/run_tables.hpp"

#include <sstream>

#include "experiments/src/run/progress.hpp"

namespace bnn::exp {

std::string dry_run_table(const std::vector<PlanStatus>& rows, const std::string& results, bool rerun) {
  std::ostringstream out;
  out << "| data set | method | jobs | done | done (older options) | failed before | stopped part way | done without the "
         "artifacts asked for | done on data changed since | not run | wall time per finished job |\n"
      << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  long to_run = 0;
  for (const auto& r : rows) {
    const long finished = r.done + r.done_older;
    out << "| " << r.dataset << " | " << r.method_label << " | " << r.planned << " | " << r.done << " | "
        << r.done_older << " | " << r.retry << " | " << r.partial << " | " << r.artifacts << " | " << r.data_changed
        << " | " << r.fresh << " | "
        << (finished > 0 ? format_duration(r.seconds / static_cast<double>(finished)) : "—") << " |\n";
    to_run += r.retry + r.partial + r.artifacts + r.data_changed + r.fresh + (rerun ? finished : 0);
  }
  out << "\n"
      << to_run << " job(s) would run" << (rerun ? " (--rerun: the finished ones again)" : "") << "; results store "
      << results << "\n";
  return out.str();
}

std::string run_summary_line(const std::string& experiment, const RunSummary& summary) {
  std::ostringstream out;
  out << experiment << ": ran " << summary.ran << " job(s) in " << format_duration(summary.wall_seconds) << " ("
      << summary.failed << " failed), " << summary.already_done << " already done";
  if (summary.data_changed > 0)
    out << "; " << summary.data_changed
        << " job(s) computed again because their data (a data or split file) changed since they were stored";
  if (summary.kept > 0) out << ", " << summary.kept << " failed rerun(s) kept the finished result";
  if (summary.not_stored > 0 || summary.not_started > 0)
    out << "; the store failed: " << summary.not_stored << " job(s) computed but not stored, " << summary.not_started
        << " not started (rerun when the store is writable again: finished jobs are kept)";
  return out.str();
}

}  // namespace bnn::exp
