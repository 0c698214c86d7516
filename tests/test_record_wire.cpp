// A job's record as an MPI worker sends it to rank 0 (cluster/record_wire.hpp): every field
// comes back, numbers to the bit (NaN payloads, -0, subnormals included), and a truncated or
// altered message is refused instead of read.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "experiments/src/cluster/record_wire.hpp"

using namespace bnn::exp;

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i])) return false;
  return true;
}

JobRecord full_record() {
  const double nan_payload = std::bit_cast<double>(0x7ff8000000000123ULL);
  JobRecord r;
  r.key = {"pbp-table1", "boston", "pbp", "0123456789abcdef", 17};
  r.method = "pbp";
  r.config = std::string("method=pbp|options=a\0b", 22);  // an embedded NUL travels too
  r.seed = 0xfedcba9876543210ULL;
  r.status = "partial";
  r.error = "";
  r.fit_status = "ok";
  r.fit_message = "line one\nline two";
  r.fit_iterations = -3;
  r.diagnostics = "alpha=1e+300;beta=5e-324";
  r.warnings = "w1; w2";
  r.n_train = 455;
  r.n_test = 51;
  r.n_features = 13;
  r.scale = "original";
  r.fit_seconds = 0.1;
  r.predict_seconds = -0.0;
  r.fit_cpu_seconds = std::numeric_limits<double>::denorm_min();
  r.code_version = "abc123-dirty";
  r.host = "node17";
  r.finished_at = "2026-11-27T01:02:03Z";
  r.run_id = 42;
  r.data_hash = "0123456789abcdef";
  for (int step = 0; step < 2; ++step) {
    Evaluation e;
    e.step = step;
    e.n_train = 20 + step;
    e.metrics = {{"rmse", 3.25}, {"test_ll", -std::numeric_limits<double>::infinity()}, {"weird", nan_payload}};
    e.test_rows = {4, 9, 11};
    e.points.log_density = {-1.5, nan_payload, 0.0};
    e.points.squared_error = {1, 2, 3};
    e.points.crps = {0.5, 0.25, 0.125};
    e.points.covered95 = {1, 0, 1};
    e.points.mean = {1e-310, -1e308, 7};
    e.points.variance = {2, 3, 4};
    r.evaluations.push_back(e);
  }
  GridPredictions g;
  g.points.X = Eigen::MatrixXd{{1.0, 2.0}, {3.0, -0.0}, {5.0, 6.0}};
  g.points.varied = {1, 2, 1};
  g.mean = {0.1, 0.2, 0.3};
  g.variance = {1, 1, 1};
  g.lower95 = {-1, -1, -1};
  g.upper95 = {2, 2, 2};
  r.grid = g;
  r.artifact_requests = {{"parameter-marginals", "kind=parameter-marginals|points=5"}, {"chain-draws", "x"}};
  ArtifactTable t;
  t.kind = "parameter-marginals";
  t.name = "parameter_marginals";
  t.add("x", {0.5, 1.5});
  t.add_text("parameter", {"w[1,1]", std::string("a\x1f"
                                                 "b")});
  r.artifacts.push_back(t);
  r.artifacts.push_back(ArtifactTable{"empty", "empty_table", {}});
  return r;
}

