// Active learning (experiments/src/run/active_learning): the selection rules, the pool and the
// splits, a pool whose targets are never read before a point leaves it, resuming in the middle
// of a sequence with the same bits, and the paired A and R jobs of a repeat.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "datasets/src/protocol.hpp"
#include "experiments/src/kinds/active_learning.hpp"
#include "experiments/src/plan/plan.hpp"
#include "experiments/src/report/active_learning_report.hpp"
#include "experiments/src/run/runner.hpp"
#include "experiments/src/store/store.hpp"
#include "experiments/src/verify/verify.hpp"
#include "methods/core/rng.hpp"

using namespace bnn;
using namespace bnn::exp;

namespace {

// 200 rows of a smooth function of two inputs; protocol random 20 / 100, the rest the pool.
ExperimentSpec al_spec(const std::string& method, const ParamMap& options) {
  ExperimentSpec spec;
  spec.name = "al";
  spec.scale = "original";
  spec.protocol.kind = data::Protocol::Kind::random;
  spec.protocol.n_train = 20;
  spec.protocol.n_test = 100;
  spec.protocol.repeats = 2;
  spec.active_learning = ActiveLearningSpec{5, {}};
  for (const char* selection : {"variance", "random"}) {
    MethodConfig m;
    m.label = method + (std::string(selection) == "variance" ? "-a" : "-r");
    m.method = method;
    m.options = options;
    m.selection = selection;
    spec.methods.push_back(m);
  }
  DatasetConfig d;
  d.name = "toy";
  spec.datasets.push_back(d);
  return spec;
}

Plan al_plan(const ExperimentSpec& spec) {
  Plan plan;
  PreparedDataset pd;
  pd.data.name = pd.data.origin = "toy";
  pd.config = spec.datasets[0];
  Rng rng(5);
  const Eigen::Index n = 200;
  pd.data.X.resize(n, 2);
  pd.data.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    pd.data.X(i, 0) = uniform(rng, -2.0, 2.0);
    pd.data.X(i, 1) = uniform(rng, -2.0, 2.0);
    pd.data.y[i] = std::sin(2.0 * pd.data.X(i, 0)) + 0.5 * pd.data.X(i, 1) + 0.1 * standard_normal(rng);
  }
  pd.protocol = spec.protocol;
  pd.splits = data::make_splits(spec.protocol, n, 99, "toy");
  plan.datasets.push_back(pd);
  for (const auto& m : spec.methods)
    for (int s = 0; s < 2; ++s) {
      Job job;
      job.key = {spec.name, "toy", m.label, "cafe", s};
      job.method = &m;
      job.params = m.options;
      job.config = m.label;
      job.seed = job_seed(spec, job.key);
      job.fit_seed = derive_seed(77, static_cast<std::uint64_t>(s));  // shared by -a and -r, as make_plan does
      plan.jobs.push_back(job);
    }
  return plan;
}

}  // namespace

TEST_CASE("active learning: the splits 20 / 100 / pool are disjoint and cover the data", "[active]") {
  data::Protocol p;
  p.kind = data::Protocol::Kind::random;
  p.n_train = 20;
  p.n_test = 100;
  p.repeats = 3;
  for (const auto& split : data::make_splits(p, 200, 4, "toy")) {
    const std::vector<Eigen::Index> pool = pool_rows(200, split);
    CHECK(split.train.size() == 20);
    CHECK(split.test.size() == 100);
    CHECK(pool.size() == 80);
    std::vector<Eigen::Index> all = split.train;
    all.insert(all.end(), split.test.begin(), split.test.end());
    all.insert(all.end(), pool.begin(), pool.end());
    std::sort(all.begin(), all.end());
    std::vector<Eigen::Index> expected(200);
    std::iota(expected.begin(), expected.end(), Eigen::Index{0});
    CHECK(all == expected);  // each row exactly once
    CHECK(std::is_sorted(pool.begin(), pool.end()));
  }
}

TEST_CASE("active learning: largest variance wins, the first of equal ones, and random is uniform", "[active]") {
  Rng rng(1);
  const std::vector<double> v = {0.5, 2.0, 1.0, 2.0, 0.1};
  CHECK(select_next(
            "variance", v.size(), [&](std::size_t i) { return v[i]; }, rng) == 1);
  const std::vector<double> with_nan = {std::nan(""), 0.3, 0.7};
  CHECK(select_next(
            "variance", with_nan.size(), [&](std::size_t i) { return with_nan[i]; }, rng) == 2);
  const std::vector<double> all_nan = {std::nan(""), std::nan("")};
  CHECK_THROWS(select_next(
      "variance", 2, [&](std::size_t i) { return all_nan[i]; }, rng));
  CHECK_THROWS_WITH(select_next(
                        "variance", 0, [](std::size_t) { return 0.0; }, rng),
                    Catch::Contains("pool is empty"));
  // random: the variance is never asked for; counts over 6 candidates within 5 sd of 4000 each
  std::vector<int> counts(6, 0);
  for (int draw = 0; draw < 24000; ++draw)
    ++counts[select_next(
        "random", 6, [](std::size_t) -> double { throw std::logic_error("asked"); }, rng)];
  for (int c : counts) CHECK(std::abs(c - 4000) < 5 * std::sqrt(24000 * (1.0 / 6) * (5.0 / 6)));
  Rng a(9), b(9);  // the job's stream decides: the same seed, the same choice
  CHECK(select_next(
            "random", 1000, [](std::size_t) { return 0.0; }, a) ==
        select_next(
            "random", 1000, [](std::size_t) { return 0.0; }, b));
}

