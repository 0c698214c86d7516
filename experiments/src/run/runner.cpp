#include "experiments/src/run/runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <map>
#include <utility>

#include "bnnbench_version.hpp"
#include "datasets/src/normalize.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/run/fit_and_score.hpp"
#include "experiments/src/run/progress.hpp"
#include "experiments/src/spec/experiment_kind.hpp"
#include "methods/registry.hpp"

namespace bnn::exp {
namespace {

std::string join_diagnostics(const FitReport& report) {
  std::string out;
  for (const auto& [name, value] : report.diagnostics)
    out += (out.empty() ? "" : ";") + name + "=" + option_detail::format_double(value);
  return out;
}

}  // namespace

std::string code_version() { return BNNBENCH_GIT_DESCRIBE; }

void check_threads(int threads) {
  if (threads < 1 || threads > kMaxThreads)
    throw std::invalid_argument("--threads is " + std::to_string(threads) + ", but must be between 1 and " +
                                std::to_string(kMaxThreads));
}

JobRecord new_job_record(const ExperimentSpec& spec, const Job& job) {
  JobRecord rec;
  rec.key = job.key;
  rec.method = job.method->method;
  rec.config = job.config;
  rec.seed = job.seed;
  rec.data_hash = job.data_hash;
  rec.scale = spec.scale;
  rec.code_version = code_version();
  rec.host = job_host();
  return rec;
}

void add_fit(JobRecord& rec, const FitAndScore& fitted, const std::vector<std::string>& data_warnings) {
  rec.fit_seconds += fitted.fit_seconds;
  rec.predict_seconds += fitted.predict_seconds;
  rec.fit_cpu_seconds += fitted.fit_cpu_seconds;
  const FitReport& report = fitted.model->report();
  rec.fit_status = to_string(report.status);
  rec.fit_message = report.message;
  rec.fit_iterations = report.iterations;
  rec.diagnostics = join_diagnostics(report);
  rec.warnings.clear();
  for (const auto& w : report.warnings) rec.warnings += (rec.warnings.empty() ? "" : "; ") + w;
  for (const auto& w : data_warnings) rec.warnings += (rec.warnings.empty() ? "" : "; ") + w;
}

void fail_on_exception(JobRecord& rec, const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& ex) {
    rec.status = "failed";
    rec.error = ex.what();
  } catch (...) {
    rec.status = "failed";
    rec.error = "unknown exception";
  }
}

void fail_non_finite(JobRecord& rec, long non_finite) {
  rec.status = "failed";
  rec.error = "non-finite predictions at " + std::to_string(non_finite) + " points (fit status " + rec.fit_status +
              (rec.fit_message.empty() ? "" : ": " + rec.fit_message) + ")";
}

JobRecord execute_job(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads,
                      const JobRecord* resume, const std::function<void(const JobRecord&)>& checkpoint) {
  const TeamSize team(threads);
  return experiment_kind(spec).run(spec, plan, job, threads, resume, checkpoint);
}

double job_size(const Plan& plan, const Job& job) {
  const PreparedDataset& pd = plan.datasets.at(job.dataset);
  const auto n = static_cast<double>(pd.splits.at(static_cast<std::size_t>(job.key.split)).train.size());
  return n * static_cast<double>(pd.data.X.cols() + 1);
}

std::vector<const Job*> largest_first(const Plan& plan, std::vector<const Job*> jobs) {
  std::vector<std::pair<double, const Job*>> sized;  // each size computed once
  for (const Job* job : jobs) sized.emplace_back(job_size(plan, *job), job);
  std::stable_sort(sized.begin(), sized.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t j = 0; j < jobs.size(); ++j) jobs[j] = sized[j].second;
  return jobs;
}

void ResultsSink::checkpoint(JobRecord step) {
  step.run_id = run_id_;
  try {
    store_.record(step);
  } catch (const std::exception& ex) {
    failed_to_store(step.key.describe() + " (step " + std::to_string(step.evaluations.size() - 1) + "): " + ex.what());
  }
}

std::string ResultsSink::finished(JobRecord& rec) {
  rec.run_id = run_id_;
  ++ran_;
  if (rec.status != "ok") ++failed_;
  try {
    if (!store_.record(rec)) ++kept_;
  } catch (const std::exception& ex) {
    ++not_stored_;
    failed_to_store(rec.key.describe() + ": " + ex.what());
    return std::string("not stored: ") + ex.what();
  }
  return "";
}

void ResultsSink::failed_to_store(std::string what) {
  storage_failed_ = true;
  const std::lock_guard<std::mutex> lock(mutex_);
  errors_.push_back(std::move(what));
}

