#include "experiments/src/cluster/record_wire.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace bnn::exp {
namespace {

// Bumped when the layout changes: ranks of different builds refuse each other's records.
constexpr std::uint32_t kFormat = 0x626e7201;  // "bnr" 1

class Writer {
 public:
  template <typename T>
  void raw(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out_.append(bytes, sizeof(T));
  }
  void size(std::size_t n) { raw<std::uint64_t>(n); }
  void text(const std::string& s) {
    size(s.size());
    out_ += s;
  }
  void numbers(const std::vector<double>& v) {
    size(v.size());
    for (double x : v) raw(x);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  template <typename T>
  T raw() {
    need(sizeof(T));
    T value;
    std::memcpy(&value, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  // A count of items of at least `item_bytes` each: never more than the bytes left can hold.
  std::size_t size(std::size_t item_bytes = 1) {
    const auto n = raw<std::uint64_t>();
    if (item_bytes > 0 && n > (in_.size() - at_) / item_bytes) fail();
    return static_cast<std::size_t>(n);
  }
  std::string text() {
    const std::size_t n = size();
    std::string s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  std::vector<double> numbers() {
    std::vector<double> v(size(sizeof(double)));
    for (double& x : v) x = raw<double>();
    return v;
  }
  void finish() const {
    if (at_ != in_.size()) fail();
  }

 private:
  void need(std::size_t n) const {
    if (n > in_.size() - at_) fail();
  }
  [[noreturn]] static void fail() { throw std::runtime_error("a job record received is truncated or malformed"); }
  const std::string& in_;
  std::size_t at_ = 0;
};

void put_points(Writer& w, const PointScores& p) {
  for (const auto* v : {&p.log_density, &p.squared_error, &p.crps, &p.covered95, &p.mean, &p.variance}) w.numbers(*v);
}

PointScores get_points(Reader& r) {
  PointScores p;
  for (auto* v : {&p.log_density, &p.squared_error, &p.crps, &p.covered95, &p.mean, &p.variance}) *v = r.numbers();
  return p;
}

}  // namespace

std::string encode_record(const JobRecord& rec) {
  Writer w;
  w.raw(kFormat);
  for (const auto* s : {&rec.key.experiment, &rec.key.dataset, &rec.key.method_label, &rec.key.config_hash}) w.text(*s);
  w.raw<std::int64_t>(rec.key.split);
  w.text(rec.method);
  w.text(rec.config);
  w.raw(rec.seed);
  for (const auto* s : {&rec.status, &rec.error, &rec.fit_status, &rec.fit_message}) w.text(*s);
  w.raw<std::int64_t>(rec.fit_iterations);
  w.text(rec.diagnostics);
  w.text(rec.warnings);
  for (long n : {rec.n_train, rec.n_test, rec.n_features}) w.raw<std::int64_t>(n);
  w.text(rec.scale);
  for (double s : {rec.fit_seconds, rec.predict_seconds, rec.fit_cpu_seconds}) w.raw(s);
  for (const auto* s : {&rec.code_version, &rec.host, &rec.finished_at, &rec.data_hash}) w.text(*s);
  w.raw<std::int64_t>(rec.run_id);

  w.size(rec.evaluations.size());
  for (const Evaluation& e : rec.evaluations) {
    w.raw<std::int64_t>(e.step);
    w.raw<std::int64_t>(e.n_train);
    w.size(e.metrics.size());
    for (const auto& [name, value] : e.metrics) {
      w.text(name);
      w.raw(value);
    }
    w.numbers(e.test_rows);
    put_points(w, e.points);
  }

  w.raw<std::uint8_t>(rec.grid.has_value());
  if (rec.grid) {
    const Eigen::MatrixXd& X = rec.grid->points.X;
    w.size(static_cast<std::size_t>(X.rows()));
    w.size(static_cast<std::size_t>(X.cols()));
    for (Eigen::Index i = 0; i < X.size(); ++i) w.raw(X.data()[i]);
    w.numbers(rec.grid->points.varied);
    for (const auto* v : {&rec.grid->mean, &rec.grid->variance, &rec.grid->lower95, &rec.grid->upper95}) w.numbers(*v);
  }

  w.size(rec.artifact_requests.size());
  for (const auto& [kind, request] : rec.artifact_requests) {
    w.text(kind);
    w.text(request);
  }
  w.size(rec.artifacts.size());
  for (const ArtifactTable& table : rec.artifacts) {
    w.text(table.kind);
    w.text(table.name);
    w.size(table.columns.size());
    for (const ArtifactColumn& column : table.columns) {
      w.text(column.name);
      w.raw<std::uint8_t>(column.text);
      w.numbers(column.numbers);
      w.size(column.texts.size());
      for (const std::string& t : column.texts) w.text(t);
    }
  }
  return w.take();
}

JobRecord decode_record(const std::string& bytes) {
  Reader r(bytes);
  if (r.raw<std::uint32_t>() != kFormat)
    throw std::runtime_error("a job record received is of another format (ranks of different bnnbench builds?)");
  JobRecord rec;
  for (auto* s : {&rec.key.experiment, &rec.key.dataset, &rec.key.method_label, &rec.key.config_hash}) *s = r.text();
  rec.key.split = static_cast<int>(r.raw<std::int64_t>());
  rec.method = r.text();
  rec.config = r.text();
  rec.seed = r.raw<std::uint64_t>();
  for (auto* s : {&rec.status, &rec.error, &rec.fit_status, &rec.fit_message}) *s = r.text();
  rec.fit_iterations = static_cast<long>(r.raw<std::int64_t>());
  rec.diagnostics = r.text();
  rec.warnings = r.text();
  for (long* n : {&rec.n_train, &rec.n_test, &rec.n_features}) *n = static_cast<long>(r.raw<std::int64_t>());
  rec.scale = r.text();
  for (double* s : {&rec.fit_seconds, &rec.predict_seconds, &rec.fit_cpu_seconds}) *s = r.raw<double>();
  for (auto* s : {&rec.code_version, &rec.host, &rec.finished_at, &rec.data_hash}) *s = r.text();
  rec.run_id = static_cast<long>(r.raw<std::int64_t>());

  rec.evaluations.resize(r.size(8));
  for (Evaluation& e : rec.evaluations) {
    e.step = static_cast<int>(r.raw<std::int64_t>());
    e.n_train = static_cast<long>(r.raw<std::int64_t>());
    const std::size_t metrics = r.size(16);
    for (std::size_t m = 0; m < metrics; ++m) {
      std::string name = r.text();
      e.metrics[std::move(name)] = r.raw<double>();
    }
    e.test_rows = r.numbers();
    e.points = get_points(r);
  }

  if (r.raw<std::uint8_t>()) {
    GridPredictions g;
    const std::size_t rows = r.size(0), cols = r.size(0);
    if (cols > 0 && rows > bytes.size() / 8 / cols) throw std::runtime_error("a job record received is malformed");
    g.points.X.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
    for (Eigen::Index i = 0; i < g.points.X.size(); ++i) g.points.X.data()[i] = r.raw<double>();
    g.points.varied = r.numbers();
    for (auto* v : {&g.mean, &g.variance, &g.lower95, &g.upper95}) *v = r.numbers();
    rec.grid = std::move(g);
  }

  const std::size_t requests = r.size(16);
  for (std::size_t q = 0; q < requests; ++q) {
    std::string kind = r.text();
    rec.artifact_requests[std::move(kind)] = r.text();
  }
  rec.artifacts.resize(r.size(24));
  for (ArtifactTable& table : rec.artifacts) {
    table.kind = r.text();
    table.name = r.text();
    table.columns.resize(r.size(25));
    for (ArtifactColumn& column : table.columns) {
      column.name = r.text();
      column.text = r.raw<std::uint8_t>() != 0;
      column.numbers = r.numbers();
      column.texts.resize(r.size(8));
      for (std::string& t : column.texts) t = r.text();
    }
  }
  r.finish();
  return rec;
}

}  // namespace bnn::exp
