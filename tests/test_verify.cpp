// Comparing a stored job with its rerun (`bnnbench verify`): every stored number counts,
// timings do not, and the largest difference is the one reported.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "experiments/src/export/job_csv.hpp"
#include "experiments/src/export/published_jobs.hpp"
#include "experiments/src/io/csv.hpp"
#include "experiments/src/report/report.hpp"
#include "experiments/src/verify/split_comparison.hpp"
#include "experiments/src/verify/verify.hpp"
#include "tests/support/errors.hpp"

using namespace bnn::exp;

namespace {

JobRecord sample_job() {
  JobRecord job;
  job.key = {"exp", "boston", "pbp", "0123456789abcdef", 3};
  job.status = "ok";
  job.fit_status = "converged";
  job.fit_iterations = 40;
  Evaluation e;
  e.metrics = {{"rmse", 3.1}, {"test_ll", -2.5}, {"fit_seconds", 0.7}};
  e.test_rows = {4, 9, 11};
  e.points.log_density = {-2.0, -1.5, -3.0};
  e.points.squared_error = {1.0, 0.25, 4.0};
  e.points.crps = {0.5, 0.3, 1.1};
  e.points.covered95 = {1, 1, 0};
  e.points.mean = {20.0, 21.5, 19.0};
  e.points.variance = {2.0, 2.5, 3.0};
  job.evaluations.push_back(e);
  return job;
}

}  // namespace

TEST_CASE("relative_difference: zero only for identical numbers", "[verify]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(relative_difference(1.5, 1.5) == 0.0);
  CHECK(relative_difference(0.0, -0.0) == 0.0);
  CHECK(relative_difference(nan, nan) == 0.0);
  CHECK(relative_difference(inf, inf) == 0.0);
  CHECK(relative_difference(2.0, 1.0) == 0.5);
  CHECK(relative_difference(-1.0, 1.0) == 2.0);
  CHECK(relative_difference(1.0, std::nextafter(1.0, 2.0)) > 0.0);
  CHECK(std::isinf(relative_difference(nan, 1.0)));
  CHECK(std::isinf(relative_difference(inf, -inf)));
  CHECK(std::isinf(relative_difference(inf, 1e300)));
}

TEST_CASE("compare_jobs: an identical rerun, timings aside", "[verify]") {
  const JobRecord stored = sample_job();
  JobRecord rerun = stored;
  rerun.evaluations[0].metrics["fit_seconds"] = 9.9;
  rerun.fit_seconds = 12.0;
  const JobComparison c = compare_jobs(stored, rerun);
  CHECK(c.differing == 0);
  CHECK(c.max_relative == 0.0);
  CHECK(c.worst.empty());
  // fit iterations + 2 metrics + 7 arrays of 3
  CHECK(c.values == 1 + 2 + 7 * 3);
  CHECK(is_timing_metric("fit_seconds"));
  CHECK_FALSE(is_timing_metric("rmse"));
}

