// Tests of the experiment layer: metrics, specs, plans and seeds, the runner, the results
// store, reference numbers and report aggregation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>
#include <set>

#include "datasets/src/data_error.hpp"
#include "datasets/src/dataset.hpp"
#include "datasets/src/registry.hpp"
#include "experiments/src/artifacts/traced_points.hpp"
#include "experiments/src/plan/plan.hpp"
#include "experiments/src/report/artifact_figures.hpp"
#include "experiments/src/report/reference.hpp"
#include "experiments/src/report/report.hpp"
#include "experiments/src/run/grid.hpp"
#include "experiments/src/run/progress.hpp"
#include "experiments/src/run/runner.hpp"
#include "experiments/src/spec/spec.hpp"
#include "experiments/src/store/store.hpp"
#include "methods/core/mlp.hpp"
#include "methods/core/rng.hpp"
#include "methods/hmc/hmc.hpp"
#include "methods/linear/linear.hpp"
#include "methods/registry.hpp"
#include "tests/support/data_mirror.hpp"
#include "tests/support/errors.hpp"

namespace fs = std::filesystem;
using namespace bnn;
using namespace bnn::exp;

namespace {

std::string scratch(const std::string& name) { return test::scratch_dir("experiments", name).string(); }

std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

// A small linear problem with three random splits; split 2's training target is constant,
// so that job must fail while the others succeed.
Plan small_plan(const ExperimentSpec& spec) {
  Plan plan;
  PreparedDataset pd;
  pd.data.name = "toy";
  pd.data.origin = "toy";
  Rng rng(11);
  const Eigen::Index n = 60;
  pd.data.X.resize(n, 2);
  pd.data.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    pd.data.X(i, 0) = standard_normal(rng);
    pd.data.X(i, 1) = standard_normal(rng);
    pd.data.y[i] = i < 20 ? 5.0 : 1.0 + 2.0 * pd.data.X(i, 0) + 0.3 * standard_normal(rng);
  }
  for (int s = 0; s < 3; ++s) {
    data::Split split;
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool constant_training = s == 2;
      const bool in_train = constant_training ? i < 20 : (i + s) % 4 != 0;
      (in_train ? split.train : split.test).push_back(i);
    }
    pd.splits.push_back(split);
  }
  plan.datasets.push_back(pd);
  for (int s = 0; s < 3; ++s) {
    Job job;
    job.key = {spec.name, "toy", spec.methods[0].label, "cafe", s};
    job.method = &spec.methods[0];
    job.config = "linear";
    job.dataset = 0;
    job.seed = job_seed(spec, job.key);
    plan.jobs.push_back(job);
  }
  return plan;
}

ExperimentSpec small_spec() {
  ExperimentSpec spec;
  spec.name = "unit";
  spec.scale = "original";
  MethodConfig m;
  m.label = "linear";
  m.method = "linear";
  spec.methods.push_back(m);
  return spec;
}

}  // namespace

TEST_CASE("percentile follows MATLAB's prctile", "[metrics]") {
  const std::vector<double> v = {4, 1, 3, 2};
  CHECK(percentile(v, 50) == Approx(2.5));
  CHECK(percentile(v, 25) == Approx(1.5));  // rank 0.25*4+0.5 = 1.5
  CHECK(percentile(v, 10) == Approx(1.0));  // below the first midpoint: clamped
  CHECK(percentile(v, 99) == Approx(4.0));
  std::vector<double> ten(10);
  std::iota(ten.begin(), ten.end(), 1.0);
  CHECK(percentile(ten, 1) == Approx(1.0));
  CHECK(percentile(ten, 99) == Approx(10.0));
  CHECK(percentile(ten, 33) == Approx(3.8));  // rank 3.8 -> 3 + 0.8
}

TEST_CASE("mean and standard error over splits", "[metrics]") {
  const Summary s = mean_and_se({1.0, 2.0, 3.0, 6.0});
  CHECK(s.value == Approx(3.0));
  CHECK(s.se == Approx(std::sqrt(14.0 / 3.0) / 2.0));
  CHECK(std::isnan(mean_and_se({2.0}).se));
}

TEST_CASE("count_non_finite counts points with a non-finite log density or mean", "[metrics]") {
  PointScores scores;
  scores.log_density = {-1.0, std::numeric_limits<double>::quiet_NaN(), -2.0, -std::numeric_limits<double>::infinity()};
  scores.mean = {0.5, 0.5, std::numeric_limits<double>::infinity(), 0.5};
  CHECK(count_non_finite(scores) == 3);
  scores.log_density = {-1.0, -1.0, -2.0, -3.0};
  scores.mean = {0.5, 0.5, 0.5, 0.5};
  CHECK(count_non_finite(scores) == 0);
}

TEST_CASE("split metrics of a Gaussian predictive", "[metrics]") {
  const GaussianPredictive p(Eigen::Vector2d(0.0, 1.0), Eigen::Vector2d(1.0, 4.0));
  const Eigen::Vector2d y(1.0, -1.0);
  const PointScores scores = score_points(p, y);
  const auto m = split_metrics(scores);
  CHECK(m.at("rmse") == Approx(std::sqrt((1.0 + 4.0) / 2.0)));
  const double lpd0 = -0.5 * std::log(2 * M_PI) - 0.5;
  const double lpd1 = -0.5 * std::log(2 * M_PI * 4.0) - 0.5;
  CHECK(m.at("test_ll") == Approx((lpd0 + lpd1) / 2));
  CHECK(scores.covered95[0] == 1.0);  // |z| = 1
  CHECK(scores.covered95[1] == 1.0);  // |z| = 1
  CHECK(m.at("coverage95") == 1.0);
}

TEST_CASE("scores of a diverged fit are NaN, not an exception", "[metrics]") {
  const double inf = std::numeric_limits<double>::infinity();
  const GaussianPredictive p(Eigen::Vector2d(-inf, 0.0), Eigen::Vector2d(1.0, 1.0));
  const PointScores scores = score_points(p, Eigen::Vector2d(0.0, 0.5));
  CHECK(std::isnan(scores.log_density[0]));
  CHECK(std::isnan(scores.crps[0]));
  CHECK(std::isnan(scores.covered95[0]));
  CHECK(scores.log_density[1] == Approx(-0.5 * std::log(2 * M_PI) - 0.125));
  CHECK(scores.covered95[1] == 1.0);
}

TEST_CASE("95% coverage of a calibrated predictive is near 0.95", "[metrics]") {
  Rng rng(5);
  const Eigen::Index n = 20000;
  Eigen::VectorXd mean(n), var(n), y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    mean[i] = standard_normal(rng);
    var[i] = 0.5 + uniform01(rng);
    y[i] = mean[i] + std::sqrt(var[i]) * standard_normal(rng);
  }
  const auto m = split_metrics(score_points(GaussianPredictive(mean, var), y));
  CHECK(std::abs(m.at("coverage95") - 0.95) < 4 * std::sqrt(0.95 * 0.05 / n));
}

TEST_CASE("pooled statistics in report aggregation", "[report]") {
  JobRecord a, b;
  Evaluation ea, eb;
  ea.points.log_density = {-1.0, -2.0};
  ea.points.squared_error = {1.0, 3.0};
  ea.metrics = {{"lpd_mean", -1.5}, {"se_mean", 2.0}, {"rmse", std::sqrt(2.0)}};
  eb.points.log_density = {-4.0, -1.0, -1.0, -2.0};
  eb.points.squared_error = {0.0, 1.0, 1.0, 2.0};
  eb.metrics = {{"lpd_mean", -2.0}, {"se_mean", 1.0}, {"rmse", 1.0}};
  a.evaluations = {ea};
  b.evaluations = {eb};
  const auto agg = aggregate_metrics({&a, &b});
  CHECK(agg.at("lpd_mean").value == Approx(-11.0 / 6.0));  // pooled over 6 points
  CHECK(agg.at("se_mean").value == Approx(8.0 / 6.0));
  CHECK(agg.at("rmse").value == Approx((std::sqrt(2.0) + 1.0) / 2.0));  // per split, then mean
  CHECK(agg.at("lpd_mean").se == Approx(0.25));                         // sd(-1.5, -2) / sqrt 2
  CHECK(agg.at("se_p99").value == Approx(3.0));
  CHECK(agg.at("lpd_p01").value == Approx(-4.0));
  // A job whose points were left behind (merge --without-points): nothing is pooled, the
  // means are per split and the pooled-only statistics are absent.
  JobRecord slim = b;
  slim.evaluations[0].points = {};
  const auto partial = aggregate_metrics({&a, &slim});
  CHECK(partial.at("lpd_mean").value == Approx(-1.75));
  CHECK(partial.at("se_mean").value == Approx(1.5));
  CHECK(partial.count("lpd_std") == 0);
  CHECK(partial.count("se_p99") == 0);
}

