// `report --paired-against`: paired differences against a baseline and average ranks, checked
// against a hand computation on two data sets, three methods and five splits.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "experiments/src/report/paired_comparison.hpp"

namespace {

using namespace bnn::exp;

// Data sets a and b, methods base (the baseline), m1, m2, splits 0-4. m2 lacks split 4 on a,
// and has no test_ll at all on b.
PairedInput example() {
  PairedInput in;
  in.experiment = "toy";
  in.datasets = {"a", "b"};
  in.methods = {"base", "m1", "m2"};
  in.source = "hand-made";
  SplitValues& rmse = in.values["rmse"];
  rmse[{"a", "base"}] = {{0, 1.0}, {1, 2.0}, {2, 3.0}, {3, 4.0}, {4, 5.0}};
  rmse[{"a", "m1"}] = {{0, 0.5}, {1, 2.0}, {2, 2.0}, {3, 4.5}, {4, 4.0}};
  rmse[{"a", "m2"}] = {{0, 1.5}, {1, 2.5}, {2, 3.5}, {3, 4.5}};
  rmse[{"b", "base"}] = {{0, 2.0}, {1, 2.0}, {2, 2.0}, {3, 2.0}, {4, 2.0}};
  rmse[{"b", "m1"}] = {{0, 1.0}, {1, 3.0}, {2, 2.0}, {3, 2.0}, {4, 2.0}};
  rmse[{"b", "m2"}] = {{0, 3.0}, {1, 3.0}, {2, 3.0}, {3, 3.0}, {4, 3.0}};
  SplitValues& ll = in.values["test_ll"];
  ll[{"a", "base"}] = {{0, -1.0}, {1, -2.0}, {2, -1.5}, {3, -1.0}, {4, -2.5}};
  ll[{"a", "m1"}] = {{0, -0.5}, {1, -2.0}, {2, -1.0}, {3, -1.5}, {4, -2.0}};
  ll[{"a", "m2"}] = {{0, -1.0}, {1, -1.0}, {2, -2.0}, {3, -3.0}};
  ll[{"b", "base"}] = {{0, -1.0}, {1, -1.0}, {2, -1.0}, {3, -1.0}, {4, -1.0}};
  ll[{"b", "m1"}] = {{0, -1.0}, {1, -1.0}, {2, -1.0}, {3, -1.0}, {4, -1.0}};
  return in;
}

const PairedDifference& row(const MetricComparison& m, const std::string& dataset, const std::string& method) {
  for (const auto& p : m.differences)
    if (p.dataset == dataset && p.method == method) return p;
  throw std::logic_error("no row " + dataset + "/" + method);
}

const MethodRank& rank_of(const MetricComparison& m, const std::string& method) {
  for (const auto& r : m.ranks)
    if (r.method == method) return r;
  throw std::logic_error("no rank of " + method);
}

}  // namespace