void require_equal(const JobRecord& a, const JobRecord& b) {
  CHECK(a.key == b.key);
  CHECK(a.method == b.method);
  CHECK(a.config == b.config);
  CHECK(a.seed == b.seed);
  CHECK(a.status == b.status);
  CHECK(a.error == b.error);
  CHECK(a.fit_status == b.fit_status);
  CHECK(a.fit_message == b.fit_message);
  CHECK(a.fit_iterations == b.fit_iterations);
  CHECK(a.diagnostics == b.diagnostics);
  CHECK(a.warnings == b.warnings);
  CHECK((a.n_train == b.n_train && a.n_test == b.n_test && a.n_features == b.n_features));
  CHECK(a.scale == b.scale);
  CHECK(same_bits(a.fit_seconds, b.fit_seconds));
  CHECK(same_bits(a.predict_seconds, b.predict_seconds));
  CHECK(same_bits(a.fit_cpu_seconds, b.fit_cpu_seconds));
  CHECK((a.code_version == b.code_version && a.host == b.host && a.finished_at == b.finished_at));
  CHECK(a.run_id == b.run_id);
  CHECK(a.data_hash == b.data_hash);
  REQUIRE(a.evaluations.size() == b.evaluations.size());
  for (std::size_t i = 0; i < a.evaluations.size(); ++i) {
    const Evaluation &x = a.evaluations[i], &y = b.evaluations[i];
    CHECK((x.step == y.step && x.n_train == y.n_train));
    REQUIRE(x.metrics.size() == y.metrics.size());
    for (const auto& [name, value] : x.metrics) CHECK(same_bits(value, y.metrics.at(name)));
    CHECK(same_bits(x.test_rows, y.test_rows));
    CHECK(same_bits(x.points.log_density, y.points.log_density));
    CHECK(same_bits(x.points.squared_error, y.points.squared_error));
    CHECK(same_bits(x.points.crps, y.points.crps));
    CHECK(same_bits(x.points.covered95, y.points.covered95));
    CHECK(same_bits(x.points.mean, y.points.mean));
    CHECK(same_bits(x.points.variance, y.points.variance));
  }
  REQUIRE(a.grid.has_value() == b.grid.has_value());
  if (a.grid) {
    CHECK(a.grid->points.X.rows() == b.grid->points.X.rows());
    CHECK(a.grid->points.X.cols() == b.grid->points.X.cols());
    CHECK(std::memcmp(a.grid->points.X.data(), b.grid->points.X.data(),
                      sizeof(double) * static_cast<std::size_t>(a.grid->points.X.size())) == 0);
    CHECK(same_bits(a.grid->points.varied, b.grid->points.varied));
    CHECK(same_bits(a.grid->mean, b.grid->mean));
    CHECK(same_bits(a.grid->variance, b.grid->variance));
    CHECK(same_bits(a.grid->lower95, b.grid->lower95));
    CHECK(same_bits(a.grid->upper95, b.grid->upper95));
  }
  CHECK(a.artifact_requests == b.artifact_requests);
  REQUIRE(a.artifacts.size() == b.artifacts.size());
  for (std::size_t t = 0; t < a.artifacts.size(); ++t) {
    const ArtifactTable &x = a.artifacts[t], &y = b.artifacts[t];
    CHECK((x.kind == y.kind && x.name == y.name));
    REQUIRE(x.columns.size() == y.columns.size());
    for (std::size_t c = 0; c < x.columns.size(); ++c) {
      CHECK(x.columns[c].name == y.columns[c].name);
      CHECK(x.columns[c].text == y.columns[c].text);
      CHECK(same_bits(x.columns[c].numbers, y.columns[c].numbers));
      CHECK(x.columns[c].texts == y.columns[c].texts);
    }
  }
}

}  // namespace

TEST_CASE("record wire: every field of a job's record comes back to the bit", "[cluster]") {
  const JobRecord sent = full_record();
  const std::string bytes = encode_record(sent);
  require_equal(decode_record(bytes), sent);
  // ... and so does the plainest record (a failed job: no steps, no grid, no artifacts).
  JobRecord failed;
  failed.key = {"e", "d", "m", "h", 0};
  failed.status = "failed";
  failed.error = "nn-mc: epochs is 0, but must be >= 1";
  require_equal(decode_record(encode_record(failed)), failed);
  // Encoding is a function of the record: the same record, the same bytes.
  CHECK(encode_record(decode_record(bytes)) == bytes);
}

TEST_CASE("record wire: a truncated, extended or foreign message is refused", "[cluster]") {
  const std::string bytes = encode_record(full_record());
  for (std::size_t n = 0; n < bytes.size(); ++n)
    REQUIRE_THROWS_AS(decode_record(bytes.substr(0, n)), std::runtime_error);
  REQUIRE_THROWS_WITH(decode_record(bytes + "x"), Catch::Contains("truncated or malformed"));
  std::string other = bytes;
  other[0] ^= 1;
  REQUIRE_THROWS_WITH(decode_record(other), Catch::Contains("another format"));
  // A count that claims more items than the message holds is refused before any allocation.
  std::string huge = bytes;
  const std::size_t count_at = 4 + 8 + std::string("pbp-table1").size();  // the data set name's length
  const std::uint64_t absurd = ~0ULL;
  std::memcpy(huge.data() + count_at, &absurd, sizeof absurd);
  REQUIRE_THROWS_AS(decode_record(huge), std::runtime_error);
}