TEST_CASE("every shipped experiment spec parses and names known data sets", "[spec]") {
  const auto& registry = test::shipped_registry();
  const auto files = experiment_files();
  REQUIRE(files.size() >= 5);
  for (const auto& f : files) {
    INFO(f);
    const ExperimentSpec spec = load_experiment(f);
    CHECK(!spec.methods.empty());
    for (const auto& d : spec.datasets) CHECK_NOTHROW(registry.find(d.name));
    for (const auto& metric : spec.report.metrics) CHECK(find_metric(metric) != nullptr);
  }
  const ExperimentSpec epnn = load_experiment(find_experiment_file("epnn-table1"));
  CHECK(epnn.scale == "normalized");
  const auto& kin =
      *std::find_if(epnn.datasets.begin(), epnn.datasets.end(), [](const auto& d) { return d.name == "kin40k"; });
  CHECK(kin.irrelevant_inputs == 92);
  CHECK(epnn.protocol_for(kin).n_train == 5000);
  CHECK(epnn.methods[0].options_for("kin40k", {}).at("hidden_units") == "30");
  CHECK(epnn.methods[0].options_for("boston", {"housing"}).at("hidden_units") == "10");
  const auto& crime =
      *std::find_if(epnn.datasets.begin(), epnn.datasets.end(), [](const auto& d) { return d.name == "crime"; });
  CHECK(crime.target_transform == data::TargetTransform::sqrt);
  CHECK(kin.target_transform == data::TargetTransform::none);
  // The PBP experiments standardize naval's constant columns as the authors' numpy code did.
  for (const char* name : {"pbp-table1", "pbp-layers"}) {
    const ExperimentSpec pbp = load_experiment(find_experiment_file(name));
    for (const auto& d : pbp.datasets)
      CHECK(d.constant_inputs == (d.name == "naval" ? data::ConstantInputs::numpy : data::ConstantInputs::zero));
  }
}

TEST_CASE("malformed specs are errors naming file and line", "[spec]") {
  const std::string dir = scratch("specs");
  const auto expect_line = [&](const std::string& text, long line, const std::string& fragment) {
    const std::string path = write(dir + "/s.toml", text);
    try {
      load_experiment(path);
      FAIL("no error for: " << text);
    } catch (const data::DataError& e) {
      CHECK(e.line() == line);
      CHECK_THAT(std::string(e.what()), Catch::Contains(fragment) && Catch::Contains("s.toml"));
    }
  };
  expect_line(
      "name = \"x\"\ndatasets = [\"boston\"]\nprotocol = { kind = \"kfold\", folds = 1 }\n[[method]]\nmethod = \"linear\"\n",
      3, "folds is 1, but must be >= 2");
  expect_line(
      "name = \"x\"\ndatasets = [\"boston\"]\nprotocol = { kind = \"published\" }\n[[method]]\nmethod = \"linear\"\n[[method]]\nmethod = \"linear\"\n",
      6, "used twice");
  // per_dataset settings of a data set the spec does not use are checked all the same
  expect_line(
      "name = \"x\"\ndatasets = [\"boston\"]\nprotocol = { kind = \"published\" }\n[per_dataset.yacht]\nirrelevant_inputs = -3\n[[method]]\nmethod = \"linear\"\n",
      5, "'irrelevant_inputs' must be an integer from 0 to 10000");
  expect_line("name = \"x\"\nscale = \"log\"\n", 2, "\"original\" or \"normalized\"");
  expect_line(
      "name = \"x\"\ndatasets = [\"boston\"]\nprotocol = { kind = \"published\" }\n[per_dataset.boston]\ntarget_transform = \"log\"\n[[method]]\nmethod = \"linear\"\n",
      5, "'log' is not one of none, sqrt, log1p");
  expect_line(
      "name = \"x\"\ndatasets = [\"boston\"]\nprotocol = { kind = \"published\" }\n[per_dataset.boston]\n\nconstant_inputs = \"ones\"\n[[method]]\nmethod = \"linear\"\n",
      6, "constant_inputs 'ones' is not one of: zero, numpy");
  expect_line("name = = 3\n", 1, "");
  // Unknown keys are typos, not defaults.
  const std::string body =
      "datasets = [\"boston\"]\nprotocol = { kind = \"published\" }\n[[method]]\nmethod = \"linear\"\n";
  expect_line("name = \"x\"\nsede = 2\n" + body, 2, "unknown key 'sede' in the experiment");
  expect_line("name = \"x\"\n" + body + "opts = { a = 1 }\n", 6, "unknown key 'opts' in a [[method]]");
  expect_line("name = \"x\"\ndatasets = [\"boston\"]\nprotocol = { kind = \"published\", folds = 3 }\n", 3,
              "unknown key 'folds' in a published protocol");
  expect_line("name = \"x\"\n" + body + "[per_dataset.boston]\nconstant_inputz = \"numpy\"\n", 7,
              "unknown key 'constant_inputz' in per_dataset.boston");
  expect_line("name = \"x\"\n" + body + "[report]\nmetrics = [\"rmse\", \"nosuch\"]\n", 7, "unknown metric 'nosuch'");
  expect_line("name = \"x\"\n" + body + "[report]\nmetrics = []\n", 7, "non-empty array");
  expect_line("name = \"x\"\n" + body + "[reference]\nfile = \"a.csv\"\nvalue = { rmse = \"r\" }\n", 8,
              "unknown key 'value' in [reference]");
  expect_line(
      "name = \"x\"\n" + body + "[[reference]]\nfile = \"a.csv\"\nmethods = [\"bp\"]\nvalues = { rmse = \"r\" }\n", 8,
      "reference.methods names 'bp', which is no [[method]] label of this spec");
  expect_line("name = \"x\"\n" + body + "datasets = []\n", 6, "'datasets' must be a non-empty array");
}

TEST_CASE("specs are checked against the registry: data sets, dataset_options, options", "[spec]") {
  const std::string dir = scratch("specs-registry");
  const data::DatasetRegistry& registry = test::shipped_registry();
  const auto plan_error = [&](const std::string& text) {
    const std::string path = write(dir + "/s.toml", text);
    const ExperimentSpec spec = load_experiment(path);
    return test::invalid_argument_message([&] { make_plan(spec, registry, {}); });
  };
  const std::string head = "name = \"x\"\nprotocol = { kind = \"kfold\", folds = 2 }\n";
  CHECK_THAT(plan_error(head + "datasets = [\"boston\", \"housing\"]\n[[method]]\nmethod = \"linear\"\n"),
             Catch::Contains("s.toml: 'datasets' names boston twice (as 'housing')"));
  CHECK_THAT(plan_error(head + "datasets = [\"bostn\"]\n[[method]]\nmethod = \"linear\"\n"),
             Catch::Contains("s.toml: 'datasets': unknown data set 'bostn'"));
  CHECK_THAT(plan_error(head + "datasets = [\"boston\"]\n[[method]]\nmethod = \"linear\"\n"
                               "dataset_options = { bostn = { prior_precision = 2 } }\n"),
             Catch::Contains("s.toml, line 6: [[method]] linear: dataset_options: unknown data set 'bostn'"));
  CHECK_THAT(plan_error(head + "datasets = [\"boston\"]\n[[method]]\nmethod = \"linear\"\nlabel = \"lin\"\n"
                               "dataset_options = { housing = { prior_precision = -2 } }\n"),
             Catch::Contains("s.toml, line 7: [[method]] lin on boston: linear: prior_precision is -2"));
  // A data set the registry knows but the spec does not use may keep its dataset_options (a copied spec).
  CHECK(plan_error(head + "datasets = [\"epnn-case1\"]\n[[method]]\nmethod = \"linear\"\n"
                          "dataset_options = { protein = { prior_precision = 2 } }\n") ==
        "<no std::invalid_argument thrown>");
}