void ResultsSink::summarize(RunSummary& summary, long jobs) {
  summary.ran = ran_;
  summary.failed = failed_;
  summary.kept = kept_;
  summary.not_stored = not_stored_;
  summary.not_started = jobs - ran_;
  const std::lock_guard<std::mutex> lock(mutex_);
  summary.store_errors = errors_;
}

PendingJobs::PendingJobs(const ExperimentSpec& spec, const Plan& plan, ResultsStore& store, const RunOptions& options)
    : share(shard_jobs(plan.jobs, options.shard_index, options.shard_count)),
      // An active-learning job stopped part way resumes from its stored steps, points and all.
      stored(store.jobs(spec.name, /*with_points=*/experiment_kind(spec).resumes_part_way())) {
  const std::vector<const JobRecord*> records = stored_records(share, stored);
  for (std::size_t j = 0; j < share.size(); ++j) {
    if (is_finished(share[j], records[j]) && !options.rerun)
      ++already_done;
    else
      jobs.push_back(&share[j]);
    if (exp::data_changed(share[j], records[j])) {
      ++data_changed;  // from the start, whatever it had stored
      continue;
    }
    if (records[j] && records[j]->status == "partial" && records[j]->key == share[j].key && !options.rerun)
      partial[&share[j]] = records[j];
  }
  jobs = largest_first(plan, std::move(jobs));
}

const JobRecord* PendingJobs::resume_of(const Job& job) const {
  const auto found = partial.find(&job);
  return found == partial.end() ? nullptr : found->second;
}

RunRecord new_run_record(const ExperimentSpec& spec, const RunOptions& options, long jobs_planned) {
  RunRecord run;
  run.experiment = spec.name;
  run.command = options.command_line;
  run.threads = options.threads;
  run.shard = std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count);
  run.host = host_name();
  run.machine = machine_description();
  run.code_version = code_version();
  run.started_at = utc_now();
  run.jobs_planned = jobs_planned;
  return run;
}

void end_run_record(RunRecord& run, ResultsStore& store, RunSummary& summary,
                    std::chrono::steady_clock::time_point start) {
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.finished_at = utc_now();
  run.jobs_run = summary.ran;
  run.jobs_failed = summary.failed;
  run.wall_seconds = summary.wall_seconds;
  try {
    store.end_run(run);
  } catch (const std::exception& e) {
    // A store that failed during the run (a full disk, a file-size limit) may not take the
    // run's record either: reported with the jobs it could not take, the summary still printed.
    summary.store_errors.push_back("the run's record (its end time and counts): " + std::string(e.what()));
    if (summary.not_stored == 0) throw;
  }
}

std::vector<JobCost> job_costs(const Plan& plan, const std::vector<const Job*>& jobs) {
  std::vector<JobCost> costs;
  for (const Job* job : jobs) costs.push_back({job->key.method_label, job_size(plan, *job)});
  return costs;
}

RunSummary run_plan(const ExperimentSpec& spec, const Plan& plan, ResultsStore& store, const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  RunSummary summary;
  const PendingJobs todo(spec, plan, store, options);
  summary.planned = static_cast<long>(todo.share.size());
  summary.already_done = todo.already_done;
  summary.data_changed = todo.data_changed;
  const std::vector<const Job*>& pending = todo.jobs;
  RunRecord run = new_run_record(spec, options, static_cast<long>(pending.size()));
  run.run_id = store.begin_run(run);

  ResultsSink sink(store, run.run_id);
  const auto count = static_cast<long>(pending.size());
  // A lone job gets every thread (the outer team of one is inactive, so the job's own
  // parallel regions may use them); otherwise one job per thread, and a thread with no job
  // left takes up the parallel pieces (run_pieces) of those still running. Results do not
  // depend on it.
  const int threads_per_job = count == 1 ? options.threads : 1;
  const int workers = threads_per_job > 1 ? 1 : options.threads;
  Progress progress(job_costs(plan, pending), workers, options.progress_bar);
#pragma omp parallel for schedule(dynamic, 1) num_threads(workers)
  for (long i = 0; i < count; ++i) {
    if (sink.storage_failed()) continue;  // the store failed: no job starts after that
    const Job& job = *pending[static_cast<std::size_t>(i)];
    if (!options.quiet) progress.job_started(static_cast<std::size_t>(i));
    JobRecord rec = execute_job(spec, plan, job, threads_per_job, todo.resume_of(job),
                                [&](const JobRecord& step) { sink.checkpoint(step); });
    const std::string store_error = sink.finished(rec);
    if (!options.quiet)
      progress.job_done(static_cast<std::size_t>(i), job.key.describe(), rec.status == "ok" && store_error.empty(),
                        rec.fit_seconds + rec.predict_seconds, store_error.empty() ? rec.error : store_error);
  }
  if (!options.quiet) progress.finish();
  sink.summarize(summary, count);
  end_run_record(run, store, summary, start);
  return summary;
}

}  // namespace bnn::exp
