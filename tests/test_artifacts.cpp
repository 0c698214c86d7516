// Artifacts end to end: the spec's [[artifacts]] (parsing, validation against the methods that
// offer a kind), the plan's requests per job, what every registered method offers, the
// store's round trip and merge, finished jobs that lack an artifact asked for, the bitwise
// comparison of `verify`, and the CSV that reads back to the same bits.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "datasets/src/data_error.hpp"
#include "datasets/src/registry.hpp"
#include "experiments/src/io/csv.hpp"
#include "experiments/src/plan/plan.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/records/artifact_table.hpp"
#include "experiments/src/spec/spec.hpp"
#include "experiments/src/store/store.hpp"
#include "experiments/src/verify/verify.hpp"
#include "methods/core/rng.hpp"
#include "methods/registry.hpp"
#include "tests/support/data_mirror.hpp"

using namespace bnn;
using namespace bnn::exp;
namespace fs = std::filesystem;

namespace {

ExperimentSpec spec_from(const std::string& name, const std::string& text) {
  const fs::path dir = test::scratch_dir("artifacts", name);
  const fs::path file = dir / (name + ".toml");
  std::ofstream(file) << text;
  return load_experiment(file.string());
}

const std::string kHeader = R"(name = "art"
datasets = ["bb-toy"]
protocol = { kind = "all" }
[[method]]
label = "laplace"
method = "laplace"
options = { hidden_units = 1, input_bias = false, output_bias = false, restarts = 0 }
[[method]]
label = "linear"
method = "linear"
)";

std::string spec_error(const std::string& name, const std::string& text) {
  try {
    spec_from(name, text);
  } catch (const data::DataError& e) {
    return e.what();
  }
  return "<no error>";
}

ArtifactTable sample_table() {
  ArtifactTable t{"parameter-marginals", "parameter_marginals", {}};
  t.add_text("parameter", {"w", "phi, a comma", ""})
      .add("mean", {0.1, -2.5e-300, std::nan("")})
      .add("sd", {1.0 / 3.0, 0.0, 7.0});
  return t;
}

}  // namespace

TEST_CASE("[[artifacts]] parse, with errors at their line", "[artifacts][spec]") {
  const ExperimentSpec s = spec_from("ok", kHeader + R"(
[[artifacts]]
kind = "gaussian-posterior"
methods = ["laplace"]
splits = [0]
posterior_box = [[-8, 8], [-4.5, 4]]
posterior_cells = 100
)");
  REQUIRE(s.artifacts.size() == 1);
  CHECK(s.artifacts[0].kind == "gaussian-posterior");
  CHECK(s.artifacts[0].methods == std::vector<std::string>{"laplace"});
  REQUIRE(s.artifacts[0].posterior);
  CHECK(s.artifacts[0].posterior->box[1].from == -4.5);
  CHECK(s.artifacts[0].posterior->plot[0].points == 0);  // no plot grid asked for
  CHECK(s.artifacts[0].canonical() == "kind=gaussian-posterior|box=-8:8,-4.5:4|cells=100");

  CHECK_THAT(spec_error("kind", kHeader + "[[artifacts]]\nkind = \"traces\"\n"),
             Catch::Contains("line 12") && Catch::Contains("unknown artifact kind 'traces'") &&
                 Catch::Contains("chain-traces"));
  CHECK_THAT(spec_error("label", kHeader + "[[artifacts]]\nkind = \"chain-traces\"\nmethods = [\"nn-mc\"]\n"),
             Catch::Contains("line 13") && Catch::Contains("no [[method]] is labelled 'nn-mc'"));
  CHECK_THAT(spec_error("box", kHeader + "[[artifacts]]\nkind = \"chain-traces\"\nposterior_cells = 80\n"),
             Catch::Contains("belong to kind gaussian-posterior"));
  CHECK_THAT(
      spec_error("cells", kHeader + "[[artifacts]]\nkind = \"gaussian-posterior\"\nposterior_box = [[0, 1], [0, 1]]\n"
                                    "posterior_cells = 10\n"),
      Catch::Contains("posterior_cells must be an integer from 50 to 10000"));
  CHECK_THAT(spec_error("key", kHeader + "[[artifacts]]\nkind = \"gaussian-posterior\"\nsplit = [0]\n"),
             Catch::Contains("unknown key 'split'"));
}