TEST_CASE("settings given with --set override the spec", "[spec]") {
  ExperimentSpec spec = load_experiment(find_experiment_file("quickstart"));
  const auto has = [](const std::string& method, const std::string& option) {
    for (const auto& o : find_method(method).options)
      if (o.name == option) return true;
    return false;
  };
  apply_settings(spec, {"seed=9", "linear.prior_precision=3", "noise_shape=2"}, has);
  CHECK(spec.seed == 9);
  CHECK(spec.methods[0].options.at("prior_precision") == "3");
  CHECK(spec.methods[1].options.count("prior_precision") == 0);
  CHECK(spec.methods[0].options.at("noise_shape") == "2");
  CHECK(spec.methods[1].options.at("noise_shape") == "2");
  CHECK_THROWS_WITH(apply_settings(spec, {"epochs=3"}, has),
                    Catch::Contains("no method of quickstart has an option 'epochs'"));
  CHECK_THROWS_WITH(apply_settings(spec, {"nope.x=3"}, has), Catch::Contains("no method labelled 'nope'"));
  CHECK_THROWS_WITH(apply_settings(spec, {"seed=-1"}, has), Catch::Contains("non-negative integer"));
  CHECK_THROWS_WITH(apply_settings(spec, {"novalue"}, has), Catch::Contains("KEY=VALUE"));

  // One data set's option of one method (after the method-wide one, which clears the spec's
  // per-data-set values): MC dropout's documented 10x epochs, protein's being half the others'.
  ExperimentSpec pbp = load_experiment(find_experiment_file("pbp-table1"));
  apply_settings(pbp, {"mc-dropout.epochs=400", "mc-dropout.protein.epochs=200"}, has);
  const MethodConfig& dropout =
      *std::find_if(pbp.methods.begin(), pbp.methods.end(), [](const auto& m) { return m.label == "mc-dropout"; });
  CHECK(dropout.options.at("epochs") == "400");
  CHECK(dropout.dataset_options.at("protein").at("epochs") == "200");
  CHECK(dropout.dataset_options.at("protein").count("taus") == 1);
  CHECK(dropout.dataset_options.at("boston").count("epochs") == 0);
  CHECK_THROWS_WITH(apply_settings(pbp, {"mc-dropout.prot.epochs=2"}, has),
                    Catch::Contains("--set mc-dropout.prot.epochs=2: pbp-table1 has no data set 'prot'"));

  // A data set's target transform, e.g. to report epnn-table1's raw crime target.
  ExperimentSpec epnn = load_experiment(find_experiment_file("epnn-table1"));
  const auto crime = [&] {
    return std::find_if(epnn.datasets.begin(), epnn.datasets.end(), [](const auto& d) { return d.name == "crime"; })
        ->target_transform;
  };
  REQUIRE(crime() == data::TargetTransform::sqrt);
  apply_settings(epnn, {"per_dataset.crime.target_transform=none"}, has);
  CHECK(crime() == data::TargetTransform::none);
  CHECK_THROWS_WITH(apply_settings(epnn, {"per_dataset.yacht.target_transform=sqrt"}, has),
                    Catch::Contains("epnn-table1 has no data set 'yacht'; its data sets: boston"));
  CHECK_THROWS_WITH(apply_settings(epnn, {"per_dataset.crime.irrelevant_inputs=3"}, has),
                    Catch::Contains("only target_transform and constant_inputs can be set"));
  apply_settings(epnn, {"per_dataset.crime.constant_inputs=numpy"}, has);
  CHECK(std::find_if(epnn.datasets.begin(), epnn.datasets.end(), [](const auto& d) {
          return d.name == "crime";
        })->constant_inputs == data::ConstantInputs::numpy);
  CHECK_THROWS_WITH(apply_settings(epnn, {"per_dataset.crime.constant_inputs=one"}, has),
                    Catch::Contains("constant_inputs 'one' is not one of: zero, numpy"));
  CHECK_THROWS_WITH(apply_settings(epnn, {"per_dataset.crime.target_transform=cube"}, has),
                    Catch::Contains("'cube' is not one of none, sqrt, log1p"));
}

TEST_CASE("config identity and seeds", "[plan]") {
  const auto& registry = test::shipped_registry();
  ExperimentSpec spec = load_experiment(find_experiment_file("quickstart"));
  const auto& ds = registry.find("pbp-cubic");
  const ConfigIdentity a = config_identity(spec, spec.datasets[0], ds, spec.methods[0]);
  const ConfigIdentity b = config_identity(spec, spec.datasets[0], ds, spec.methods[1]);
  CHECK(a.hash != b.hash);  // options differ
  CHECK(a.hash.size() == 16);
  spec.seed = 2;
  CHECK(config_identity(spec, spec.datasets[0], ds, spec.methods[0]).hash != a.hash);
  // Job seeds depend on data set, method and split; split seeds only on the data set.
  const JobKey k1{"e", "boston", "pbp", "h", 0}, k2{"e", "boston", "pbp", "h", 1}, k3{"e", "boston", "vi", "h", 0};
  CHECK(job_seed(spec, k1) != job_seed(spec, k2));
  CHECK(job_seed(spec, k1) != job_seed(spec, k3));
  CHECK(split_seed(spec, "boston") != split_seed(spec, "yacht"));
  CHECK(parse_split_list("0,3-5,3") == std::vector<int>{0, 3, 4, 5});
  CHECK_THROWS_AS(parse_split_list("2-1"), std::invalid_argument);
  CHECK_THROWS_AS(parse_split_list("a"), std::invalid_argument);
}

TEST_CASE("plan of quickstart: same splits for every method, shards partition the jobs", "[plan]") {
  const auto& registry = test::shipped_registry();
  const ExperimentSpec spec = load_experiment(find_experiment_file("quickstart"));
  const Plan plan = make_plan(spec, registry, PlanOptions{});
  CHECK(plan.datasets.size() == 4);
  CHECK(plan.jobs.size() == 4 * 2 * 5);
  std::set<JobKey> all;
  std::size_t total = 0;
  for (int k = 1; k <= 3; ++k) {
    const auto share = shard_jobs(plan.jobs, k, 3);
    total += share.size();
    for (const auto& j : share) CHECK(all.insert(j.key).second);
  }
  CHECK(total == plan.jobs.size());
  CHECK_THROWS_AS(shard_jobs(plan.jobs, 0, 3), std::invalid_argument);
  PlanOptions only;
  only.only_methods = {"linear"};
  only.only_splits = {1};
  CHECK(make_plan(spec, registry, only).jobs.size() == 4);
  only.only_methods = {"nope"};
  CHECK_THROWS_WITH(make_plan(spec, registry, only), Catch::Contains("has no method 'nope'"));

  // A method listing its data sets runs on those only; a name the registry lacks is an error.
  ExperimentSpec some = spec;
  some.methods[0].datasets = {"pbp-cubic", "boston"};  // boston: known, not used here
  const Plan fewer = make_plan(some, registry, PlanOptions{});
  CHECK(fewer.jobs.size() == (1 + 4) * 5);
  for (const auto& job : fewer.jobs)
    if (job.key.method_label == some.methods[0].label) CHECK(job.key.dataset == "pbp-cubic");
  some.methods[0].datasets = {"bostn"};
  CHECK_THROWS_WITH(make_plan(some, registry, PlanOptions{}),
                    Catch::Contains("datasets: ") && Catch::Contains("bostn"));
}

TEST_CASE("plan: a target transform is applied on loading and extends the config identity", "[plan]") {
  const auto& registry = test::shipped_registry();
  ExperimentSpec spec = load_experiment(find_experiment_file("quickstart"));
  PlanOptions only;
  only.only_datasets = {"epnn-case1"};
  only.only_methods = {"linear"};
  const Plan raw = make_plan(spec, registry, only);
  const ConfigIdentity raw_id = config_identity(spec, spec.datasets[1], registry.find("epnn-case1"), spec.methods[0]);
  CHECK(raw_id.canonical.find("target_transform") == std::string::npos);  // stored hashes stay valid

  spec.datasets[1].target_transform = data::TargetTransform::log1p;
  const ConfigIdentity log_id = config_identity(spec, spec.datasets[1], registry.find("epnn-case1"), spec.methods[0]);
  CHECK(log_id.hash != raw_id.hash);
  CHECK_THAT(log_id.canonical, Catch::EndsWith("|target_transform=log1p"));
  const Eigen::VectorXd& y = raw.datasets[0].data.y;
  REQUIRE(y.minCoeff() > -1.0);
  const Plan logged = make_plan(spec, registry, only);
  CHECK(logged.datasets[0].data.y == y.array().log1p().matrix());
  CHECK(logged.jobs[0].key.config_hash == log_id.hash);
  // So does a non-default standardization of constant inputs (and only that).
  spec.datasets[1].target_transform = data::TargetTransform::none;
  spec.datasets[1].constant_inputs = data::ConstantInputs::numpy;
  const ConfigIdentity numpy_id = config_identity(spec, spec.datasets[1], registry.find("epnn-case1"), spec.methods[0]);
  CHECK_THAT(numpy_id.canonical, Catch::EndsWith("|constant_inputs=numpy"));
  CHECK(numpy_id.hash != raw_id.hash);
  spec.datasets[1].constant_inputs = data::ConstantInputs::zero;
  CHECK(config_identity(spec, spec.datasets[1], registry.find("epnn-case1"), spec.methods[0]).hash == raw_id.hash);
  // A target outside the transform's domain stops the plan with the data set's name.
  spec.datasets[1].target_transform = data::TargetTransform::sqrt;
  REQUIRE(y.minCoeff() < 0.0);
  CHECK_THROWS_WITH(make_plan(spec, registry, only), Catch::Contains("epnn-case1") && Catch::Contains("sqrt(y)"));
}