TEST_CASE("paired comparison: differences, se, z and wins against a hand computation", "[report][paired]") {
  const PairedComparison c = paired_comparison(example(), "base");
  REQUIRE(c.metrics.size() == 2);
  const MetricComparison& rmse = c.metrics[0];
  const MetricComparison& ll = c.metrics[1];
  CHECK(rmse.metric == "rmse");
  CHECK_FALSE(rmse.higher_is_better);
  CHECK(ll.higher_is_better);
  CHECK(rmse.differences.size() == 4);  // a and b x m1 and m2

  // a/m1 RMSE: differences -0.5, 0, -1, 0.5, -1; mean -2/5 = -0.4; squared deviations
  // 0.01 + 0.16 + 0.36 + 0.81 + 0.36 = 1.70, variance 1.70/4 = 0.425, se = sqrt(0.425/5) =
  // sqrt(0.085) = 0.29154759; z = -0.4/0.29154759 = -1.37198868. Lower is better: wins at
  // splits 0, 2, 4, a tie at 1, a loss at 3.
  const PairedDifference& a1 = row(rmse, "a", "m1");
  CHECK(a1.n == 5);
  CHECK(a1.mean == Approx(-0.4));
  CHECK(a1.se == Approx(0.29154759));
  CHECK(a1.z == Approx(-1.37198868));
  CHECK(a1.wins == 3);
  CHECK(a1.ties == 1);
  CHECK(a1.losses == 1);

  // a/m2 RMSE: split 4 missing, so n = 4; every difference 0.5: se 0, z undefined; 4 losses.
  const PairedDifference& a2 = row(rmse, "a", "m2");
  CHECK(a2.n == 4);
  CHECK(a2.mean == Approx(0.5));
  CHECK(a2.se == 0.0);
  CHECK(std::isnan(a2.z));
  CHECK(a2.losses == 4);

  // b/m1 RMSE: differences -1, 1, 0, 0, 0; mean 0, variance 2/4, se sqrt(0.1) = 0.31622777, z 0.
  const PairedDifference& b1 = row(rmse, "b", "m1");
  CHECK(b1.mean == 0.0);
  CHECK(b1.se == Approx(0.31622777));
  CHECK(b1.z == 0.0);
  CHECK((b1.wins == 1 && b1.ties == 3 && b1.losses == 1));

  // a/m1 test LL (higher is better): differences 0.5, 0, 0.5, -0.5, 0.5; mean 1/5 = 0.2;
  // squared deviations 0.09 + 0.04 + 0.09 + 0.49 + 0.09 = 0.80, variance 0.2, se sqrt(0.2/5) =
  // 0.2, z 1.0; wins at 0, 2, 4, a tie at 1, a loss at 3.
  const PairedDifference& l1 = row(ll, "a", "m1");
  CHECK(l1.mean == Approx(0.2));
  CHECK(l1.se == Approx(0.2));
  CHECK(l1.z == Approx(1.0));
  CHECK((l1.wins == 3 && l1.ties == 1 && l1.losses == 1));

  // a/m2 test LL over splits 0-3: differences 0, 1, -0.5, -2; mean -1.5/4 = -0.375; squared
  // deviations 0.140625 + 1.890625 + 0.015625 + 2.640625 = 4.6875, variance 4.6875/3 = 1.5625,
  // sd 1.25, se 1.25/2 = 0.625, z -0.6; a win (1), a tie (0), two losses.
  const PairedDifference& l2 = row(ll, "a", "m2");
  CHECK(l2.n == 4);
  CHECK(l2.mean == Approx(-0.375));
  CHECK(l2.se == Approx(0.625));
  CHECK(l2.z == Approx(-0.6));
  CHECK((l2.wins == 1 && l2.ties == 1 && l2.losses == 2));

  // b/m2 has no test LL: no row, named as unpaired.
  CHECK(ll.differences.size() == 3);
  CHECK(ll.unpaired == std::vector<std::string>{"b (m2)"});
}

TEST_CASE("paired comparison: equal means share the average of their ranks", "[report][paired]") {
  CHECK(average_ranks({2.0, 1.0, 3.0}, false) == std::vector<double>{2.0, 1.0, 3.0});
  CHECK(average_ranks({2.0, 2.0, 3.0}, false) == std::vector<double>{1.5, 1.5, 3.0});
  CHECK(average_ranks({2.0, 2.0, 3.0}, true) == std::vector<double>{2.5, 2.5, 1.0});
  CHECK(average_ranks({1.0, 1.0, 1.0}, true) == std::vector<double>{2.0, 2.0, 2.0});

  // RMSE over the splits all three share. a (splits 0-3): base 10/4 = 2.5, m1 9/4 = 2.25,
  // m2 12/4 = 3.0 -> ranks 2, 1, 3. b (splits 0-4): base 2, m1 2, m2 3 -> 1.5, 1.5, 3.
  // Averages: base (2 + 1.5)/2 = 1.75, m1 (1 + 1.5)/2 = 1.25, m2 3.
  const MetricComparison rmse = paired_comparison(example(), "base").metrics[0];
  CHECK(rank_of(rmse, "base").average_rank == Approx(1.75));
  CHECK(rank_of(rmse, "m1").average_rank == Approx(1.25));
  CHECK(rank_of(rmse, "m2").average_rank == Approx(3.0));
  CHECK(rank_of(rmse, "m1").datasets == 2);
  CHECK(rmse.left_out.empty());
}

