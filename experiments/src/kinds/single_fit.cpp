#include "experiments/src/kinds/single_fit.hpp"

#include <cmath>
#include <utility>

#include "experiments/src/artifacts/produce.hpp"
#include "experiments/src/run/grid.hpp"
#include "experiments/src/run/runner.hpp"
#include "methods/registry.hpp"

namespace bnn::exp {
namespace {

// Predictions at the grid's points (`normalized`: their inputs as the model sees them), in
// original units whatever the metrics' scale.
GridPredictions grid_predictions(GridPoints points, const Eigen::MatrixXd& normalized, const Model& model,
                                 const JobData& data, long& non_finite) {
  GridPredictions g;
  g.points = std::move(points);
  const AffinePredictive on_grid(model.predict(normalized), data.norm.y_mean, data.norm.y_scale);
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

JobRecord run_single_fit(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads,
                         const GridSpec* grid) {
  JobRecord rec = new_job_record(spec, job);
  fail_on_exception(rec, [&] {
    const PreparedDataset& pd = plan.datasets.at(job.dataset);
    const JobData data = prepare_job_data(plan, job);
    rec.n_train = data.train.X.rows();
    rec.n_test = data.X_test.rows();
    rec.n_features = data.train.X.cols();
    GridPoints points;
    Eigen::MatrixXd grid_inputs;  // normalized
    std::vector<const Eigen::MatrixXd*> also_predict;
    if (grid) {
      points = make_grid(*grid, pd.data.X.cols());
      grid_inputs = data.norm.transform_inputs(points.X);
      also_predict.push_back(&grid_inputs);
    }
    FitAndScore fitted = fit_and_score(find_method(job.method->method), job.params, data, job.seed,
                                       spec.scale == "original", threads, also_predict);
    add_fit(rec, fitted, pd.warnings);
    long non_finite = fitted.non_finite;
    if (grid) rec.grid = grid_predictions(std::move(points), grid_inputs, *fitted.model, data, non_finite);
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

}  // namespace bnn::exp