TEST_CASE("runner: failures are recorded per job, results do not depend on threads", "[runner]") {
  const ExperimentSpec spec = small_spec();
  const Plan plan = small_plan(spec);
  std::map<int, std::map<std::string, double>> by_threads[2];
  for (int threads : {1, 2}) {
    ResultsStore store(scratch("runner" + std::to_string(threads)));
    RunOptions options;
    options.threads = threads;
    options.quiet = true;
    const RunSummary summary = run_plan(spec, plan, store, options);
    CHECK(summary.ran == 3);
    CHECK(summary.failed == 1);
    const auto jobs = store.jobs(spec.name, true);
    REQUIRE(jobs.size() == 3);
    for (const auto& j : jobs) {
      if (j.key.split == 2) {
        CHECK(j.status == "failed");
        CHECK_THAT(j.error, Catch::Contains("constant"));
      } else {
        CHECK(j.status == "ok");
        REQUIRE(j.evaluations.size() == 1);
        CHECK(j.evaluations[0].points.log_density.size() == static_cast<std::size_t>(j.n_test));
        auto metrics = j.evaluations[0].metrics;
        metrics.erase("fit_seconds");
        by_threads[threads - 1][j.key.split] = metrics;
        // The runner normalizes on the training part and maps predictions back.
        const auto& pd = plan.datasets[0];
        const auto& split = pd.splits[static_cast<std::size_t>(j.key.split)];
        const Eigen::MatrixXd Xtr = data::select_rows(pd.data.X, split.train);
        const Eigen::VectorXd ytr = data::select_rows(pd.data.y, split.train);
        const Eigen::RowVectorXd mx = Xtr.colwise().mean();
        const Eigen::RowVectorXd sx = ((Xtr.rowwise() - mx).array().square().colwise().mean()).sqrt();
        const double my = ytr.mean(), sy = std::sqrt((ytr.array() - my).square().mean());
        Rng unused(0);
        const auto model = linear::fit({(Xtr.rowwise() - mx).array().rowwise() / sx.array(), (ytr.array() - my) / sy},
                                       linear::Options{}, unused);
        const Eigen::MatrixXd Xte = data::select_rows(pd.data.X, split.test);
        const Eigen::VectorXd yte = data::select_rows(pd.data.y, split.test);
        const auto pred = model.predict((Xte.rowwise() - mx).array().rowwise() / sx.array());
        double sse = 0.0;
        for (Eigen::Index i = 0; i < yte.size(); ++i) sse += std::pow(yte[i] - (my + sy * pred->mean(i)), 2);
        CHECK(metrics.at("rmse") == Approx(std::sqrt(sse / static_cast<double>(yte.size()))).epsilon(1e-12));
      }
    }
    // A rerun skips the finished jobs and retries the failed one.
    const RunSummary again = run_plan(spec, plan, store, options);
    CHECK(again.already_done == 2);
    CHECK(again.ran == 1);
    // --rerun runs the finished jobs too, and their new results replace the old ones.
    // Split 2 fails whatever is stored for it: a finished result stored under its key (as if
    // an earlier code version had fitted it) stays.
    const Job& split2 =
        *std::find_if(plan.jobs.begin(), plan.jobs.end(), [](const Job& j) { return j.key.split == 2; });
    JobRecord finished_before;
    finished_before.key = split2.key;
    finished_before.method = "linear";
    finished_before.status = "ok";
    finished_before.evaluations = {Evaluation{}};
    finished_before.evaluations[0].metrics = {{"rmse", 42.0}};
    CHECK(store.record(finished_before));
    options.rerun = true;
    const RunSummary rerun = run_plan(spec, plan, store, options);
    CHECK(rerun.already_done == 0);
    CHECK(rerun.ran == 3);
    CHECK(rerun.failed == 1);
    CHECK(rerun.kept == 1);
    const auto rerun_jobs = store.jobs(spec.name, false);
    REQUIRE(rerun_jobs.size() == 3);
    const long rerun_id = store.runs(spec.name).back().run_id;
    for (const auto& j : rerun_jobs) {
      REQUIRE(j.status == "ok");
      if (j.key.split == 2) {
        CHECK(j.evaluations.at(0).metrics.at("rmse") == 42.0);
        continue;
      }
      CHECK(j.run_id == rerun_id);
      auto metrics = j.evaluations.at(0).metrics;
      metrics.erase("fit_seconds");
      CHECK(metrics == by_threads[threads - 1][j.key.split]);
    }
  }
  CHECK(by_threads[0] == by_threads[1]);  // bit-identical
}

namespace {

// Runs `jobs` small NN-MC jobs of `chains` chains on `threads` threads into a fresh store and
// returns their records (split order).
std::vector<JobRecord> run_nn_mc_jobs(std::size_t jobs, int chains, int threads) {
  ExperimentSpec spec = small_spec();
  spec.methods[0].label = "nn-mc";
  spec.methods[0].method = "nn-mc";
  spec.methods[0].options = {{"hidden_layers", "3"},  {"chains", std::to_string(chains)},
                             {"warmup", "20"},        {"samples", std::to_string(20 * chains)},
                             {"leapfrog_steps", "5"}, {"initial_optimization", "0"},
                             {"hyper_delay", "5"}};
  Plan plan = small_plan(spec);
  plan.jobs.resize(jobs);
  for (Job& job : plan.jobs) job.params = spec.methods[0].options;
  ResultsStore store(scratch("nn-mc-" + std::to_string(jobs) + "-" + std::to_string(threads)));
  RunOptions options;
  options.threads = threads;
  options.quiet = true;
  CHECK(run_plan(spec, plan, store, options).ran == static_cast<long>(jobs));
  std::vector<JobRecord> records = store.jobs(spec.name, true);
  REQUIRE(records.size() == jobs);
  for (const JobRecord& record : records) {
    INFO(record.error);
    REQUIRE(record.status == "ok");
    CHECK(record.fit_cpu_seconds > 0.0);
  }
  return records;
}

void check_same_results(const std::vector<JobRecord>& a, const std::vector<JobRecord>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t j = 0; j < a.size(); ++j) {
    CHECK(a[j].key.split == b[j].key.split);
    CHECK(a[j].diagnostics == b[j].diagnostics);
    CHECK(a[j].evaluations[0].points.log_density == b[j].evaluations[0].points.log_density);
  }
}

}  // namespace

TEST_CASE("runner: a lone job may use every thread (NN-MC chains) with the same results", "[runner]") {
  check_same_results(run_nn_mc_jobs(1, 2, 1), run_nn_mc_jobs(1, 2, 2));
}

TEST_CASE("runner: NN-MC chains taken up by idle threads give the one-thread results", "[runner]") {
  // Two jobs of four chains on two threads: when one job is done its thread runs chains of
  // the other (run_pieces).
  check_same_results(run_nn_mc_jobs(2, 4, 1), run_nn_mc_jobs(2, 4, 2));
}