TEST_CASE("compare_jobs: finds each kind of difference and reports the largest", "[verify]") {
  const JobRecord stored = sample_job();
  SECTION("a metric and a prediction") {
    JobRecord rerun = stored;
    rerun.evaluations[0].metrics["rmse"] = 3.1 * (1 + 1e-12);
    rerun.evaluations[0].points.variance[2] = 3.0 * (1 + 1e-6);
    const JobComparison c = compare_jobs(stored, rerun);
    CHECK(c.differing == 2);
    CHECK(c.max_relative == Approx(1e-6).epsilon(1e-4));
    CHECK(c.worst == "points variance[2]");
    CHECK_FALSE(c.rerun_failed);
  }
  SECTION("the fit's iterations and status") {
    JobRecord rerun = stored;
    rerun.fit_iterations = 41;
    CHECK(compare_jobs(stored, rerun).worst == "fit iterations");
    rerun = stored;
    rerun.fit_status = "max_iterations";
    const JobComparison c = compare_jobs(stored, rerun);
    CHECK(std::isinf(c.max_relative));
    CHECK(c.worst.find("fit status 'converged', rerun 'max_iterations'") != std::string::npos);
  }
  SECTION("missing pieces") {
    JobRecord rerun = stored;
    rerun.evaluations[0].metrics.erase("test_ll");
    CHECK(compare_jobs(stored, rerun).worst == "metric test_ll missing in the rerun");
    rerun = stored;
    rerun.evaluations[0].points.mean.pop_back();
    CHECK(compare_jobs(stored, rerun).worst == "points mean: 3 stored values, 2 in the rerun");
    rerun = stored;
    rerun.evaluations[0].step = 1;
    CHECK(compare_jobs(stored, rerun).worst == "evaluation step 0 missing in the rerun");
  }
  SECTION("a failed rerun") {
    JobRecord rerun = stored;
    rerun.status = "failed";
    rerun.error = "diverged";
    const JobComparison c = compare_jobs(stored, rerun);
    CHECK(c.rerun_failed);
    CHECK(c.worst == "rerun failed: diverged");
  }
  SECTION("a store without points compares the metrics only") {
    JobRecord without_points = stored;
    without_points.evaluations[0].points = {};
    without_points.evaluations[0].test_rows.clear();
    JobRecord rerun = stored;
    rerun.evaluations[0].points.mean[0] = 0.0;
    const JobComparison c = compare_jobs(without_points, rerun);
    CHECK(c.differing == 0);
    CHECK(c.values == 3);
  }
  SECTION("grid predictions") {
    GridPredictions grid;
    grid.mean = {1.0, 2.0};
    grid.variance = {0.1, 0.2};
    grid.lower95 = {0.0, 1.0};
    grid.upper95 = {2.0, 3.0};
    GridPredictions other = grid;
    other.upper95[1] = 3.5;
    const JobComparison c = compare_jobs(stored, stored, grid, other);
    CHECK(c.differing == 1);
    CHECK(c.worst == "grid upper95[1]");
    CHECK(compare_jobs(stored, stored, grid, std::nullopt).worst == "grid predictions missing in the rerun");
    CHECK(compare_jobs(stored, stored, grid, grid).differing == 0);
  }
}

