#include "experiments/src/run/fit_and_score.hpp"

#include <omp.h>
#include <time.h>

#include <chrono>

#include "methods/core/parallel_pieces.hpp"

namespace bnn::exp {
namespace {

double cpu_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

TeamSize::TeamSize(int threads) : saved_(omp_get_max_threads()), set_(threads >= 1) {
  if (set_) omp_set_num_threads(threads);
}

TeamSize::~TeamSize() {
  if (set_) omp_set_num_threads(saved_);
}

FitAndScore fit_and_score(const MethodEntry& method, const ParamMap& params, const JobData& data, std::uint64_t seed,
                          bool original_scale, int threads, const std::vector<const Eigen::MatrixXd*>& also_predict) {
  using clock = std::chrono::steady_clock;
  // A job given several threads (the only one running) may use them, e.g. NN-MC's chains;
  // its CPU time is then the process's.
  const clockid_t cpu_clock = threads > 1 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID;
  FitAndScore out;
  Rng rng(seed);
  const auto t0 = clock::now();
  const double cpu0 = cpu_seconds(cpu_clock), elsewhere0 = pieces_cpu_seconds_elsewhere();
  if (method.fit_for_points) {
    std::vector<const Eigen::MatrixXd*> points{&data.X_test};
    points.insert(points.end(), also_predict.begin(), also_predict.end());
    out.model = method.fit_for_points(data.train, params, rng, points);
  } else {
    out.model = method.fit(data.train, params, rng);
  }
  const auto t1 = clock::now();
  const double cpu1 = cpu_seconds(cpu_clock), elsewhere = pieces_cpu_seconds_elsewhere() - elsewhere0;
  std::unique_ptr<Predictive> predictive = out.model->predict(data.X_test);
  const auto t2 = clock::now();
  out.fit_seconds = std::chrono::duration<double>(t1 - t0).count();
  out.predict_seconds = std::chrono::duration<double>(t2 - t1).count();
  // With one thread the fit's pieces run elsewhere (run_pieces) are not on this thread's clock.
  const FitReport& report = out.model->report();
  out.fit_cpu_seconds = cpu1 - cpu0 + (threads > 1 ? 0.0 : elsewhere) + report.cpu_seconds_in_children;

  Evaluation& e = out.evaluation;
  e.step = 0;
  e.n_train = data.train.X.rows();
  if (data.X_test.rows() > 0) {
    Eigen::VectorXd y_eval;
    if (original_scale) {
      predictive = std::make_unique<AffinePredictive>(std::move(predictive), data.norm.y_mean, data.norm.y_scale);
      y_eval = data.y_test;
    } else {
      y_eval = data.norm.transform_targets(data.y_test);
    }
    e.points = score_points(*predictive, y_eval);
    e.metrics = split_metrics(e.points);
    e.test_rows.assign(data.test_rows.begin(), data.test_rows.end());
    out.non_finite = count_non_finite(e.points);
  }
  // figure experiments have no test points: the timing still counts
  e.metrics["fit_seconds"] = out.fit_seconds + out.predict_seconds;
  return out;
}

}  // namespace bnn::exp