TEST_CASE("plan: artifact requests per job, and a method that does not offer a kind", "[artifacts][plan]") {
  const data::DatasetRegistry& registry = test::shipped_registry();
  PlanOptions options;
  options.data_dir = test::scratch_dir("artifacts", "data").string();
  const ExperimentSpec s = spec_from("plan", kHeader + "[[artifacts]]\nkind = \"gaussian-posterior\"\n");
  const Plan plan = make_plan(s, registry, options);
  REQUIRE(plan.jobs.size() == 2);
  for (const Job& job : plan.jobs)  // without a list of methods: those that offer the kind
    CHECK(job.artifacts.size() == (job.key.method_label == "laplace" ? 1u : 0u));

  const ExperimentSpec wrong =
      spec_from("wrong", kHeader + "[[artifacts]]\nkind = \"gaussian-posterior\"\nmethods = [\"linear\"]\n");
  CHECK_THROWS_WITH(
      make_plan(wrong, registry, options),
      Catch::Contains("method linear (linear) does not offer it; methods that do: vi-full, vi-fa, vi-diag, "
                      "laplace, laplace-diag"));
  const ExperimentSpec none = spec_from("none", kHeader + "[[artifacts]]\nkind = \"chain-traces\"\n");
  CHECK_THROWS_WITH(make_plan(none, registry, options), Catch::Contains("no method of the spec offers it"));
  const ExperimentSpec twice = spec_from("twice", kHeader +
                                                      "[[artifacts]]\nkind = \"gaussian-posterior\"\n"
                                                      "[[artifacts]]\nkind = \"gaussian-posterior\"\nsplits = [0]\n");
  CHECK_THROWS_WITH(make_plan(twice, registry, options),
                    Catch::Contains("two [[artifacts]] of kind gaussian-posterior apply to bb-toy/laplace/split 0"));
}

TEST_CASE("registry: every method offers exactly the artifact kinds it declares, and predicts on no rows",
          "[artifacts][methods]") {
  Rng data_rng(3);
  RegressionData train{Eigen::MatrixXd(24, 2), Eigen::VectorXd(24)};
  for (Eigen::Index i = 0; i < 24; ++i) {
    train.X(i, 0) = standard_normal(data_rng);
    train.X(i, 1) = standard_normal(data_rng);
    train.y[i] = std::sin(train.X(i, 0)) + 0.1 * standard_normal(data_rng);
  }
  const Eigen::MatrixXd X_test = train.X.topRows(5);
  // Small settings (each method's quick_options): the check is what each model offers, not how
  // well it fits.
  for (const MethodEntry& method : method_registry()) {
    INFO(method.name);
    if (!method.quick_options)
      FAIL("method '" << method.name
                      << "' has no quick_options: give its registration in methods/registry.cpp settings under "
                         "which a fit takes well under a second (quick(make_entry<...>(...), {{\"epochs\", \"2\"}}), "
                         "or {} if its defaults are quick)");
    Rng rng(1);
    const auto model = method.fit(train, *method.quick_options, rng);
    // A figure experiment's test part has no rows, and fit_and_score predicts on it all the same
    // (linear's and the GP's triangular solves once bound a null reference there: UBSan).
    CHECK(model->predict(Eigen::MatrixXd(0, 2))->size() == 0);
    std::vector<std::string> offered;
    if (model->parameter_marginals()) offered.push_back("parameter-marginals");
    if (model->gaussian_posterior()) offered.push_back("gaussian-posterior");
    if (model->chain_traces(train, X_test)) offered.push_back("chain-traces");
    CHECK(offered == method.artifacts);
    if (model->gaussian_posterior()) {
      const auto q = *model->gaussian_posterior();
      CHECK(q.names.size() == static_cast<std::size_t>(q.mean.size()));
      CHECK(q.covariance.rows() == q.mean.size());
      const auto log_joint = model->log_joint(train, q.mean.transpose());
      REQUIRE(log_joint);
      CHECK(std::isfinite((*log_joint)[0]));
    }
  }
}

