#include "runner.hpp"

#include <omp.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <utility>

#include "bnnbench_version.hpp"
#include "datasets/src/normalize.hpp"
#include "methods/registry.hpp"
#include "progress.hpp"
#include "selection.hpp"

namespace bnn::exp {
namespace {

double cpu_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::string join_diagnostics(const FitReport& report) {
  std::string out;
  for (const auto& [name, value] : report.diagnostics)
    out += (out.empty() ? "" : ";") + name + "=" + option_detail::format_double(value);
  return out;
}

}  // namespace

std::string code_version() { return BNNBENCH_GIT_DESCRIBE; }

JobData prepare_job_data(const Plan& plan, const Job& job) {
  const PreparedDataset& pd = plan.datasets.at(job.dataset);
  const data::Split& split = pd.splits.at(static_cast<std::size_t>(job.key.split));
  const Eigen::MatrixXd X_train = data::select_rows(pd.data.X, split.train);
  const Eigen::VectorXd y_train = data::select_rows(pd.data.y, split.train);
  // Normalization uses the training part only.
  data::Standardizer norm = data::Standardizer::fit(
      X_train, y_train, pd.data.origin + " (split " + std::to_string(job.key.split) + ")", pd.config.constant_inputs);
  RegressionData train{norm.transform_inputs(X_train), norm.transform_targets(y_train)};
  Eigen::MatrixXd X_test = norm.transform_inputs(data::select_rows(pd.data.X, split.test));
  return {std::move(train), std::move(X_test), data::select_rows(pd.data.y, split.test), std::move(norm)};
}

JobRecord execute_job(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads) {
  using clock = std::chrono::steady_clock;
  // A job given several threads (the only one running) may use them, e.g. NN-MC's chains;
  // its CPU time is then the process's.
  const clockid_t cpu_clock = threads > 1 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID;
  const int saved_team_size = omp_get_max_threads();
  if (threads > 1) omp_set_num_threads(threads);
  JobRecord rec;
  rec.key = job.key;
  rec.method = job.method->method;
  rec.config = job.config;
  rec.seed = job.seed;
  rec.scale = spec.scale;
  rec.code_version = code_version();
  rec.host = host_name();
  try {
    const PreparedDataset& pd = plan.datasets.at(job.dataset);
    const data::Split& split = pd.splits.at(static_cast<std::size_t>(job.key.split));
    const JobData job_data = prepare_job_data(plan, job);
    const RegressionData& train = job_data.train;
    const Eigen::MatrixXd& X_test_normalized = job_data.X_test;
    const Eigen::VectorXd& y_test = job_data.y_test;
    const data::Standardizer& norm = job_data.norm;
    rec.n_train = train.X.rows();
    rec.n_test = X_test_normalized.rows();
    rec.n_features = train.X.cols();

    Rng rng(job.seed);
    const MethodEntry& method = find_method(job.method->method);
    const auto t0 = clock::now();
    const double cpu0 = cpu_seconds(cpu_clock);
    const std::unique_ptr<Model> model = method.fit(train, job.params, rng);
    const auto t1 = clock::now();
    const double cpu1 = cpu_seconds(cpu_clock);
    std::unique_ptr<Predictive> predictive = model->predict(X_test_normalized);
    const auto t2 = clock::now();
    rec.fit_seconds = std::chrono::duration<double>(t1 - t0).count();
    rec.predict_seconds = std::chrono::duration<double>(t2 - t1).count();
    const FitReport& report = model->report();
    // With one thread the fit's pieces run elsewhere (run_pieces) are not on this thread's clock.
    rec.fit_cpu_seconds = cpu1 - cpu0 + (threads > 1 ? 0.0 : report.cpu_seconds_elsewhere);

    rec.fit_status = to_string(report.status);
    rec.fit_message = report.message;
    rec.fit_iterations = report.iterations;
    rec.diagnostics = join_diagnostics(report);
    for (const auto& w : report.warnings) rec.warnings += (rec.warnings.empty() ? "" : "; ") + w;

    long non_finite = 0;
    if (!split.test.empty()) {
      Eigen::VectorXd y_eval;
      if (spec.scale == "original") {
        predictive = std::make_unique<AffinePredictive>(std::move(predictive), norm.y_mean, norm.y_scale);
        y_eval = y_test;
      } else {
        y_eval = norm.transform_targets(y_test);
      }
      Evaluation e;
      e.step = 0;
      e.n_train = rec.n_train;
      e.points = score_points(*predictive, y_eval);
      e.metrics = split_metrics(e.points);
      e.metrics["fit_seconds"] = rec.fit_seconds + rec.predict_seconds;
      e.test_rows.assign(split.test.begin(), split.test.end());
      non_finite += count_non_finite(e.points);
      rec.evaluations.push_back(std::move(e));
    }
    if (split.test.empty()) {  // figure experiments: no test points, the timing still counts
      Evaluation e;
      e.n_train = rec.n_train;
      e.metrics["fit_seconds"] = rec.fit_seconds + rec.predict_seconds;
      rec.evaluations.push_back(std::move(e));
    }
    if (spec.grid) {
      // Figures: predictions on the grid, in original units whatever the metrics' scale.
      GridPredictions g;
      g.points = make_grid(*spec.grid, pd.data.X.cols());
      const AffinePredictive on_grid(model->predict(norm.transform_inputs(g.points.X)), norm.y_mean, norm.y_scale);
      for (Eigen::Index i = 0; i < on_grid.size(); ++i) {
        g.mean.push_back(on_grid.mean(i));
        g.variance.push_back(on_grid.variance(i));
        g.lower95.push_back(on_grid.quantile(i, 0.025));
        g.upper95.push_back(on_grid.quantile(i, 0.975));
        if (!std::isfinite(g.mean.back()) || !std::isfinite(g.variance.back())) ++non_finite;
      }
      rec.grid = std::move(g);
    }
    if (non_finite > 0) {
      rec.status = "failed";
      rec.error = "non-finite predictions at " + std::to_string(non_finite) + " points (fit status " +
                  rec.fit_status + (rec.fit_message.empty() ? "" : ": " + rec.fit_message) + ")";
    } else {
      rec.status = "ok";
    }
  } catch (const std::exception& ex) {
    rec.status = "failed";
    rec.error = ex.what();
  } catch (...) {
    rec.status = "failed";
    rec.error = "unknown exception";
  }
  if (threads > 1) omp_set_num_threads(saved_team_size);
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
  const std::vector<JobRecord> stored = store.jobs(spec.name, /*with_points=*/false);
  const std::vector<const JobRecord*> records = stored_records(share, stored);
  std::vector<const Job*> pending;
  for (std::size_t j = 0; j < share.size(); ++j) {
    if (records[j] && records[j]->status == "ok" && !options.rerun) ++summary.already_done;
    else pending.push_back(&share[j]);
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

  long ran = 0, failed = 0, kept = 0;
  std::vector<std::string> store_errors;
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
#pragma omp parallel for schedule(dynamic, 1) num_threads(workers) reduction(+ : ran, failed, kept)
  for (long i = 0; i < count; ++i) {
    const Job& job = *pending[static_cast<std::size_t>(i)];
    if (!options.quiet) progress.job_started(static_cast<std::size_t>(i));
    JobRecord rec = execute_job(spec, plan, job, threads_per_job);
    rec.run_id = run.run_id;
    ++ran;
    if (rec.status != "ok") ++failed;
    try {
      if (!store.record(rec)) ++kept;
    } catch (const std::exception& ex) {
#pragma omp critical(bnn_store_errors)
      store_errors.push_back(job.key.describe() + ": " + ex.what());
    }
    if (!options.quiet)
      progress.job_done(static_cast<std::size_t>(i), job.key.describe(), rec.status == "ok",
                        rec.fit_seconds + rec.predict_seconds, rec.error);
  }
  if (!options.quiet) progress.finish();
  summary.ran = ran;
  summary.failed = failed;
  summary.kept = kept;
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
