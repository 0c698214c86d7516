// Which stored jobs stand for the current configuration: a job recorded before an option
// existed is reused (by the report and by a resumed run) while that option is at its default.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "datasets/src/registry.hpp"
#include "experiments/src/plan/plan.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/report/report.hpp"
#include "experiments/src/run/runner.hpp"
#include "experiments/src/spec/spec.hpp"
#include "experiments/src/store/store.hpp"
#include "methods/registry.hpp"
#include "tests/support/data_mirror.hpp"

using namespace bnn;
using namespace bnn::exp;

namespace {

std::string scratch(const std::string& name) { return test::scratch_dir("selection", name).string(); }

// `text` without its "name=value" option (as a version before that option existed wrote it).
std::string without_option(std::string text, const std::string& name, const std::string& value) {
  const std::string item = name + "=" + value;
  const auto at = text.find(item);
  REQUIRE(at != std::string::npos);
  const bool last = text.compare(at + item.size(), 1, "|") == 0;
  // Drop the item with the ';' that joins it to its neighbour.
  if (last)
    text.erase(at - 1, item.size() + 1);
  else
    text.erase(at, item.size() + 1);
  return text;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

struct Quickstart {
  const data::DatasetRegistry& registry = test::shipped_registry();
  ExperimentSpec spec = load_experiment(find_experiment_file("quickstart"));
  Quickstart() {
    spec.datasets.resize(1);  // pbp-cubic, 5 folds
    spec.methods.resize(1);   // linear
    spec.report.metrics = {"rmse"};
  }
  ConfigIdentity identity() const {
    return config_identity(spec, spec.datasets[0], registry.find(spec.datasets[0].name), spec.methods[0]);
  }
  Plan plan() const { return make_plan(spec, registry, PlanOptions{}); }
};

RunOptions quiet_run() {
  RunOptions options;
  options.threads = 1;
  options.quiet = true;
  return options;
}

}  // namespace

TEST_CASE("configuration texts: same, older (an option added since, at its default), different", "[selection]") {
  Quickstart q;
  const std::string current = q.identity().canonical;
  REQUIRE_THAT(current, Catch::Contains("optimize_prior_precision=false|seed="));
  CHECK(compare_config(current, current).match == ConfigMatch::same);

  const std::string older = without_option(current, "optimize_prior_precision", "false");
  const ConfigComparison c = compare_config(older, current);
  CHECK(c.match == ConfigMatch::older);
  CHECK(c.missing_options == std::vector<std::string>{"optimize_prior_precision"});
  const std::string two_older = without_option(older, "noise_shape", "1");
  CHECK(compare_config(two_older, current).missing_options ==
        std::vector<std::string>{"noise_shape", "optimize_prior_precision"});

  // The same options in another order: the same computation, nothing missing.
  const std::string reordered = replace_all(current, "noise_shape=1;noise_rate=1", "noise_rate=1;noise_shape=1");
  REQUIRE(reordered != current);
  CHECK(compare_config(reordered, current).match == ConfigMatch::older);
  CHECK(compare_config(reordered, current).missing_options.empty());

  // The missing option is not at its default now: a different computation.
  const std::string evidence = replace_all(current, "optimize_prior_precision=false", "optimize_prior_precision=true");
  CHECK(compare_config(older, evidence).match == ConfigMatch::different);
  // A recorded option with another value, another seed or protocol, an option that no
  // longer exists, another method, or text in another format.
  CHECK(compare_config(replace_all(older, "prior_precision=1;", "prior_precision=2;"), current).match ==
        ConfigMatch::different);
  CHECK(compare_config(replace_all(older, "|seed=1|", "|seed=2|"), current).match == ConfigMatch::different);
  CHECK(compare_config(replace_all(older, "5-fold", "10-fold"), current).match == ConfigMatch::different);
  CHECK(compare_config(replace_all(current, "fit_bias=true", "fit_bias=true;retired=1"), current).match ==
        ConfigMatch::different);
  CHECK(compare_config(replace_all(older, "method=linear", "method=pbp"), current).match == ConfigMatch::different);
  CHECK(compare_config("linear", current).match == ConfigMatch::different);
  CHECK(compare_config(replace_all(older, "fit_bias=true", "fit_bias"), current).match == ConfigMatch::different);
  // The current text itself changed in a non-option field: nothing older matches it.
  CHECK(compare_config(older, replace_all(current, "scale=original", "scale=normalized")).match ==
        ConfigMatch::different);
}

TEST_CASE("an option whose default is not the earlier behaviour: its earlier value keeps the old key", "[selection]") {
  // mc-dropout's `validation` came after jobs held out the last rows; its default draws them.
  const MethodEntry& method = find_method("mc-dropout");
  const auto info = std::find_if(method.options.begin(), method.options.end(),
                                 [](const OptionInfo& o) { return o.name == "validation"; });
  REQUIRE(info != method.options.end());
  CHECK(info->default_value == "random");
  CHECK(info->earlier_value == "last");
  const std::string last = method.canonical_config({{"validation", "last"}});
  const std::string random = method.canonical_config({});
  CHECK(last.find("validation=") == std::string::npos);  // the text jobs had before the option
  CHECK_THAT(random, Catch::Contains(";validation=random;"));
  CHECK(method.canonical_config({{"validation", "random"}}) == random);

  const auto config = [](const std::string& options) {
    return "method=mc-dropout|options=" + options + "|seed=1|protocol=published|scale=original";
  };
  // A stored text without the option is the earlier computation: the same as `last` now...
  CHECK(compare_config(config(last), config(last)).match == ConfigMatch::same);
  // ... and never the default's, although the option is missing from it.
  CHECK(compare_config(config(last), config(random)).match == ConfigMatch::different);
}

TEST_CASE("jobs stored before an option existed are resumed and reported, with a note", "[selection][runner][report]") {
  Quickstart q;
  ResultsStore store(scratch("older"));
  // Simulate a store written before `optimize_prior_precision` existed.
  Plan old_plan = q.plan();
  REQUIRE(old_plan.jobs.size() == 5);
  const std::string old_config = without_option(old_plan.jobs[0].config, "optimize_prior_precision", "false");
  for (auto& job : old_plan.jobs) {
    job.config = old_config;
    job.key.config_hash = "00000000000older";
  }
  CHECK(run_plan(q.spec, old_plan, store, quiet_run()).ran == 5);

  // The current version finds every job done and reports them.
  const Plan plan = q.plan();
  const RunSummary again = run_plan(q.spec, plan, store, quiet_run());
  CHECK(again.already_done == 5);
  CHECK(again.ran == 0);
  ReportData r = build_report(q.spec, q.registry, store, {});
  CHECK(r.cell("pbp-cubic", "linear", "rmse").n_splits == 5);
  CHECK_THAT(render_markdown(r),
             Catch::Contains("- Note: linear: jobs run before the option(s) optimize_prior_precision "
                             "existed, shown since those options are at their defaults: pbp-cubic 5 of 5\n"));

  // A job of the current configuration is preferred to the older one of its split.
  const std::vector<JobRecord> stored = store.jobs(q.spec.name, false);
  JobRecord newer = stored.front();
  newer.key.config_hash = q.identity().hash;
  newer.config = q.identity().canonical;
  newer.evaluations[0].metrics["rmse"] = 123.0;
  store.record(newer);
  const std::vector<JobRecord> now = store.jobs(q.spec.name, false);
  const JobSelection selection = select_jobs(now, "pbp-cubic", "linear", q.identity());
  REQUIRE(selection.jobs.size() == 5);
  CHECK(selection.jobs[0]->key.config_hash == q.identity().hash);
  CHECK(selection.older == 4);
  CHECK_FALSE(selection.other_configurations);
  // What --dry-run shows: split 0 done, the rest done before the option existed; a failure of
  // the current configuration does not hide a finished older job.
  JobRecord failed = stored[1];
  failed.key.config_hash = q.identity().hash;
  failed.config = q.identity().canonical;
  failed.status = "failed";
  store.record(failed);
  const std::vector<PlanStatus> status = plan_status(plan.jobs, store.jobs(q.spec.name, false));
  REQUIRE(status.size() == 1);
  CHECK(status[0].planned == 5);
  CHECK(status[0].done == 1);
  CHECK(status[0].done_older == 4);
  CHECK(status[0].retry + status[0].fresh == 0);

  // With the option set away from its default the old jobs are another configuration.
  q.spec.methods[0].options["optimize_prior_precision"] = "true";
  const std::vector<PlanStatus> evidence_status = plan_status(q.plan().jobs, store.jobs(q.spec.name, false));
  CHECK(evidence_status[0].fresh == 5);
  const RunSummary evidence = run_plan(q.spec, q.plan(), store, quiet_run());
  CHECK(evidence.already_done == 0);
  CHECK(evidence.ran == 5);
  r = build_report(q.spec, q.registry, store, {});
  CHECK(r.cell("pbp-cubic", "linear", "rmse").n_splits == 5);
  // The same selection decides which figure grids `report --format grid` writes.
  const std::set<JobKey> keys = selected_job_keys(q.spec, q.registry, store.jobs(q.spec.name, false));
  REQUIRE(keys.size() == 5);
  for (const JobKey& k : keys) CHECK(k.config_hash == q.identity().hash);
  const std::string md = render_markdown(r);
  CHECK_THAT(md, Catch::Contains("other options or seed"));
  CHECK_THAT(md, !Catch::Contains("run before the option"));
}