TEST_CASE("store: artifact tables and requests round-trip, merge and replace", "[artifacts][store]") {
  const fs::path dir = test::scratch_dir("artifacts", "store");
  JobRecord job;
  job.key = {"art", "bb-toy", "laplace", "0123456789abcdef", 0};
  job.method = "laplace";
  job.status = "ok";
  job.evaluations.push_back(Evaluation{0, 6, {{"kl", 4.5}}, {}, {}});
  job.artifact_requests["parameter-marginals"] = "kind=parameter-marginals";
  job.artifacts.push_back(sample_table());
  ArtifactTable empty{"chain-traces", "chain_rhat", {}};
  empty.add_text("nothing", {}).add("none", {});
  job.artifacts.push_back(empty);
  {
    ResultsStore store((dir / "a").string());
    store.record(job);
  }
  ResultsStore reader((dir / "a").string(), ResultsStore::Access::read_only);
  const auto check = [&](const std::vector<JobRecord>& jobs, bool with_tables) {
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].artifact_requests == job.artifact_requests);
    if (!with_tables) {
      CHECK(jobs[0].artifacts.empty());
      return;
    }
    REQUIRE(jobs[0].artifacts.size() == 2);
    const ArtifactTable& t = jobs[0].artifacts[1];  // by table name: parameter_marginals after chain_rhat
    CHECK(jobs[0].artifacts[0].name == "chain_rhat");
    CHECK(jobs[0].artifacts[0].columns[0].text);
    CHECK(jobs[0].artifacts[0].rows() == 0);
    CHECK(t.kind == "parameter-marginals");
    CHECK(t.column("parameter").texts == std::vector<std::string>{"w", "phi, a comma", ""});
    JobComparison c = compare_jobs(job, jobs[0]);
    CHECK(c.differing == 0);
  };
  check(reader.jobs("art", true), true);
  check(reader.jobs("art", false), false);

  ResultsStore merged((dir / "b").string());
  CHECK(merged.merge_from((dir / "a").string()) == 1);
  check(merged.jobs("art", true), true);
  JobRecord replaced = job;  // a rerun without artifacts replaces them
  replaced.artifacts.clear();
  replaced.artifact_requests.clear();
  merged.record(replaced);
  CHECK(merged.jobs("art", true)[0].artifacts.empty());
  CHECK(merged.jobs("art", true)[0].artifact_requests.empty());
}

TEST_CASE("a finished job without an artifact asked for is not finished", "[artifacts][selection]") {
  ArtifactSpec request{"parameter-marginals", {}, {}, {}, std::nullopt};
  Job job;
  job.artifacts = {&request};
  JobRecord record;
  record.status = "ok";
  CHECK_FALSE(is_finished(job, &record));
  record.artifact_requests["parameter-marginals"] = "kind=parameter-marginals";
  CHECK(is_finished(job, &record));
  ArtifactSpec changed{"gaussian-posterior", {}, {}, {}, ArtifactSpec::PosteriorGrid{}};
  job.artifacts = {&changed};
  record.artifact_requests["gaussian-posterior"] = "kind=gaussian-posterior";  // asked for without a box then
  CHECK_FALSE(is_finished(job, &record));
  record.status = "failed";
  job.artifacts.clear();
  CHECK_FALSE(is_finished(job, &record));
  CHECK_FALSE(is_finished(job, nullptr));
}

TEST_CASE("compare_jobs: a changed, missing or renamed artifact column differs", "[artifacts][verify]") {
  JobRecord a;
  a.status = "ok";
  a.artifacts.push_back(sample_table());
  JobRecord b = a;
  CHECK(compare_jobs(a, b).differing == 0);
  b.artifacts[0].columns[1].numbers[0] = std::nextafter(0.1, 1.0);
  JobComparison c = compare_jobs(a, b);
  CHECK(c.differing == 1);
  CHECK(c.worst == "parameter_marginals.mean[0]");
  b = a;
  b.artifacts[0].columns[0].texts[1] = "phi";
  CHECK(compare_jobs(a, b).worst == "parameter_marginals.parameter[1]");
  b = a;
  b.artifacts[0].columns[2].name = "sd2";
  CHECK_THAT(compare_jobs(a, b).worst, Catch::Contains("the rerun's column is sd2"));
  b.artifacts.clear();
  CHECK(compare_jobs(a, b).worst == "artifact table parameter_marginals missing in the rerun");
}

TEST_CASE("artifact CSV: 17 significant digits read back to the same bits", "[artifacts][csv]") {
  const ArtifactTable t = sample_table();
  const std::string text = artifact_csv({{"bb-toy", "laplace", 3, &t}});
  const auto rows = csv_rows(text, "t.csv");
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].text == "dataset,method,split,parameter,mean,sd");
  CHECK(rows[2].fields[3] == "phi, a comma");
  CHECK(std::strtod(rows[1].fields[5].c_str(), nullptr) == 1.0 / 3.0);
  CHECK(std::strtod(rows[2].fields[4].c_str(), nullptr) == -2.5e-300);
  CHECK(rows[3].fields[4] == "nan");
}