TEST_CASE("compare_report_tables: a rerun's table against a published one", "[verify]") {
  const std::string header = "dataset,method,metric,value,se,n_splits,paper_value,paper_se\n";
  const std::string published = header +
                                "boston,pbp,rmse,3.01,0.19,20,3.01,0.18\n"
                                "boston,pbp,test_ll,-2.576,0.092,20,-2.574,0.089\n"
                                "boston,pbp,fit_seconds,0.15,0.001,20,13,\n"
                                "boston,vi,rmse,3.37,0.18,20,4.32,0.29\n"
                                "yacht,pbp,rmse,,,0,1.015,0.054\n";
  SECTION("the same digits") {
    const std::string ours = header +
                             "boston,pbp,rmse,3.01,0.19,20,3.01,0.18\n"
                             "boston,pbp,test_ll,-2.576,0.092,20,,\n"
                             "boston,pbp,fit_seconds,0.31,0.002,20,13,\n"  // timings differ: not compared
                             "boston,vi,rmse,,,0,4.32,0.29\n";             // not rerun
    const TableComparison c = compare_report_tables(ours, published, "report.csv", 0.0);
    CHECK(c.compared == 2);
    CHECK(c.identical == 2);
    CHECK(c.not_rerun == 1);
    CHECK(c.partial == 0);
    CHECK(c.not_published == 0);
    CHECK(c.differing.empty());
  }
  SECTION("cells of ours that the published table lacks are counted") {
    const std::string ours = header +
                             "boston,pbp,rmse,3.01,0.19,20,3.01,0.18\n"
                             "wine,pbp,rmse,0.63,0.01,20,0.635,\n"    // no such row published
                             "yacht,pbp,rmse,1.04,0.05,20,1.015,\n"   // published without a value
                             "wine,pbp,fit_seconds,0.1,0.01,20,,\n";  // timings are not counted
    const TableComparison c = compare_report_tables(ours, published, "report.csv", 0.0);
    CHECK(c.compared == 1);
    CHECK(c.not_published == 2);
  }
  SECTION("a cell over fewer splits is not compared") {
    const std::string ours = header + "boston,pbp,rmse,2.9,0.3,4,3.01,0.18\n";
    const TableComparison c = compare_report_tables(ours, published, "report.csv", 0.0);
    CHECK(c.partial == 1);
    CHECK(c.compared == 0);
    CHECK(c.differing.empty());
  }
  SECTION("a value or a standard error that differs") {
    const std::string ours = header +
                             "boston,pbp,rmse,3.0100001,0.19,20,3.01,0.18\n"
                             "boston,pbp,test_ll,-2.576,0.093,20,,\n"
                             "boston,vi,rmse,3.37,0.18,20,,\n";
    const TableComparison c = compare_report_tables(ours, published, "report.csv", 1e-6);
    CHECK(c.compared == 3);
    CHECK(c.identical == 1);
    CHECK(c.within == 1);  // 3.0100001 against 3.01: 3.3e-8
    REQUIRE(c.differing.size() == 1);
    CHECK(c.differing[0].metric == "test_ll");
    CHECK(c.differing[0].ours_se == "0.093");
    CHECK(c.differing[0].relative == Approx(0.001 / 0.093));
  }
  SECTION("malformed tables name the file and line") {
    CHECK(bnn::test::invalid_argument_message([&] {
            compare_report_tables(header, "a,b\n", "pub.csv", 0.0);
          }).find("pub.csv, line 1: not a report table") == 0);
    CHECK(bnn::test::invalid_argument_message([&] {
            compare_report_tables(header, header + "boston,pbp,rmse,x3,0.1\n", "pub.csv", 0.0);
          }) == "pub.csv, line 2, column 4: non-numeric value 'x3'");
    CHECK(bnn::test::invalid_argument_message([&] {
            compare_report_tables(header, header + "boston,pbp\n", "pub.csv", 0.0);
          }) == "pub.csv, line 2: 2 fields, but a report row has at least 5");
    CHECK(bnn::test::invalid_argument_message([&] { compare_report_tables(header, "", "pub.csv", 0.0); }) ==
          "pub.csv: the file is empty");
  }
}

TEST_CASE("split_csv_line and csv_field: commas and quotes survive a round trip", "[verify]") {
  CHECK(split_csv_line("a,b,,c") == std::vector<std::string>{"a", "b", "", "c"});
  CHECK(split_csv_line("") == std::vector<std::string>{""});
  for (const std::string text : {"plain", "", "a,b", "say \"hi\"", "x;y=1,2", "\""}) {
    const std::string line = "left," + csv_field(text) + ",right";
    CHECK(split_csv_line(line) == std::vector<std::string>{"left", text, "right"});
  }
  CHECK(csv_field("two\nlines, one record") == "\"two lines, one record\"");
  CHECK(csv_field("no quoting") == "no quoting");
  CHECK(bnn::test::invalid_argument_message([] { split_csv_line("a,\"open"); }) == "unterminated quoted field");
  for (const double v : {0.1, -2.5766666666666667, 1e-300, 3.0, std::nextafter(1.0, 2.0)})
    CHECK(std::strtod(exact_number(v).c_str(), nullptr) == v);
}

