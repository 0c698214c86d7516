// bnnbench run: argument parsing over run/runner.hpp, then the report.
#include <omp.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include "common.hpp"
#include "experiments/src/cluster/mpi_run.hpp"
#include "experiments/src/report/publish.hpp"
#include "experiments/src/report/reference.hpp"
#include "experiments/src/report/run_tables.hpp"
#include "experiments/src/run/runner.hpp"
#include "experiments/src/store/run_lock.hpp"
#include "job_filter.hpp"
#include "run_request.hpp"

namespace bnn::cli {

namespace {

int dry_run(const RunRequest& r) {
  const std::vector<exp::JobRecord> stored =
      std::filesystem::exists(std::filesystem::path(r.results) / "bnnbench.sqlite")
          ? exp::ResultsStore(r.results, exp::ResultsStore::Access::read_only).jobs(r.spec->name, false)
          : std::vector<exp::JobRecord>{};
  std::cout << exp::dry_run_table(
      exp::plan_status(exp::shard_jobs(r.plan->jobs, r.run.shard_index, r.run.shard_count), stored), r.results,
      r.rerun);
  return 0;
}

void print_start(const RunRequest& r, const exp::ResultsStore& store) {
  if (!r.quiet)
    std::cerr << r.spec->name << ": " << r.plan->jobs.size() << " job(s) over " << r.plan->datasets.size()
              << " data set(s), " << r.threads << " thread(s)"
              << "; results in " << store.path() << "\n";
}

// The summary, the report and the exit status of a finished run.
int finish(const RunRequest& r, const exp::RunSummary& summary) {
  if (!r.quiet) std::cerr << exp::run_summary_line(r.spec->name, summary) << "\n";
  for (const auto& e : summary.store_errors) std::cerr << "error: could not store " << e << "\n";
  if (!r.no_report) {  // of the selected methods and data sets, all their splits
    const exp::ReportSource source{
        *r.spec, *r.registry, r.results,
        exp::report_selection(*r.spec, *r.registry, r.plan_options.only_methods, r.plan_options.only_datasets), ""};
    std::cout << exp::report_text(r.format, source);
  }
  if (!summary.store_errors.empty()) return 1;
  if (summary.failed > 0) {
    std::cerr << r.spec->name << ": " << summary.failed
              << " job(s) failed; their messages are in the report and the store. "
              << "Rerunning retries them; finished jobs are kept.\n";
    return 1;
  }
  return 0;
}

// Several processes started by mpirun or srun: every one plans, rank 0 alone prints and writes.
int cmd_run_mpi(const std::vector<std::string>& args, const std::string& command_line) {
  const exp::MpiSession session;
  const bool root = session.rank() == 0;
  RunRequest r;
  bool ready = false;
  std::string error;
  int error_status = 2;
  try {
    ready = prepare_run(args, command_line, r, root);
  } catch (const std::invalid_argument& e) {  // bad options, spec or data (DataError is one too)
    error = e.what();
  } catch (const po::error& e) {
    error = std::string(e.what()) + " (see bnnbench run --help)";
  } catch (const std::exception& e) {
    error = e.what();
    error_status = 1;
  }
  // Every process must agree to go on: one that cannot plan (its data directory lacks a data
  // set, say) would leave the others waiting.
  const bool root_ok = error.empty();
  if (!session.all_true(error.empty())) {
    if (root && !error.empty()) exp::print_line("bnnbench run: error: " + error);
    if (!root && !error.empty() && root_ok) exp::print_line(exp::process_name(session.rank()) + ": error: " + error);
    return error.empty() ? 2 : error_status;
  }
  if (!ready) return 0;  // --help, printed by every process: only rank 0's is wanted
  if (!exp::same_jobs_everywhere(session, *r.plan, r.run)) {
    if (root)
      exp::print_line("bnnbench run: error: the processes of this MPI run do not plan the same jobs (see above)");
    return 2;
  }
  if (r.dry_run) return root ? dry_run(r) : 0;
  try {
    std::optional<exp::RunLock> lock;
    std::optional<exp::ResultsStore> store;
    if (root) {
      exp::ResultsStore::check_output_store(r.results);  // nothing made in another program's folder
      lock.emplace(r.results, command_line);             // one writer per store
      store.emplace(r.results);
      print_start(r, *store);
    }
    const exp::RunSummary summary = exp::run_plan_mpi(session, *r.spec, *r.plan, root ? &*store : nullptr, r.run);
    return root ? finish(r, summary) : 0;
  } catch (const std::exception& e) {
    exp::print_line(exp::process_name(session.rank()) + ": error: " + e.what());
    session.abort(1);  // the others would wait for this one forever
  }
}

}  // namespace

int cmd_run(const std::vector<std::string>& args, const std::string& command_line) {
  const exp::MpiLaunch launch = exp::mpi_launch_from_environment();
  if (launch.launched && launch.processes != 1) return cmd_run_mpi(args, command_line);
  RunRequest r;
  if (!prepare_run(args, command_line, r, true)) return 0;
  if (r.dry_run) return dry_run(r);
  exp::ResultsStore::check_output_store(r.results);  // nothing made in another program's folder
  const exp::RunLock lock(r.results, command_line);  // one writer per store
  exp::ResultsStore store(r.results);
  print_start(r, store);
  return finish(r, exp::run_plan(*r.spec, *r.plan, store, r.run));
}

}  // namespace bnn::cli