TEST_CASE("chain-traces artifact: a run's NN-MC job, its draws, and its R-hat to the bit", "[runner][artifacts]") {
  ExperimentSpec spec = small_spec();
  spec.methods[0].label = "nn-mc";
  spec.methods[0].method = "nn-mc";
  spec.methods[0].options = {{"hidden_layers", "3"}, {"chains", "3"},         {"warmup", "40"},    {"samples", "120"},
                             {"thin", "2"},          {"leapfrog_steps", "5"}, {"hyper_delay", "5"}};
  spec.artifacts.push_back(ArtifactSpec{"chain-traces", {}, {}, {0}, std::nullopt});
  Plan plan = small_plan(spec);
  for (Job& j : plan.jobs) {
    j.params = spec.methods[0].options;
    j.artifacts = artifact_requests(spec, j.key, j.key.dataset);
  }
  REQUIRE(plan.jobs.front().artifacts.size() == 1);  // split 0 only
  REQUIRE(plan.jobs.back().artifacts.empty());
  const Job& job = plan.jobs.front();
  const JobRecord record = execute_job(spec, plan, job);
  REQUIRE(record.status == "ok");
  CHECK(record.host == host_name() + " (" + machine_description() + ")");  // the machine beside each job
  CHECK(record.artifact_requests.at("chain-traces") == "kind=chain-traces");
  const auto stored = [&](const std::string& name) {
    const auto at = record.diagnostics.find(name + "=");
    REQUIRE(at != std::string::npos);
    return std::stod(record.diagnostics.substr(at + name.size() + 1));
  };
  REQUIRE(record.artifacts.size() == 2);
  const ArtifactTable& draws = record.artifacts[0];
  const ArtifactTable& rhat = record.artifacts[1];
  CHECK(draws.name == "chain_draws");
  CHECK(rhat.name == "chain_rhat");
  CHECK(draws.rows() == 3 * 20);  // 120 iterations over 3 chains, every 2nd kept
  REQUIRE(rhat.rows() == static_cast<std::size_t>(record.n_test));
  const TracedPoints traced = traced_points(rhat.column("rhat").numbers);
  // the fit's own R-hat of the test predictions, to the bit: the same fit
  CHECK(rhat.column("rhat").numbers[static_cast<std::size_t>(traced.worst)] == stored("rhat_pred_max"));
  CHECK(rhat.column("rhat").numbers[static_cast<std::size_t>(traced.median)] == stored("rhat_pred_median"));
  const JobData data = prepare_job_data(plan, job);
  CHECK(rhat.column("row").numbers[3] == static_cast<double>(data.test_rows[3]));

  // A draw's training log-likelihood and test output from the network directly.
  Rng rng(job.seed);
  const std::unique_ptr<Model> model = find_method("nn-mc").fit(data.train, job.params, rng);
  const auto& mc = dynamic_cast<const hmc::Model&>(*model);
  const hmc::Draw& draw = mc.chains()[1][7];
  MlpWorkspace ws;
  Eigen::VectorXd f;
  mlp_outputs(mc.shape(), draw.theta, data.train.X, ws, f);
  const double n = static_cast<double>(f.size());
  const double log_likelihood = -0.5 * n * std::log(2.0 * std::numbers::pi * draw.noise_variance) -
                                0.5 * (f - data.train.y).squaredNorm() / draw.noise_variance;
  const std::size_t row = 20 + 7;  // chain 2, kept draw 8
  CHECK(draws.column("chain").numbers[row] == 2.0);
  CHECK(draws.column("draw").numbers[row] == 8.0);
  CHECK(draws.column("log_likelihood").numbers[row] == Approx(log_likelihood).epsilon(1e-12));
  CHECK(draws.column("noise_sd").numbers[row] == Approx(std::sqrt(draw.noise_variance)).epsilon(1e-15));
  mlp_outputs(mc.shape(), draw.theta, data.X_test, ws, f);
  CHECK(draws.column("f_largest_rhat").numbers[row] == f[traced.worst]);
  CHECK(draws.column("f_median_rhat").numbers[row] == f[traced.median]);

  const std::string svg = plot::render_svg(chain_trace_figure(draws, rhat, "traces", {"a note"}));
  std::size_t lines = 0;
  for (auto at = svg.find("<polyline "); at != std::string::npos; at = svg.find("<polyline ", at + 1)) ++lines;
  CHECK(lines == 4 * 3);  // four panels, a line per chain
}

TEST_CASE("runner: jobs on larger training data start first, plan order among equals", "[runner]") {
  const ExperimentSpec spec = small_spec();
  Plan plan = small_plan(spec);  // splits 0 and 1: 45 training rows, split 2: 20
  PreparedDataset wide = plan.datasets[0];
  wide.data.X.conservativeResize(Eigen::NoChange, 3);  // 45 x 4 for split 0
  wide.data.X.col(2).setZero();
  plan.datasets.push_back(wide);
  Job on_wide = plan.jobs[0];
  on_wide.dataset = 1;
  plan.jobs.push_back(on_wide);
  std::vector<const Job*> jobs;
  for (const Job& job : plan.jobs) jobs.push_back(&job);
  const std::vector<const Job*> order = largest_first(plan, jobs);
  REQUIRE(order.size() == 4);
  CHECK(order[0] == &plan.jobs[3]);  // 45 rows x (3 + 1)
  CHECK(order[1] == &plan.jobs[0]);  // 45 x 3, plan order
  CHECK(order[2] == &plan.jobs[1]);
  CHECK(order[3] == &plan.jobs[2]);  // 20 x 3
}

TEST_CASE("progress: the ETA weighs unfinished jobs by their label's cost per unit size", "[runner]") {
  const double unfinished = std::numeric_limits<double>::quiet_NaN();
  const std::vector<JobCost> jobs = {{"nn-mc", 1000},  {"nn-mc", 200},  {"nn-mc", 200},
                                     {"linear", 1000}, {"linear", 200}, {"gp", 100}};
  // Nothing finished: no estimate.
  CHECK(std::isnan(estimate_remaining_seconds(jobs, std::vector<double>(6, unfinished), 2)));
  // nn-mc ran at 0.1 s per unit, linear at 0.001: left are 2 x 20 s of nn-mc, 0.2 s of linear and
  // the gp job at the rate of all finished jobs, (100 + 1) / 2000 per unit: 5.05 s.
  const std::vector<double> seconds = {100.0, unfinished, unfinished, 1.0, unfinished, unfinished};
  const double left = 40.0 + 0.2 + 5.05;
  CHECK(estimate_remaining_seconds(jobs, seconds, 1) == Approx(left));
  CHECK(estimate_remaining_seconds(jobs, seconds, 2) == Approx(left / 2));
  // Never below the largest single job left: 20 s of nn-mc still take 20 s on 8 threads.
  CHECK(estimate_remaining_seconds(jobs, seconds, 8) == Approx(20.0));
  // Everything finished: nothing left.
  CHECK(estimate_remaining_seconds(jobs, {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, 2) == 0.0);
  // A running job is charged what is left of its cost: one nn-mc job has run 15 of its 20 s,
  // and the gp job 9 s, beyond its 5.05 s estimate (nothing left, not less than nothing).
  const std::vector<double> running = {unfinished, 15.0, unfinished, unfinished, unfinished, 9.0};
  CHECK(estimate_remaining_seconds(jobs, seconds, 1, running) == Approx(5.0 + 20.0 + 0.2));
  CHECK(estimate_remaining_seconds(jobs, seconds, 8, running) == Approx(20.0));
  CHECK(estimate_remaining_seconds(jobs, seconds, 2, {}) == Approx(left / 2));
}

TEST_CASE("store: merged jobs keep pointing at their own runs", "[store]") {
  const std::string here = scratch("store_runs_here"), there = scratch("store_runs_there");
  const auto run_named = [](const std::string& command) {
    RunRecord r;
    r.experiment = "exp";
    r.command = command;
    return r;
  };
  const auto job_of = [](int split, long run_id) {
    JobRecord j;
    j.key = {"exp", "boston", "linear", "abc", split};
    j.method = "linear";
    j.config = "cfg";
    j.status = "ok";
    j.run_id = run_id;
    return j;
  };
  {
    ResultsStore a(here);
    a.record(job_of(0, a.begin_run(run_named("here 1"))));
    a.begin_run(run_named("here 2"));
  }
  {
    ResultsStore b(there);
    b.record(job_of(1, b.begin_run(run_named("there 1"))));
    b.record(job_of(2, b.begin_run(run_named("there 2"))));
  }
  ResultsStore a(here, false);
  CHECK(a.merge_from(there) == 2);
  std::map<long, std::string> command;
  for (const auto& r : a.runs("exp")) command[r.run_id] = r.command;
  CHECK(command.size() == 4);
  std::map<int, std::string> run_of_split;
  for (const auto& j : a.jobs("exp", false)) run_of_split[j.key.split] = command.at(j.run_id);
  CHECK(run_of_split == std::map<int, std::string>{{0, "here 1"}, {1, "there 1"}, {2, "there 2"}});
}

TEST_CASE("store: round trip, replacement of failures, merge", "[store]") {
  const std::string dir_a = scratch("store_a"), dir_b = scratch("store_b");
  JobRecord job;
  job.key = {"exp", "boston", "linear", "abc", 3};
  job.method = "linear";
  job.config = "cfg";
  job.seed = 18446744073709551557ULL;  // does not fit a signed 64-bit integer
  job.status = "failed";
  job.error = "boom";
  {
    ResultsStore a(dir_a);
    a.record(job);
    REQUIRE(a.jobs("exp", false).size() == 1);
    CHECK(a.jobs("exp", false)[0].status == "failed");
    job.status = "ok";
    job.error.clear();
    job.fit_seconds = 0.75;
    job.predict_seconds = 0.125;
    job.fit_cpu_seconds = 1.5;
    Evaluation e;
    e.n_train = 40;
    e.metrics = {{"rmse", 1.25}};
    // every per-point array distinct, with values that a float or text round trip would change
    e.points.log_density = {-1.0, std::nextafter(-2.0, 0.0)};
    e.points.squared_error = {0.1, 1.0 / 3.0};
    e.points.crps = {std::nextafter(0.2, 1.0), 0.7};
    e.points.covered95 = {1.0, 0.0};
    e.points.mean = {-3.5e-300, 12.25};
    e.points.variance = {std::numeric_limits<double>::denorm_min(), 2.0 / 7.0};
    e.test_rows = {4, 7};
    job.evaluations = {e};
    a.record(job);
    const auto jobs = a.jobs("exp", true);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].status == "ok");
    CHECK(jobs[0].seed == job.seed);
    CHECK(jobs[0].fit_seconds == job.fit_seconds);
    CHECK(jobs[0].predict_seconds == job.predict_seconds);
    CHECK(jobs[0].fit_cpu_seconds == job.fit_cpu_seconds);
    REQUIRE(jobs[0].evaluations.size() == 1);
    const Evaluation& back = jobs[0].evaluations[0];
    CHECK(back.n_train == 40);
    CHECK(back.metrics == e.metrics);
    // all exact
    CHECK(back.points.log_density == e.points.log_density);
    CHECK(back.points.squared_error == e.points.squared_error);
    CHECK(back.points.crps == e.points.crps);
    CHECK(back.points.covered95 == e.points.covered95);
    CHECK(back.points.mean == e.points.mean);
    CHECK(back.points.variance == e.points.variance);
    CHECK(back.test_rows == e.test_rows);
  }
  {
    ResultsStore b(dir_b);
    JobRecord other = job;
    other.key.split = 4;
    b.record(other);
    JobRecord failed = job;
    failed.key.split = 5;
    failed.status = "failed";
    b.record(failed);
  }
  ResultsStore a(dir_a, false);
  CHECK(a.merge_from(dir_b) == 2);
  CHECK(a.jobs("exp", false).size() == 3);
  CHECK(a.merge_from(dir_b) == 0);
  CHECK_THROWS_WITH(a.merge_from(dir_a), Catch::Contains("into itself"));
  // Without points: the metrics arrive, the per-test-point predictions do not.
  ResultsStore slim(scratch("store_slim"));
  CHECK(slim.merge_from(dir_a, false) == 3);
  const auto slim_jobs = slim.jobs("exp", true);
  REQUIRE(slim_jobs.size() == 3);
  for (const auto& j : slim_jobs) {
    if (j.status != "ok") continue;
    REQUIRE(j.evaluations.size() == 1);
    CHECK(j.evaluations[0].metrics.at("rmse") == 1.25);
    CHECK(j.evaluations[0].points.log_density.empty());
  }
  CHECK_THROWS_WITH(ResultsStore(scratch("empty") + "/none", false), Catch::Contains("no results store"));
  // Read-only access reads the same jobs and writes nothing, not even into an empty file.
  {
    const auto size_before = fs::file_size(dir_a + "/bnnbench.sqlite");
    ResultsStore reader(dir_a, ResultsStore::Access::read_only);
    CHECK(reader.jobs("exp", false).size() == 3);
    CHECK_THROWS(reader.record(job));
    CHECK(fs::file_size(dir_a + "/bnnbench.sqlite") == size_before);
  }
  const std::string empty_dir = scratch("store_empty_file");
  { std::ofstream touch(empty_dir + "/bnnbench.sqlite"); }
  CHECK_THROWS_WITH(ResultsStore(empty_dir, ResultsStore::Access::read_only),
                    Catch::Contains("is not a complete bnnbench results store (0 of its 5 tables"));
  CHECK(fs::file_size(empty_dir + "/bnnbench.sqlite") == 0);
  CHECK_THROWS_WITH(ResultsStore(scratch("empty") + "/none", ResultsStore::Access::read_only),
                    Catch::Contains("no results store"));
}

