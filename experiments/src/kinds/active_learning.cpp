#include "experiments/src/kinds/active_learning.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "experiments/src/kinds/kinds.hpp"
#include "experiments/src/plot/svg_plot.hpp"
#include "experiments/src/report/active_learning_report.hpp"
#include "experiments/src/report/comparison_figure.hpp"
#include "experiments/src/report/report_context.hpp"
#include "experiments/src/run/runner.hpp"
#include "methods/registry.hpp"

namespace bnn::exp {
namespace {

// The chosen pool row and the predictive variance that chose it (original units where the
// metrics are), for the rows of `pool` not yet added.
struct Choice {
  Eigen::Index row = 0;
  double variance = 0.0;
};

// `pool`: the remaining rows' inputs as the model sees them.
Choice choose(const std::string& selection, const Model& model, const JobData& data, const Eigen::MatrixXd& pool,
              const std::vector<Eigen::Index>& remaining, bool original_scale, Rng& rng) {
  const double scale2 = original_scale ? data.norm.y_scale * data.norm.y_scale : 1.0;
  Eigen::VectorXd variances;
  if (selection == "variance") variances = model.predictive_variance(pool);  // one batched call
  const std::size_t at = select_next(
      selection, remaining.size(), [&](std::size_t i) { return variances[static_cast<Eigen::Index>(i)]; }, rng);
  const auto row = static_cast<Eigen::Index>(at);
  const double variance =
      selection == "variance" ? variances[row] : model.predictive_variance(pool.middleRows(row, 1))[0];
  return {remaining[at], variance * scale2};
}

}  // namespace

std::vector<Eigen::Index> pool_rows(Eigen::Index rows, const data::Split& split) {
  std::vector<char> used(static_cast<std::size_t>(rows), 0);
  for (Eigen::Index r : split.train) used[static_cast<std::size_t>(r)] = 1;
  for (Eigen::Index r : split.test) used[static_cast<std::size_t>(r)] = 1;
  std::vector<Eigen::Index> pool;
  for (Eigen::Index r = 0; r < rows; ++r)
    if (!used[static_cast<std::size_t>(r)]) pool.push_back(r);
  return pool;
}

std::size_t select_next(const std::string& selection, std::size_t candidates,
                        const std::function<double(std::size_t)>& variance, Rng& rng) {
  if (candidates == 0) throw std::invalid_argument("the pool is empty: no point left to add");
  if (selection == "random") return static_cast<std::size_t>(uniform_index(rng, candidates));
  if (selection != "variance") throw std::invalid_argument("unknown selection '" + selection + "'");
  std::size_t best = 0;
  double best_variance = variance(0);
  for (std::size_t i = 1; i < candidates; ++i) {
    const double v = variance(i);
    if (std::isnan(best_variance) || v > best_variance) {
      best = i;
      best_variance = v;
    }
  }
  if (!std::isfinite(best_variance)) throw std::runtime_error("no finite predictive variance in the pool");
  return best;
}

JobRecord run_active_learning(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads,
                              const JobRecord* resume, const std::function<void(const JobRecord&)>& checkpoint) {
  JobRecord rec = new_job_record(spec, job);
  const bool original_scale = spec.scale == "original";
  fail_on_exception(rec, [&] {
    const int additions = spec.active_learning->additions;
    const PreparedDataset& pd = plan.datasets.at(job.dataset);
    const data::Split& split = pd.splits.at(static_cast<std::size_t>(job.key.split));
    const std::vector<Eigen::Index> pool = pool_rows(pd.data.X.rows(), split);
    if (pool.size() < static_cast<std::size_t>(additions))
      throw std::invalid_argument(pd.data.name + ": a pool of " + std::to_string(pool.size()) + " rows for " +
                                  std::to_string(additions) + " additions");
    std::vector<Eigen::Index> added;
    int first = 0;
    if (resume && resume->status == "partial") {  // continue after the stored evaluations
      rec = *resume;
      rec.code_version = code_version();
      rec.host = job_host();
      first = static_cast<int>(rec.evaluations.size());
      for (const Evaluation& e : rec.evaluations) added.push_back(static_cast<Eigen::Index>(e.metrics.at("added_row")));
    }
    const MethodEntry& method = find_method(job.method->method);
    for (int step = first; step <= additions; ++step) {
      std::vector<Eigen::Index> train = split.train;
      train.insert(train.end(), added.begin(), added.end());
      const JobData data = prepare_job_data(
          pd, train, split.test,
          pd.data.origin + " (split " + std::to_string(job.key.split) + ", step " + std::to_string(step) + ")");
      std::vector<Eigen::Index> remaining;  // the pool's rows not yet added, and their inputs normalized
      Eigen::MatrixXd pool_inputs;
      if (step < additions) {
        std::vector<Eigen::Index> taken = added;
        std::sort(taken.begin(), taken.end());
        std::set_difference(pool.begin(), pool.end(), taken.begin(), taken.end(), std::back_inserter(remaining));
        pool_inputs = data.norm.transform_inputs(data::select_rows(pd.data.X, remaining));
      }
      // Each step's own streams: a resumed job draws what an uninterrupted one does.
      FitAndScore fitted = fit_and_score(
          method, job.params, data, derive_seed(job.fit_seed, static_cast<std::uint64_t>(step)), original_scale,
          threads, step < additions ? std::vector{&std::as_const(pool_inputs)} : std::vector<const Eigen::MatrixXd*>{});
      add_fit(rec, fitted, pd.warnings);
      rec.n_train = data.train.X.rows();
      rec.n_test = data.X_test.rows();
      rec.n_features = data.train.X.cols();
      Evaluation e = std::move(fitted.evaluation);
      e.step = step;
      if (fitted.non_finite > 0) {
        rec.evaluations.push_back(std::move(e));
        fail_non_finite(rec, fitted.non_finite);
        break;
      }
      if (step < additions) {
        Rng rng(derive_seed(derive_seed(job.seed, "selection"), static_cast<std::uint64_t>(step)));
        const auto t0 = std::chrono::steady_clock::now();
        const Choice next =
            choose(job.method->selection, *fitted.model, data, pool_inputs, remaining, original_scale, rng);
        rec.predict_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        e.metrics["added_row"] = static_cast<double>(next.row);
        e.metrics["added_variance"] = next.variance;
        added.push_back(next.row);  // the training rows: the split's, then the added ones in the order added
      }
      rec.evaluations.push_back(std::move(e));
      rec.status = step == additions ? "ok" : "partial";
      rec.finished_at = utc_now();
      if (checkpoint && step < additions) checkpoint(rec);
    }
  });
  rec.finished_at = utc_now();
  return rec;
}

namespace {

class ActiveLearningKind final : public ExperimentKind {
 public:
  std::string name() const override { return "active-learning"; }
  std::string identity(const ExperimentSpec& spec, const MethodConfig& method) const override {
    return "|active_learning=additions:" + std::to_string(spec.active_learning->additions) +
           "|selection=" + method.selection;
  }
  // Choosing by variance and at random from the same split start from the same fits.
  std::uint64_t fit_seed(const ExperimentSpec& spec, const std::string& dataset, const std::string& identity, int split,
                         std::uint64_t /*job_seed*/) const override {
    const std::string fits = identity.substr(0, identity.rfind("|selection="));
    return derive_seed(derive_seed(derive_seed(spec.seed, dataset), fits), static_cast<std::uint64_t>(split));
  }
  JobRecord run(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads, const JobRecord* resume,
                const std::function<void(const JobRecord&)>& checkpoint) const override {
    return run_active_learning(spec, plan, job, threads, resume, checkpoint);
  }
  bool resumes_part_way() const override { return true; }
  std::string figure_svg(ReportContext& context) const override {
    return plot::render_svg(comparison_figure(context.report()));
  }
  // A job has a row per step and metric: its per-job files are compressed.
  std::string published_name(const std::string& file) const override {
    return file == "splits.csv" || file == "jobs.csv" ? file + ".gz" : file;
  }
  std::string sections(const ExperimentSpec& spec, const std::vector<std::string>& datasets,
                       const std::vector<const JobRecord*>& finished) const override {
    std::vector<JobRecord> shown;
    for (const JobRecord* j : finished) shown.push_back(*j);
    return paired_markdown(spec, datasets, shown);
  }
  void add_files(ReportContext& context, std::vector<std::pair<std::string, std::string>>& files) const override {
    const ReportSource& s = context.source();
    const std::vector<JobRecord>& shown = context.shown();
    if (shown.empty()) return;
    files.emplace_back("learning_curves.csv", learning_curves_csv(s.spec, s.registry, shown));
    files.emplace_back("learning_curves.svg", plot::render_svg(learning_curve_figure(s.spec, s.registry, shown)));
  }
};

}  // namespace

const ExperimentKind& active_learning_kind() {
  static const ActiveLearningKind kind;
  return kind;
}

}  // namespace bnn::exp
