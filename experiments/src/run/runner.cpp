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
#include "experiments/src/artifacts/produce.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/run/active_learning.hpp"
#include "experiments/src/run/fit_and_score.hpp"
#include "experiments/src/run/progress.hpp"
#include "methods/registry.hpp"

namespace bnn::exp {
namespace {

std::string join_diagnostics(const FitReport& report) {
  std::string out;
  for (const auto& [name, value] : report.diagnostics)
    out += (out.empty() ? "" : ";") + name + "=" + option_detail::format_double(value);
  return out;
}

// Figures: predictions on the spec's grid, in original units whatever the metrics' scale.
GridPredictions grid_predictions(const GridSpec& spec, const Model& model, const JobData& data, Eigen::Index inputs,
                                 long& non_finite) {
  GridPredictions g;
  g.points = make_grid(spec, inputs);
  const AffinePredictive on_grid(model.predict(data.norm.transform_inputs(g.points.X)), data.norm.y_mean,
                                 data.norm.y_scale);
  for (Eigen::Index i = 0; i < on_grid.size(); ++i) {
    g.mean.push_back(on_grid.mean(i));
    g.variance.push_back(on_grid.variance(i));
    g.lower95.push_back(on_grid.quantile(i, 0.025));
    g.upper95.push_back(on_grid.quantile(i, 0.975));
    if (!std::isfinite(g.mean.back()) || !std::isfinite(g.variance.back())) ++non_finite;
  }
  return g;
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
  rec.scale = spec.scale;
  rec.code_version = code_version();
  rec.host = host_name();
  return rec;
}

void add_fit(JobRecord& rec, const FitAndScore& fitted) {
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
  if (spec.active_learning) return run_active_learning(spec, plan, job, threads, resume, checkpoint);
  JobRecord rec = new_job_record(spec, job);
  fail_on_exception(rec, [&] {
    const PreparedDataset& pd = plan.datasets.at(job.dataset);
    const JobData data = prepare_job_data(plan, job);
    rec.n_train = data.train.X.rows();
    rec.n_test = data.X_test.rows();
    rec.n_features = data.train.X.cols();
    FitAndScore fitted =
        fit_and_score(find_method(job.method->method), job.params, data, job.seed, spec.scale == "original", threads);
    add_fit(rec, fitted);
    long non_finite = fitted.non_finite;
    if (spec.grid) rec.grid = grid_predictions(*spec.grid, *fitted.model, data, pd.data.X.cols(), non_finite);
    for (const ArtifactSpec* request : job.artifacts) {
      produce_artifact(*request, {*fitted.model, data.train, data.X_test, data.test_rows}, rec.artifacts,
                       fitted.evaluation.metrics);
      rec.artifact_requests[request->kind] = request->canonical();
    }
    rec.evaluations.push_back(std::move(fitted.evaluation));
    if (non_finite > 0)
      fail_non_finite(rec, non_finite);
    else
      rec.status = "ok";
  });
  rec.finished_at = utc_now();
  return rec;
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

RunSummary run_plan(const ExperimentSpec& spec, const Plan& plan, ResultsStore& store, const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  RunSummary summary;
  const std::vector<Job> share = shard_jobs(plan.jobs, options.shard_index, options.shard_count);
  summary.planned = static_cast<long>(share.size());
  // An active-learning job stopped part way resumes from its stored steps, points and all.
  const std::vector<JobRecord> stored = store.jobs(spec.name, /*with_points=*/spec.active_learning.has_value());
  const std::vector<const JobRecord*> records = stored_records(share, stored);
  std::vector<const Job*> pending;
  std::map<const Job*, const JobRecord*> partial;  // active learning stopped part way: resumed
  for (std::size_t j = 0; j < share.size(); ++j) {
    if (is_finished(share[j], records[j]) && !options.rerun)
      ++summary.already_done;
    else
      pending.push_back(&share[j]);
    if (records[j] && records[j]->status == "partial" && records[j]->key == share[j].key && !options.rerun)
      partial[&share[j]] = records[j];
  }
  pending = largest_first(plan, std::move(pending));

  RunRecord run;
  run.experiment = spec.name;
  run.command = options.command_line;
  run.threads = options.threads;
  run.shard = std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count);
  run.host = host_name();
  run.machine = machine_description();
  run.code_version = code_version();
  run.started_at = utc_now();
  run.jobs_planned = static_cast<long>(pending.size());
  run.run_id = store.begin_run(run);

  long ran = 0, failed = 0, kept = 0, not_stored = 0;
  std::vector<std::string> store_errors;
  std::atomic<bool> storage_failed{false};
  const auto count = static_cast<long>(pending.size());
  // A lone job gets every thread (the outer team of one is inactive, so the job's own
  // parallel regions may use them); otherwise one job per thread, and a thread with no job
  // left takes up the parallel pieces (run_pieces) of those still running. Results do not
  // depend on it.
  const int threads_per_job = count == 1 ? options.threads : 1;
  const int workers = threads_per_job > 1 ? 1 : options.threads;
  std::vector<JobCost> costs;
  for (const Job* job : pending) costs.push_back({job->key.method_label, job_size(plan, *job)});
  Progress progress(std::move(costs), workers, options.progress_bar);
#pragma omp parallel for schedule(dynamic, 1) num_threads(workers) reduction(+ : ran, failed, kept, not_stored)
  for (long i = 0; i < count; ++i) {
    if (storage_failed.load()) continue;  // the store failed: no job starts after that
    const Job& job = *pending[static_cast<std::size_t>(i)];
    if (!options.quiet) progress.job_started(static_cast<std::size_t>(i));
    const auto resumed = partial.find(&job);
    const auto checkpoint = [&](JobRecord step) {  // a step of an active-learning job, stored at once
      step.run_id = run.run_id;
      try {
        store.record(step);
      } catch (const std::exception& ex) {
        storage_failed = true;
#pragma omp critical(bnn_store_errors)
        store_errors.push_back(job.key.describe() + " (step " + std::to_string(step.evaluations.size() - 1) +
                               "): " + ex.what());
      }
    };
    JobRecord rec =
        execute_job(spec, plan, job, threads_per_job, resumed == partial.end() ? nullptr : resumed->second, checkpoint);
    rec.run_id = run.run_id;
    ++ran;
    if (rec.status != "ok") ++failed;
    std::string store_error;
    try {
      if (!store.record(rec)) ++kept;
    } catch (const std::exception& ex) {
      storage_failed = true;
      ++not_stored;
      store_error = std::string("not stored: ") + ex.what();
#pragma omp critical(bnn_store_errors)
      store_errors.push_back(job.key.describe() + ": " + ex.what());
    }
    if (!options.quiet)
      progress.job_done(static_cast<std::size_t>(i), job.key.describe(), rec.status == "ok" && store_error.empty(),
                        rec.fit_seconds + rec.predict_seconds, store_error.empty() ? rec.error : store_error);
  }
  if (!options.quiet) progress.finish();
  summary.ran = ran;
  summary.failed = failed;
  summary.kept = kept;
  summary.not_stored = not_stored;
  summary.not_started = count - ran;
  summary.store_errors = std::move(store_errors);
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.finished_at = utc_now();
  run.jobs_run = ran;
  run.jobs_failed = failed;
  run.wall_seconds = summary.wall_seconds;
  store.end_run(run);
  return summary;
}

}  // namespace bnn::exp