TEST_CASE("compare_split_tables: a partial rerun against the committed run, job by job", "[verify]") {
  const std::string header = "dataset,method,config_hash,split,status,metric,value\n";
  const std::string published = header +
                                "boston,pbp,aaaa,0,ok,rmse,3.0100000000000002\n"
                                "boston,pbp,aaaa,0,ok,test_ll,-2.5760000000000001\n"
                                "boston,pbp,aaaa,0,ok,fit_seconds,0.14999999999999999\n"
                                "boston,pbp,aaaa,1,ok,rmse,2.8999999999999999\n"
                                "boston,pbp,aaaa,2,ok,rmse,3.2000000000000002\n"
                                "boston,vi,bbbb,0,ok,rmse,3.3700000000000001\n";
  CHECK(is_split_table(published));
  CHECK_FALSE(is_split_table("dataset,method,metric,value,se\n"));
  SECTION("the same numbers, other timings, two splits rerun") {
    const std::string ours = header +
                             "boston,pbp,aaaa,0,ok,rmse,3.0100000000000002\n"
                             "boston,pbp,aaaa,0,ok,test_ll,-2.5760000000000001\n"
                             "boston,pbp,aaaa,0,ok,fit_seconds,0.5\n"
                             "boston,pbp,aaaa,0,ok,crps,1.5\n"  // a metric the published run lacks
                             "boston,pbp,aaaa,1,ok,rmse,2.8999999999999999\n"
                             "boston,vi,cccc,0,ok,rmse,3.1000000000000001\n"  // another configuration
                             "yacht,pbp,aaaa,0,ok,rmse,1.0\n";                // not published
    const SplitComparison c = compare_split_tables(ours, published, "splits.csv", 0.0);
    CHECK(c.jobs_compared == 2);
    CHECK(c.jobs_identical == 2);
    CHECK(c.values_compared == 3);
    CHECK(c.not_rerun == 2);
    CHECK(c.other_configuration == 1);
    CHECK(c.not_published == 2);
    CHECK(c.differing.empty());
  }
  SECTION("a value one ulp away, a missing metric and a failed job differ") {
    const std::string ours = header +
                             "boston,pbp,aaaa,0,ok,rmse,3.0100000000000007\n"
                             "boston,pbp,aaaa,0,ok,test_ll,-2.5760000000000001\n"
                             "boston,pbp,aaaa,1,ok,test_ll,-1\n"  // rmse missing
                             "boston,pbp,aaaa,2,failed,rmse,3.2000000000000002\n";
    SplitComparison c = compare_split_tables(ours, published, "splits.csv", 0.0);
    CHECK(c.jobs_compared == 3);
    CHECK(c.jobs_differing == 3);
    REQUIRE(c.differing.size() == 3);
    CHECK(c.differing[0].metric == "rmse");
    CHECK(c.differing[0].split == 0);
    CHECK(c.differing[0].relative == Approx(5e-16 / 3.01).epsilon(0.5));
    CHECK(c.differing[1].ours.empty());
    CHECK(std::isinf(c.differing[1].relative));
    CHECK(c.differing[2].metric == "status");
    CHECK(c.differing[2].ours == "failed");
    c = compare_split_tables(ours, published, "splits.csv", 1e-12);
    CHECK(c.jobs_within == 1);
    CHECK(c.jobs_differing == 2);
  }
  SECTION("malformed files name the file and line") {
    CHECK(bnn::test::invalid_argument_message([&] {
            compare_split_tables(header, "a,b\n", "s.csv", 0.0);
          }).find("s.csv, line 1: not a per-split table") == 0);
    CHECK(bnn::test::invalid_argument_message([&] {
            compare_split_tables(header, header + "boston,pbp,aaaa,x,ok,rmse,1\n", "s.csv", 0.0);
          }) == "s.csv, line 2, column 4: split 'x' is not a non-negative integer");
    CHECK(bnn::test::invalid_argument_message([&] {
            compare_split_tables(header, header + "boston,pbp,aaaa,0,ok,rmse,1e\n", "s.csv", 0.0);
          }) == "s.csv, line 2, column 7: non-numeric value '1e'");
    CHECK(bnn::test::invalid_argument_message([&] {
            compare_split_tables(header, header + "boston,pbp,aaaa,0,ok,rmse\n", "s.csv", 0.0);
          }) == "s.csv, line 2: 6 fields, but a row has 7");
    CHECK(bnn::test::invalid_argument_message([&] {
            compare_split_tables(header, header + "boston,pbp,aaaa,0,ok,rmse,1\nboston,pbp,aaaa,0,ok,rmse,2\n", "s.csv",
                                 0.0);
          }) == "s.csv, line 3: metric rmse appears twice for boston/pbp/split 0");
    CHECK(bnn::test::invalid_argument_message([&] { compare_split_tables(header, "", "s.csv", 0.0); }) ==
          "s.csv: the file is empty");
  }
}