TEST_CASE("active learning: the pool's targets are not read before a point leaves it", "[active]") {
  // Run once with every target, then again with the target of every pool row that was never
  // chosen set to NaN: were any read (to normalize, fit or score), the NaN would show.
  const ExperimentSpec spec = al_spec("linear", {});
  const Plan full = al_plan(spec);
  for (const Job& job : full.jobs) {
    const JobRecord a = execute_job(spec, full, job);
    REQUIRE(a.status == "ok");
    Plan hidden = full;
    data::Dataset& d = hidden.datasets[0].data;
    const auto& split = hidden.datasets[0].splits[static_cast<std::size_t>(job.key.split)];
    std::set<Eigen::Index> chosen;
    for (const auto& e : a.evaluations)
      if (e.metrics.count("added_row")) chosen.insert(static_cast<Eigen::Index>(e.metrics.at("added_row")));
    for (Eigen::Index row : pool_rows(d.X.rows(), split))
      if (!chosen.count(row)) d.y[row] = std::numeric_limits<double>::quiet_NaN();
    const JobRecord b = execute_job(spec, hidden, job);
    INFO(job.key.describe() << ": " << b.error);
    REQUIRE(b.status == "ok");
    CHECK(compare_jobs(a, b).differing == 0);
  }
}

TEST_CASE("active learning: each added point comes from the pool, once, with the variance that chose it", "[active]") {
  const ExperimentSpec spec = al_spec("linear", {});
  const Plan plan = al_plan(spec);
  const JobRecord rec = execute_job(spec, plan, plan.jobs.front());
  REQUIRE(rec.status == "ok");
  CHECK(rec.host == host_name() + " (" + machine_description() + ")");  // the machine beside each job
  const auto& split = plan.datasets[0].splits[0];
  const std::vector<Eigen::Index> pool = pool_rows(200, split);
  std::set<double> added;
  for (std::size_t s = 0; s < rec.evaluations.size(); ++s) {
    const Evaluation& e = rec.evaluations[s];
    CHECK(e.step == static_cast<int>(s));
    CHECK(e.n_train == 20 + static_cast<long>(s));
    if (s + 1 == rec.evaluations.size()) {
      CHECK_FALSE(e.metrics.count("added_row"));  // the last evaluation adds nothing
      continue;
    }
    const double row = e.metrics.at("added_row");
    CHECK(std::binary_search(pool.begin(), pool.end(), static_cast<Eigen::Index>(row)));
    CHECK(added.insert(row).second);  // never the same point twice
    CHECK(e.metrics.at("added_variance") > 0.0);
  }
}

TEST_CASE("active learning: a sequence resumed in the middle gives the uninterrupted bits", "[active]") {
  const ExperimentSpec spec = al_spec("pbp", {{"hidden_layers", "5"}, {"epochs", "5"}});
  const Plan plan = al_plan(spec);
  for (const Job& job : plan.jobs) {
    std::vector<JobRecord> checkpoints;
    const JobRecord whole =
        execute_job(spec, plan, job, 1, nullptr, [&](const JobRecord& r) { checkpoints.push_back(r); });
    REQUIRE(whole.status == "ok");
    REQUIRE(checkpoints.size() == 5);  // after evaluations 1..5 of 6
    for (const auto& c : checkpoints) CHECK(c.status == "partial");
    const JobRecord& stopped = checkpoints[2];  // three evaluations stored
    REQUIRE(stopped.evaluations.size() == 3);
    std::size_t later = 0;
    const JobRecord resumed = execute_job(spec, plan, job, 1, &stopped, [&](const JobRecord&) { ++later; });
    CHECK(later == 2);
    REQUIRE(resumed.status == "ok");
    const JobComparison c = compare_jobs(whole, resumed);
    INFO(job.key.describe() << ": " << c.worst);
    CHECK(c.differing == 0);
    CHECK(c.values > 6 * 100);  // every step's metrics and test points were compared
  }
}

TEST_CASE("active learning: a method's variance and random jobs start from the same fit", "[active]") {
  const ExperimentSpec spec = al_spec("pbp", {{"hidden_layers", "5"}, {"epochs", "5"}});
  const Plan plan = al_plan(spec);
  const JobRecord a = execute_job(spec, plan, plan.jobs[0]);  // pbp-a split 0
  const JobRecord r = execute_job(spec, plan, plan.jobs[2]);  // pbp-r split 0
  REQUIRE(a.status == "ok");
  REQUIRE(r.status == "ok");
  CHECK(a.evaluations[0].metrics.at("rmse") == r.evaluations[0].metrics.at("rmse"));
  CHECK(a.evaluations[0].points.mean == r.evaluations[0].points.mean);
  CHECK(selection_pairs(spec) == std::vector<std::pair<std::string, std::string>>{{"pbp-a", "pbp-r"}});
}