TEST_CASE("store: a killed run's store, whose jobs are in its -wal file, is no foreign file to run", "[store]") {
  // A run killed while it checkpoints leaves a main file that is only whole with its -wal file.
  // Modelled here: the files copied while the writer is open (jobs only in the -wal file), then
  // the main file's first page zeroed. Read with the -wal file, it is our store.
  namespace fs = std::filesystem;
  const std::string live = scratch("store_wal_live"), killed = scratch("store_wal_killed");
  JobRecord job;
  job.key = {"exp", "boston", "linear", "abc", 0};
  job.method = "linear";
  job.status = "ok";
  ResultsStore writer(live);
  writer.record(job);
  fs::create_directories(killed);
  for (const char* suffix : {"", "-wal"})
    fs::copy_file(live + "/bnnbench.sqlite" + suffix, killed + "/bnnbench.sqlite" + suffix,
                  fs::copy_options::overwrite_existing);
  REQUIRE(fs::file_size(killed + "/bnnbench.sqlite-wal") > 0);
  {
    std::fstream main_file(killed + "/bnnbench.sqlite", std::ios::in | std::ios::out | std::ios::binary);
    const std::string zeros(512, '\0');
    main_file.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  CHECK_NOTHROW(ResultsStore::check_output_store(killed));
  CHECK(ResultsStore(killed, ResultsStore::Access::read_only).jobs("exp", false).size() == 1);
}

TEST_CASE("store: a failed attempt never replaces a finished job", "[store]") {
  ResultsStore store(scratch("store_keep_finished"));
  JobRecord job;
  job.key = {"exp", "yacht", "pbp", "h1", 0};
  job.method = "pbp";
  job.status = "ok";
  Evaluation e;
  e.metrics = {{"rmse", 1.5}};
  e.points.log_density = {-1.25};
  e.test_rows = {3};
  job.evaluations = {e};
  CHECK(store.record(job));
  JobRecord failed = job;
  failed.status = "failed";
  failed.error = "diverged";
  failed.evaluations[0].metrics = {{"rmse", 99.0}};
  CHECK_FALSE(store.record(failed));
  auto jobs = store.jobs("exp", true);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].status == "ok");
  CHECK(jobs[0].error.empty());
  CHECK(jobs[0].evaluations.at(0).metrics.at("rmse") == 1.5);
  CHECK(jobs[0].evaluations.at(0).points.log_density == std::vector<double>{-1.25});
  // a finished attempt does replace a finished one
  job.evaluations[0].metrics = {{"rmse", 1.75}};
  CHECK(store.record(job));
  jobs = store.jobs("exp", true);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].evaluations.at(0).metrics.at("rmse") == 1.75);
}

TEST_CASE("store merge: a finished job replaces a failed one, never the reverse", "[store]") {
  const auto record = [](const std::string& dir, const std::string& status, double rmse, double log_density) {
    ResultsStore store(dir);
    JobRecord job;
    job.key = {"exp", "yacht", "pbp", "h1", 0};
    job.method = "pbp";
    job.status = status;
    job.error = status == "ok" ? "" : "diverged";
    Evaluation e;
    e.metrics = {{"rmse", rmse}};
    e.points.log_density = {log_density};
    e.test_rows = {3};
    job.evaluations = {e};  // a failed attempt with rows of its own: they must not survive it
    store.record(job);
  };
  const auto only_job = [](const std::string& dir) {
    ResultsStore store(dir, false);
    const auto jobs = store.jobs("exp", true);
    REQUIRE(jobs.size() == 1);
    return jobs[0];
  };
  // failed here, finished there: replaced, with the finished job's metrics and points only
  const std::string failed_here = scratch("merge_failed_here"), finished_there = scratch("merge_finished_there");
  record(failed_here, "failed", 99.0, -99.0);
  record(finished_there, "ok", 1.5, -1.25);
  {
    ResultsStore store(failed_here, false);
    CHECK(store.merge_from(finished_there) == 1);
  }
  JobRecord merged = only_job(failed_here);
  CHECK(merged.status == "ok");
  CHECK(merged.error.empty());
  REQUIRE(merged.evaluations.size() == 1);
  CHECK(merged.evaluations[0].metrics == std::map<std::string, double>{{"rmse", 1.5}});
  CHECK(merged.evaluations[0].points.log_density == std::vector<double>{-1.25});
  // finished here, failed there: kept as it is
  const std::string finished_here = scratch("merge_finished_here"), failed_there = scratch("merge_failed_there");
  record(finished_here, "ok", 2.5, -2.0);
  record(failed_there, "failed", 99.0, -99.0);
  {
    ResultsStore store(finished_here, false);
    CHECK(store.merge_from(failed_there) == 0);
    CHECK(store.merge_from(finished_there) == 0);  // a finished job is never replaced
  }
  merged = only_job(finished_here);
  CHECK(merged.status == "ok");
  REQUIRE(merged.evaluations.size() == 1);
  CHECK(merged.evaluations[0].metrics == std::map<std::string, double>{{"rmse", 2.5}});
  CHECK(merged.evaluations[0].points.log_density == std::vector<double>{-2.0});
}