TEST_CASE("render_job_csv: one row per job, text fields quoted", "[verify]") {
  JobRecord job = sample_job();
  job.seed = 42;
  job.config = "method=pbp|options=hidden_layers=50;epochs=40|seed=1";
  job.warnings = "R-hat of predictions is above 1.1; 3 divergent trajectories, after warm-up";
  job.diagnostics = "rhat=1.2;ess=7.5";
  const std::string text = render_job_csv({job});
  const auto newline = text.find('\n');
  const auto header = split_csv_line(text.substr(0, newline));
  const auto row = split_csv_line(text.substr(newline + 1, text.size() - newline - 2));
  REQUIRE(header.size() == row.size());
  const auto field = [&](const std::string& name) {
    return row[static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin())];
  };
  CHECK(field("dataset") == "boston");
  CHECK(field("seed") == "42");
  CHECK(field("config") == job.config);
  CHECK(field("fit_iterations") == "40");
  CHECK(field("warnings") == job.warnings);
  CHECK(field("diagnostics") == job.diagnostics);
}

TEST_CASE("compare_split_tables: a job stored before its method gained options", "[verify]") {
  const std::string header = "dataset,method,config_hash,split,status,metric,value\n";
  const std::string published = header + "boston,pbp,old0,0,ok,rmse,3\nboston,pbp,old0,1,ok,rmse,2\n";
  const std::string ours = header + "boston,pbp,new0,0,ok,rmse,3\n";
  SplitComparison c = compare_split_tables(ours, published, "s.csv", 0.0);
  CHECK(c.jobs_compared == 0);
  CHECK(c.other_configuration == 1);
  c = compare_split_tables(ours, published, "s.csv", 0.0, [](const std::string& theirs, const std::string& mine) {
    return theirs == "old0" && mine == "new0";
  });
  CHECK(c.jobs_compared == 1);
  CHECK(c.jobs_older == 1);
  CHECK(c.jobs_identical == 1);
  CHECK(c.not_rerun == 1);
  CHECK(c.other_configuration == 0);

  // From configuration texts: the published one lacks an option that ours has at its default.
  const std::string jobs_header = "dataset,method,config_hash,split,method_name,config,seed\n";
  const auto published_configs = read_job_configs(
      jobs_header + "boston,pbp,old0,0,pbp,\"method=pbp|options=hidden_layers=50|seed=1\",7\n", "jobs.csv");
  REQUIRE(published_configs.size() == 1);
  const auto rule =
      older_configuration_rule(published_configs, {{"new0", "method=pbp|options=hidden_layers=50;epochs=40|seed=1"},
                                                   {"new1", "method=pbp|options=hidden_layers=50;epochs=3|seed=1"}});
  CHECK(rule("old0", "new0"));
  CHECK_FALSE(rule("old0", "new1"));     // not the default: another computation
  CHECK_FALSE(rule("unknown", "new0"));  // no configuration text: not matched
  CHECK(bnn::test::invalid_argument_message([] { read_job_configs("dataset,config\n", "jobs.csv"); }) ==
        "jobs.csv, line 1: no column 'config_hash' (expected the header of `report --format jobs`)");
  CHECK(bnn::test::invalid_argument_message([&] { read_job_configs(jobs_header + "a,b\n", "jobs.csv"); }) ==
        "jobs.csv, line 2: 2 fields, but the header has 7");
}

