// The experiment kinds (experiments/src/spec/experiment_kind.hpp): each shipped spec gets the
// kind its fields say, and what differs between the kinds is said by the kind.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "experiments/src/spec/experiment_kind.hpp"
#include "experiments/src/spec/spec.hpp"

using namespace bnn::exp;

namespace {

const ExperimentKind& kind_of(const std::string& name) {
  static std::map<std::string, ExperimentSpec> specs;
  if (!specs.count(name)) specs.emplace(name, load_experiment(find_experiment_file(name)));
  return experiment_kind(specs.at(name));
}

}  // namespace

TEST_CASE("experiment kinds: a spec's fields choose its kind", "[kinds]") {
  for (const char* table : {"pbp-table1", "pbp-layers", "epnn-table1", "bb-table1", "quickstart", "bb-figure2"})
    CHECK(kind_of(table).name() == "table");
  for (const char* figure : {"pbp-toy", "epnn-case1", "epnn-case2", "epnn-case3"})
    CHECK(kind_of(figure).name() == "figure");
  CHECK(kind_of("pbp-active").name() == "active-learning");
}

TEST_CASE("experiment kinds: what each publishes and how it runs", "[kinds]") {
  const ExperimentKind &table = kind_of("pbp-table1"), &figure = kind_of("pbp-toy"), &active = kind_of("pbp-active");
  CHECK_FALSE(table.is_figure());
  CHECK(table.main_figure_file() == "report.svg");
  CHECK(figure.is_figure());
  CHECK(figure.main_figure_file() == "figure.svg");
  CHECK(table.published_name("splits.csv") == "splits.csv");
  CHECK(active.published_name("splits.csv") == "splits.csv.gz");
  CHECK(active.published_name("jobs.csv") == "jobs.csv.gz");
  CHECK(active.published_name("report.md") == "report.md");
  CHECK_FALSE(table.resumes_part_way());
  CHECK(active.resumes_part_way());
  CHECK(figure.header_lines(load_experiment(find_experiment_file("pbp-toy"))).size() == 1);
  CHECK(table.header_lines(load_experiment(find_experiment_file("pbp-table1"))).empty());
}

TEST_CASE("experiment kinds: active learning's two selections share their fits' seeds", "[kinds]") {
  const ExperimentSpec spec = load_experiment(find_experiment_file("pbp-active"));
  const ExperimentKind& kind = experiment_kind(spec);
  const MethodConfig* random = nullptr;
  const MethodConfig* variance = nullptr;
  for (const auto& m : spec.methods) {
    if (m.label == "pbp-r") random = &m;
    if (m.label == "pbp-a") variance = &m;
  }
  REQUIRE(random);
  REQUIRE(variance);
  const std::string base = "method=pbp|options=x|seed=1";
  const std::string id_random = base + kind.identity(spec, *random),
                    id_variance = base + kind.identity(spec, *variance);
  CHECK(id_random != id_variance);  // two jobs
  CHECK_THAT(id_variance, Catch::Contains("|active_learning=additions:") && Catch::EndsWith("|selection=variance"));
  CHECK(kind.fit_seed(spec, "yacht", id_random, 3, 11) == kind.fit_seed(spec, "yacht", id_variance, 3, 11));
  CHECK(kind.fit_seed(spec, "yacht", id_random, 3, 11) != kind.fit_seed(spec, "yacht", id_random, 4, 11));
  // A table's fits draw from the job's own seed.
  const ExperimentSpec table = load_experiment(find_experiment_file("pbp-table1"));
  CHECK(experiment_kind(table).fit_seed(table, "yacht", "id", 3, 11) == 11);
  CHECK(experiment_kind(table).identity(table, table.methods.front()).empty());
}