TEST_CASE("report rel_time: CPU seconds relative to the reference method, wall time as fallback", "[report]") {
  const auto& registry = test::shipped_registry();
  ExperimentSpec spec = load_experiment(find_experiment_file("quickstart"));
  spec.datasets.resize(1);            // pbp-cubic
  REQUIRE(spec.methods.size() == 2);  // linear, linear-evidence
  spec.report.metrics = {"rel_time", "fit_seconds"};
  spec.report.relative_time_to = "linear";
  const auto& ds = registry.find("pbp-cubic");
  // CPU seconds per split are fit + predict; wall seconds (the fit_seconds metric) differ on purpose
  const auto fill = [&](const std::string& dir, bool base_has_cpu) {
    ResultsStore store(dir);
    for (std::size_t m = 0; m < 2; ++m) {
      const ConfigIdentity id = config_identity(spec, spec.datasets[0], ds, spec.methods[m]);
      for (int s = 0; s < 4; ++s) {
        JobRecord j;
        j.key = {spec.name, "pbp-cubic", spec.methods[m].label, id.hash, s};
        j.method = "linear";
        j.status = s == 3 ? "failed" : "ok";  // a failed split's time is not counted
        j.predict_seconds = m == 0 ? 0.5 : 1.0;
        j.fit_cpu_seconds = s == 3 ? 1000.0 : m == 0 ? (base_has_cpu ? 2.0 + s : 0.0) : 9.0 + 2.0 * s;
        Evaluation e;
        e.metrics = {{"fit_seconds", m == 0 ? 5.0 : 10.0}};
        j.evaluations = {e};
        store.record(j);
      }
    }
  };
  const std::string with_cpu = scratch("rel_time_cpu"), without_cpu = scratch("rel_time_wall");
  fill(with_cpu, true);
  fill(without_cpu, false);
  ResultsStore store(with_cpu, false);
  const ReportData r = build_report(spec, registry, store, {});
  const Cell& base = r.cell("pbp-cubic", "linear", "rel_time");
  const Cell& other = r.cell("pbp-cubic", "linear-evidence", "rel_time");
  REQUIRE(base.ours);
  REQUIRE(other.ours);
  CHECK(base.ours->value == 1.0);
  // mean CPU seconds: linear (2.5 + 3.5 + 4.5) / 3 = 3.5, linear-evidence (10 + 12 + 14) / 3 = 12
  CHECK(other.ours->value == Approx(12.0 / 3.5).epsilon(1e-12));
  CHECK(std::isnan(other.ours->se));
  CHECK(other.n_splits == 3);
  CHECK(other.n_failed == 1);
  CHECK(r.cell("pbp-cubic", "linear-evidence", "fit_seconds").ours->value == Approx(10.0));
  CHECK_THAT(render_csv(r), Catch::Contains("pbp-cubic,linear-evidence,rel_time,3.428571429,,3,,"));
  CHECK_THAT(render_markdown(r), Catch::Contains("CPU time relative to linear"));
  // the reference's store lacks CPU times: wall seconds for every method, 10 / 5
  ResultsStore wall(without_cpu, false);
  const ReportData w = build_report(spec, registry, wall, {});
  REQUIRE(w.cell("pbp-cubic", "linear-evidence", "rel_time").ours);
  CHECK(w.cell("pbp-cubic", "linear-evidence", "rel_time").ours->value == Approx(2.0).epsilon(1e-12));
  CHECK(w.cell("pbp-cubic", "linear", "rel_time").ours->value == 1.0);

  // A report of part of the experiment: the base of the relative times is left out of the
  // table but still divides; the other data set of quickstart is left out too.
  ExperimentSpec both = load_experiment(find_experiment_file("quickstart"));
  both.report = spec.report;
  REQUIRE(both.datasets.size() >= 2);
  ReportSelection selection;
  selection.methods = {"linear-evidence"};
  selection.datasets = {"pbp-cubic"};
  const ReportData part = build_report(both, registry, store, {}, selection);
  CHECK(part.methods == std::vector<std::string>{"linear-evidence"});
  REQUIRE(part.datasets.size() == 1);
  CHECK(part.datasets[0].name == "pbp-cubic");
  CHECK(part.cell("pbp-cubic", "linear-evidence", "rel_time").ours->value == Approx(12.0 / 3.5).epsilon(1e-12));
  CHECK(part.cells.count({"pbp-cubic", "linear", "rel_time"}) == 0);
  CHECK_THAT(render_markdown(part),
             Catch::Contains("part of the experiment: methods linear-evidence; data sets pbp-cubic"));
  CHECK_THAT(render_csv(part), !Catch::Contains("pbp-cubic,linear,"));
  // unknown labels and data sets are errors that name them
  CHECK_THROWS_WITH(checked_selection(both, registry, {"pbp"}, {}),
                    Catch::Contains("has no method 'pbp'; its methods: linear, linear-evidence"));
  CHECK_THROWS_WITH(checked_selection(both, registry, {}, {"boston"}),
                    Catch::Contains("does not use data set 'boston'"));
}

TEST_CASE("reference numbers are read as the specs describe", "[report]") {
  const auto& registry = test::shipped_registry();
  const ExperimentSpec pbp = load_experiment(find_experiment_file("pbp-table1"));
  const ReferenceValues r = load_reference(pbp, registry);
  CHECK(r.at({"boston", "pbp", "rmse"}).value == Approx(3.014));
  CHECK(r.at({"boston", "pbp", "rmse"}).se == Approx(0.18));
  CHECK(r.at({"yacht", "vi", "test_ll"}).value == Approx(-3.439));
  CHECK(r.at({"protein", "bp", "fit_seconds"}).value == Approx(4831));
  CHECK(r.at({"naval", "pbp", "rmse"}).resolution == Approx(0.001));  // printed "0.006"
  CHECK(r.at({"protein", "bp", "fit_seconds"}).resolution == 1.0);
  CHECK(std::isnan(r.at({"year", "pbp", "rmse"}).se));
  CHECK(r.count({"boston", "bp", "test_ll"}) == 0);  // BP has no log-likelihood in the paper
  CHECK(r.count({"boston", "linear", "rmse"}) == 0);
  // Later papers' numbers for their own methods only, from their own files.
  CHECK(r.at({"boston", "mc-dropout", "rmse"}).value == Approx(2.90));
  CHECK(r.at({"boston", "mc-dropout", "test_ll"}).se == Approx(0.04));
  CHECK(r.at({"protein", "deep-ensemble", "test_ll"}).value == Approx(-2.83));  // NLL 2.83
  CHECK(r.at({"protein", "deep-ensemble", "test_ll"}).se == Approx(0.009));     // 0.02 / sqrt(5)
  CHECK(r.count({"boston", "mc-dropout", "fit_seconds"}) == 0);
  CHECK(r.count({"boston", "pbp", "test_ll"}) == 1);
  // MC dropout runs on the nine data sets of its paper (no tau grid for year).
  const MethodConfig& dropout = *std::find_if(pbp.methods.begin(), pbp.methods.end(),
                                              [](const MethodConfig& m) { return m.label == "mc-dropout"; });
  CHECK(dropout.runs_on("boston", {}));
  CHECK_FALSE(dropout.runs_on("year", {}));

  const ExperimentSpec epnn = load_experiment(find_experiment_file("epnn-table1"));
  const ReferenceValues e = load_reference(epnn, registry);
  CHECK(e.at({"boston", "nn-mc", "lpd_mean"}).value == Approx(-0.08));  // "housing" in the paper
  CHECK(e.at({"concrete-lv", "gp", "se_mean"}).value == Approx(0.06));  // not the UCI concrete
  CHECK(e.count({"concrete", "gp", "se_mean"}) == 0);
  CHECK(e.at({"kin40k", "gp-ard", "rel_time"}).value == Approx(32.3));

  const ExperimentSpec layers = load_experiment(find_experiment_file("pbp-layers"));
  const ReferenceValues l = load_reference(layers, registry);
  CHECK(l.at({"energy", "bp-1", "rmse"}).value == Approx(1.185));
  CHECK(l.at({"energy", "pbp-3", "rmse"}).value == Approx(1.237));

  const ExperimentSpec bb = load_experiment(find_experiment_file("bb-table1"));
  const ReferenceValues b = load_reference(bb, registry);
  CHECK(b.at({"boston", "vi-fa", "se_mean"}).value == Approx(0.22));
  CHECK(b.at({"boston", "laplace", "se_mean"}).value == Approx(0.33));
}