TEST_CASE("compare_jobs: a stored record must be complete, with the seed its key derives", "[verify]") {
  const JobRecord rerun = sample_job();
  JobRecord stored = rerun;
  stored.evaluations[0].metrics.erase("rmse");  // a row deleted from the store
  CHECK(compare_jobs(stored, rerun).worst == "metric rmse missing in the store");
  stored = rerun;
  stored.evaluations[0].points = {};  // a step's prediction row deleted...
  stored.evaluations[0].test_rows.clear();
  CHECK(compare_jobs(stored, rerun, std::nullopt, std::nullopt, true).worst ==
        "per-point predictions missing in the store");
  CHECK(compare_jobs(stored, rerun).differing == 0);  // ... or a store merged --without-points
  stored = rerun;
  Evaluation extra = rerun.evaluations[0];
  extra.step = 1;
  JobRecord longer = rerun;
  longer.evaluations.push_back(extra);  // an active-learning step deleted from the store
  CHECK(compare_jobs(stored, longer).worst == "evaluation step 1 missing in the store");
  stored.seed = 7;
  CHECK(compare_jobs(stored, rerun).worst == "stored seed 7, but the job's key derives 0");
  stored = rerun;
  stored.data_hash = "aaaaaaaaaaaaaaaa";
  JobRecord other_data = rerun;
  other_data.data_hash = "bbbbbbbbbbbbbbbb";
  CHECK(
      compare_jobs(stored, other_data).worst ==
      "computed from other data (data hash aaaaaaaaaaaaaaaa, now bbbbbbbbbbbbbbbb): a data or split file changed since");
  stored.data_hash.clear();  // stored before bnnbench kept the hash: not a difference
  CHECK(compare_jobs(stored, other_data).differing == 0);
}

TEST_CASE("published jobs: splits.csv and jobs.csv read back to the stored numbers, bit for bit", "[verify][report]") {
  JobRecord a = sample_job();
  a.key.experiment = "exp";
  a.method = "pbp";
  a.config = "method=pbp|options=epochs=40|seed=1";
  a.seed = 18446744073709551615ULL;
  a.n_train = 455;
  a.fit_seconds = 1.0 / 3.0;
  a.diagnostics = "noise=0.1";
  a.data_hash = "0123456789abcdef";
  a.evaluations[0].metrics["rmse"] = 0.1 + 0.2;  // 17 digits needed
  JobRecord b = a;
  b.key.split = 4;
  b.status = "failed";
  b.error = "diverged, \"badly\"";
  Evaluation later = a.evaluations[0];
  later.step = 2;
  later.metrics["rmse"] = -1e-300;
  b.evaluations.push_back(later);
  const std::vector<JobRecord> jobs = {a, b};
  const auto back = published_jobs("exp", render_split_csv(jobs), "splits.csv", render_job_csv(jobs), "jobs.csv");
  REQUIRE(back.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    INFO("job " << i);
    CHECK(back[i].key == jobs[i].key);
    CHECK(back[i].status == jobs[i].status);
    CHECK(back[i].seed == jobs[i].seed);
    CHECK(back[i].config == jobs[i].config);
    CHECK(back[i].error == jobs[i].error);
    CHECK(back[i].n_train == jobs[i].n_train);
    CHECK(back[i].fit_seconds == jobs[i].fit_seconds);
    CHECK(back[i].diagnostics == jobs[i].diagnostics);
    CHECK(back[i].data_hash == jobs[i].data_hash);
    REQUIRE(back[i].evaluations.size() == jobs[i].evaluations.size());
    for (std::size_t e = 0; e < jobs[i].evaluations.size(); ++e) {
      CHECK(back[i].evaluations[e].step == jobs[i].evaluations[e].step);
      CHECK(back[i].evaluations[e].metrics == jobs[i].evaluations[e].metrics);
    }
  }
  CHECK_THAT(bnn::test::invalid_argument_message([] { published_jobs("exp", "dataset,method\n", "s.csv", "", ""); }),
             Catch::Contains("s.csv, line 1: not a per-split table"));
}