TEST_CASE("paired comparison: a data set where a method has no values is left out of the ranks", "[report][paired]") {
  // Test LL: b has no value of m2, so only a is ranked. a over splits 0-3: base -5.5/4 =
  // -1.375, m1 -5/4 = -1.25, m2 -7/4 = -1.75; higher is better -> ranks 2, 1, 3.
  const MetricComparison ll = paired_comparison(example(), "base").metrics[1];
  CHECK(ll.left_out == std::vector<std::string>{"b (no finished split of m2)"});
  CHECK(rank_of(ll, "base").average_rank == Approx(2.0));
  CHECK(rank_of(ll, "m1").average_rank == Approx(1.0));
  CHECK(rank_of(ll, "m2").average_rank == Approx(3.0));
  CHECK(rank_of(ll, "m2").datasets == 1);

  // A method with no value anywhere is not ranked, and does not drop every data set.
  PairedInput in = example();
  in.methods.push_back("never-run");
  const MetricComparison rmse = paired_comparison(in, "base").metrics[0];
  CHECK(rmse.without_values == std::vector<std::string>{"never-run"});
  CHECK(rmse.ranks.size() == 3);
  CHECK(rmse.left_out.empty());
}

TEST_CASE("paired comparison: an unknown baseline label is an error naming the labels", "[report][paired]") {
  REQUIRE_THROWS_AS(paired_comparison(example(), "m3"), std::invalid_argument);
  REQUIRE_THROWS_WITH(paired_comparison(example(), "m3"),
                      "--paired-against 'm3': toy has no method of that label (its labels: base, m1, m2)");
}

TEST_CASE("paired comparison: rendered as Markdown, CSV, LaTeX and HTML", "[report][paired]") {
  const PairedComparison c = paired_comparison(example(), "base");
  const std::string md = render_paired_markdown(c);
  CHECK_THAT(md, Catch::Contains("## test RMSE (rmse): method − base (lower is better)"));
  CHECK_THAT(md, Catch::Contains("better is lower test RMSE and higher test log-likelihood"));
  CHECK_THAT(md, Catch::Contains("| a | m1 | 5 | -0.40 | 0.29 | -1.37 | 3/1/1 |"));
  CHECK_THAT(md, Catch::Contains("| a | m2 | 4 | 0.5 | 0 | — | 0/0/4 |"));
  CHECK_THAT(md, Catch::Contains("| m1 | 1.25 | 2 | 1.00 | 1 |"));
  CHECK_THAT(md, Catch::Contains("- test_ll: left out of the ranks: b (no finished split of m2)"));
  const std::string csv = render_paired_csv(c);
  CHECK_THAT(csv, Catch::StartsWith("kind,metric,dataset,method,baseline,n,value,se,z,wins,ties,losses\n"));
  CHECK_THAT(csv, Catch::Contains("\npaired,test_ll,a,m2,base,4,-0.375,0.625,-0.6,1,1,2\n"));
  CHECK_THAT(csv, Catch::Contains("\npaired,rmse,a,m2,base,4,0.5,0,,0,0,4\n"));
  CHECK_THAT(csv, Catch::Contains("\nrank,rmse,,base,base,2,1.75,,,,,\n"));
  CHECK_THAT(render_paired_latex(c), Catch::Contains("a & m1 & 5 & $-0.40$ & 0.29 & $-1.37$ & 3/1/1 \\\\"));
  CHECK_THAT(render_paired_html(c), Catch::Contains("<table>"));
}