TEST_CASE("report marks differences beyond two combined standard errors", "[report]") {
  const auto& registry = test::shipped_registry();
  ExperimentSpec spec = load_experiment(find_experiment_file("quickstart"));
  spec.datasets.resize(1);  // pbp-cubic
  spec.methods.resize(1);
  spec.report.metrics = {"rmse"};
  spec.protocol.folds = 4;  // the four splits stored below are all of them
  ResultsStore store(scratch("report"));
  const auto& ds = registry.find("pbp-cubic");
  const ConfigIdentity id = config_identity(spec, spec.datasets[0], ds, spec.methods[0]);
  // A finished job of `split` with the given metrics, in `into`.
  const auto record = [&](ResultsStore& into, int split, std::map<std::string, double> metrics) {
    JobRecord j;
    j.key = {spec.name, "pbp-cubic", "linear", id.hash, split};
    j.method = "linear";
    j.status = "ok";
    Evaluation e;
    e.metrics = std::move(metrics);
    j.evaluations = {e};
    into.record(j);
  };
  for (int s = 0; s < 4; ++s) record(store, s, {{"rmse", 10.0 + s}});  // mean 11.5, se 0.645
  ReferenceValues refs;
  refs[{"pbp-cubic", "linear", "rmse"}] = PaperValue{12.0, 0.1};
  ReportData r = build_report(spec, registry, store, refs);
  const Cell& c = r.cell("pbp-cubic", "linear", "rmse");
  REQUIRE(c.ours);
  CHECK(c.ours->value == Approx(11.5));
  CHECK(c.n_splits == 4);
  CHECK_FALSE(c.differs);  // |11.5 - 12| < 2 sqrt(0.645^2 + 0.1^2)
  refs[{"pbp-cubic", "linear", "rmse"}] = PaperValue{14.0, 0.1};
  r = build_report(spec, registry, store, refs);
  CHECK(r.cell("pbp-cubic", "linear", "rmse").differs);
  // A value printed as "14" stands for anything in [13.5, 14.5]: 11.5 is 2.0 beyond that, still
  // more than 2 x 0.653.
  refs[{"pbp-cubic", "linear", "rmse"}] = PaperValue{14.0, 0.1, 1.0};
  CHECK(build_report(spec, registry, store, refs).cell("pbp-cubic", "linear", "rmse").differs);
  refs[{"pbp-cubic", "linear", "rmse"}] = PaperValue{13.0, 0.0, 1.0};  // 1.5 - 0.5 = 1.0 < 2 x 0.645
  CHECK_FALSE(build_report(spec, registry, store, refs).cell("pbp-cubic", "linear", "rmse").differs);
  refs[{"pbp-cubic", "linear", "rmse"}] = PaperValue{13.0, 0.0, 0.0};  // 1.5 > 2 x 0.645
  CHECK(build_report(spec, registry, store, refs).cell("pbp-cubic", "linear", "rmse").differs);
  refs[{"pbp-cubic", "linear", "rmse"}] = PaperValue{14.0, 0.1};
  const std::string md = render_markdown(r);
  CHECK_THAT(md, Catch::Contains("| pbp-cubic |") && Catch::Contains("11.50 ± 0.65 *") && Catch::Contains("14.0"));
  CHECK_THAT(render_csv(r), Catch::Contains("pbp-cubic,linear,rmse,11.5,0.6454972244,4,14,0.1"));
  CHECK_THAT(render_latex(r), Catch::Contains("\\toprule") && Catch::Contains("$\\pm$"));
  CHECK_THAT(md, !Catch::Contains("(k/N)"));

  // Fewer splits than the protocol's four (`run --splits 0-2`): 3 of 4 shown, never marked, the
  // header says so.
  ResultsStore three(scratch("report-partial"));
  for (int s = 0; s < 3; ++s) record(three, s, {{"rmse", 10.0 + s}});  // mean 11, se 0.577: 14 is beyond two SE
  const ReportData partial = build_report(spec, registry, three, refs);
  const Cell& p = partial.cell("pbp-cubic", "linear", "rmse");
  CHECK(p.n_splits == 3);
  CHECK(p.n_planned == 4);
  CHECK(p.partial());
  CHECK_FALSE(p.differs);
  const std::string partial_md = render_markdown(partial);
  CHECK_THAT(partial_md, Catch::Contains("| 11.00 ± 0.58 (3/4) |"));
  CHECK_THAT(partial_md, Catch::Contains("- `(k/N)`: our value is the mean of k of the protocol's N splits"));
  // A fourth job whose rmse row is missing (deleted from the store): the cell counts the three it
  // averages, not the four jobs.
  record(three, 3, {{"test_ll", -1.0}});
  const ReportData with_fourth = build_report(spec, registry, three, refs);
  const Cell& counted = with_fourth.cell("pbp-cubic", "linear", "rmse");
  CHECK(counted.n_splits == 3);
  CHECK(counted.partial());
  CHECK(counted.ours->value == Approx(11.0));
  CHECK_THAT(md, !Catch::Contains("target transformed"));
  // A transformed target is named in the header (its metrics are on that scale).
  spec.datasets[0].target_transform = data::TargetTransform::log1p;
  const ReportData transformed = build_report(spec, registry, store, refs);
  CHECK_THAT(render_markdown(transformed), Catch::Contains("- pbp-cubic: target transformed on loading to log(1 + y)"));
  CHECK_THAT(render_latex(transformed), Catch::Contains("% pbp-cubic: target transformed on loading to log(1 + y)"));
  CHECK_THAT(render_markdown(transformed), !Catch::Contains("numpy"));
  spec.datasets[0].constant_inputs = data::ConstantInputs::numpy;
  CHECK_THAT(render_markdown(build_report(spec, registry, store, refs)),
             Catch::Contains("- pbp-cubic: constant input columns standardized as numpy does"));
}

TEST_CASE("reference values: printed resolution and the distance beyond rounding", "[report]") {
  CHECK(printed_resolution("0.006") == Approx(0.001));
  CHECK(printed_resolution(" 3.731 ") == Approx(0.001));
  CHECK(printed_resolution("-2.5") == Approx(0.1));
  CHECK(printed_resolution("8373") == 1.0);
  CHECK(printed_resolution("12.") == 1.0);
  CHECK(printed_resolution(".25") == Approx(0.01));
  CHECK(printed_resolution("1e-3") == 0.0);
  CHECK(printed_resolution("n/a") == 0.0);
  CHECK(printed_resolution("") == 0.0);
  // Naval's PBP RMSE, printed 0.006: 0.00574 rounds to it, 0.0054 does not.
  const PaperValue naval{0.006, 0.0, 0.001};
  CHECK(distance_beyond_rounding(0.005742, naval) == 0.0);
  CHECK(distance_beyond_rounding(0.0054, naval) == Approx(0.0001));
  CHECK(distance_beyond_rounding(0.0067, naval) == Approx(0.0002));
  CHECK(distance_beyond_rounding(0.0054, PaperValue{0.006, 0.0, 0.0}) == Approx(0.0006));
}

TEST_CASE("figure grids: product and one-at-a-time", "[grid]") {
  GridSpec product;
  product.axes = {{-1.0, 1.0, 3}, {0.0, 2.0, 5}};
  const GridPoints p = make_grid(product, 2);
  REQUIRE(p.X.rows() == 15);
  CHECK(p.varied.empty());
  CHECK(p.X(0, 0) == -1.0);
  CHECK(p.X(0, 1) == 0.0);
  CHECK(p.X(1, 1) == 0.5);  // the last input varies fastest
  CHECK(p.X(5, 0) == 0.0);
  CHECK(p.X(14, 0) == 1.0);
  CHECK(p.X(14, 1) == 2.0);
  CHECK_THROWS_WITH(make_grid(product, 3), Catch::Contains("2 axes given, but the data set has 3 inputs"));

  GridSpec each;
  each.mode = GridSpec::Mode::one_at_a_time;
  each.axes = {{-5.0, 5.0, 11}};
  each.fixed = 0.5;
  const GridPoints e = make_grid(each, 3);
  REQUIRE(e.X.rows() == 33);
  CHECK(e.varied[0] == 1.0);
  CHECK(e.varied[32] == 3.0);
  CHECK(e.X(12, 1) == -4.0);  // second block varies input 2
  CHECK(e.X(12, 0) == 0.5);
  CHECK(e.X(12, 2) == 0.5);
}

TEST_CASE("figure experiment: trained on all rows, predictions stored on the grid", "[grid]") {
  const auto& registry = test::shipped_registry();
  const ExperimentSpec spec = load_experiment(find_experiment_file("epnn-case3"));
  REQUIRE(spec.grid);
  PlanOptions only;
  only.only_methods = {"linear"};
  const Plan plan = make_plan(spec, registry, only);
  REQUIRE(plan.jobs.size() == 1);
  CHECK(plan.datasets[0].splits[0].train.size() == 100);
  CHECK(plan.datasets[0].splits[0].test.empty());
  ResultsStore store(scratch("grid"));
  RunOptions options;
  options.quiet = true;
  CHECK(run_plan(spec, plan, store, options).failed == 0);
  const auto grids = store.grids(spec.name);
  REQUIRE(grids.size() == 1);
  const GridPredictions& g = grids[0].second;
  REQUIRE(g.points.X.rows() == 281);
  for (std::size_t i = 0; i < g.mean.size(); ++i) {
    CHECK(g.lower95[i] < g.mean[i]);
    CHECK(g.mean[i] < g.upper95[i]);
  }
  // Linear in x: the mean moves by a constant step along the evenly spaced grid.
  CHECK(g.mean[200] - g.mean[100] == Approx(g.mean[100] - g.mean[0]).epsilon(1e-9));
  const std::string csv = render_grid_csv(grids);
  CHECK_THAT(csv,
             Catch::StartsWith("dataset,method,split,input,x1,mean,sd,lower95,upper95\nepnn-case3,linear,0,,-3.5,"));
}
