#include "experiments/src/store/store.hpp"

#include <sqlite3.h>
#include <unistd.h>
#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "experiments/src/io/files.hpp"

namespace fs = std::filesystem;

namespace bnn::exp {
namespace {

constexpr const char* kSchema = R"SQL(
CREATE TABLE IF NOT EXISTS jobs (
  experiment TEXT NOT NULL, dataset TEXT NOT NULL, method_label TEXT NOT NULL,
  config_hash TEXT NOT NULL, split INTEGER NOT NULL,
  method TEXT NOT NULL, config TEXT NOT NULL, seed TEXT NOT NULL,
  status TEXT NOT NULL, error TEXT, fit_status TEXT, fit_message TEXT, fit_iterations INTEGER,
  diagnostics TEXT, warnings TEXT, n_train INTEGER, n_test INTEGER, n_features INTEGER,
  scale TEXT, fit_seconds REAL, predict_seconds REAL, fit_cpu_seconds REAL,
  code_version TEXT, host TEXT, finished_at TEXT, run_id INTEGER,
  PRIMARY KEY (experiment, dataset, method_label, config_hash, split));
CREATE TABLE IF NOT EXISTS metrics (
  experiment TEXT NOT NULL, dataset TEXT NOT NULL, method_label TEXT NOT NULL,
  config_hash TEXT NOT NULL, split INTEGER NOT NULL, step INTEGER NOT NULL,
  name TEXT NOT NULL, value REAL,
  PRIMARY KEY (experiment, dataset, method_label, config_hash, split, step, name));
CREATE TABLE IF NOT EXISTS points (
  experiment TEXT NOT NULL, dataset TEXT NOT NULL, method_label TEXT NOT NULL,
  config_hash TEXT NOT NULL, split INTEGER NOT NULL, step INTEGER NOT NULL,
  n_train INTEGER, test_rows BLOB, log_density BLOB, squared_error BLOB, crps BLOB,
  covered95 BLOB, mean BLOB, variance BLOB,
  PRIMARY KEY (experiment, dataset, method_label, config_hash, split, step));
CREATE TABLE IF NOT EXISTS grid (
  experiment TEXT NOT NULL, dataset TEXT NOT NULL, method_label TEXT NOT NULL,
  config_hash TEXT NOT NULL, split INTEGER NOT NULL, inputs INTEGER NOT NULL,
  x BLOB, varied BLOB, mean BLOB, variance BLOB, lower95 BLOB, upper95 BLOB,
  PRIMARY KEY (experiment, dataset, method_label, config_hash, split));
CREATE TABLE IF NOT EXISTS artifact_requests (
  experiment TEXT NOT NULL, dataset TEXT NOT NULL, method_label TEXT NOT NULL,
  config_hash TEXT NOT NULL, split INTEGER NOT NULL, kind TEXT NOT NULL, request TEXT,
  PRIMARY KEY (experiment, dataset, method_label, config_hash, split, kind));
CREATE TABLE IF NOT EXISTS artifacts (
  experiment TEXT NOT NULL, dataset TEXT NOT NULL, method_label TEXT NOT NULL,
  config_hash TEXT NOT NULL, split INTEGER NOT NULL, table_name TEXT NOT NULL, kind TEXT,
  column_index INTEGER NOT NULL, column_name TEXT, text_rows INTEGER, numbers BLOB, texts TEXT,
  PRIMARY KEY (experiment, dataset, method_label, config_hash, split, table_name, column_index));
CREATE TABLE IF NOT EXISTS runs (
  run_id INTEGER PRIMARY KEY AUTOINCREMENT, experiment TEXT, command TEXT, threads INTEGER,
  shard TEXT, host TEXT, machine TEXT, code_version TEXT, started_at TEXT, finished_at TEXT,
  jobs_planned INTEGER, jobs_run INTEGER, jobs_failed INTEGER, wall_seconds REAL);
)SQL";

constexpr const char* kKeyColumns = "experiment, dataset, method_label, config_hash, split";
// Tables that hold per-job data besides `jobs` (a store of an older bnnbench may lack the last two).
constexpr const char* kJobDataTables[] = {"metrics", "points", "grid", "artifact_requests", "artifacts"};
constexpr char kTextSeparator = '\x1f';

std::string join_texts(const std::vector<std::string>& texts) {
  std::string out;
  for (std::size_t i = 0; i < texts.size(); ++i) (out += i ? std::string(1, kTextSeparator) : "") += texts[i];
  return out;
}

// The `count` texts that join_texts made of them.
std::vector<std::string> split_texts(const std::string& joined, std::size_t count) {
  std::vector<std::string> out;
  if (count == 0) return out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = joined.find(kTextSeparator, start);
    out.push_back(joined.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& where) : db_(db), where_(where) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(stmt_, i, v));
    return *this;
  }
  Statement& bind(int i, long v) {
    check(sqlite3_bind_int64(stmt_, i, v));
    return *this;
  }
  Statement& bind(int i, int v) {
    check(sqlite3_bind_int64(stmt_, i, v));
    return *this;
  }
  Statement& bind_blob(int i, const std::vector<double>& v) {
    check(sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size() * sizeof(double)), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind_key(const JobKey& k) {
    return bind(1, k.experiment).bind(2, k.dataset).bind(3, k.method_label).bind(4, k.config_hash).bind(5, k.split);
  }
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail("step");
  }
  void run() {
    while (step()) {}
  }
  void reset() { sqlite3_reset(stmt_); }
  std::string text(int c) const {
    const auto* p = sqlite3_column_text(stmt_, c);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  double real(int c) const { return sqlite3_column_double(stmt_, c); }
  long integer(int c) const { return static_cast<long>(sqlite3_column_int64(stmt_, c)); }
  std::vector<double> blob(int c) const {
    const void* p = sqlite3_column_blob(stmt_, c);
    const int bytes = sqlite3_column_bytes(stmt_, c);
    std::vector<double> out(static_cast<std::size_t>(bytes) / sizeof(double));
    if (p && bytes > 0) std::memcpy(out.data(), p, out.size() * sizeof(double));
    return out;
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) fail("bind");
  }
  [[noreturn]] void fail(const char* what) {
    throw std::runtime_error("results store " + where_ + ": " + what + ": " + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string where_;
};

}  // namespace

void register_store_files(const std::string& results_dir) {
  const std::string path = (fs::path(results_dir) / "bnnbench.sqlite").string();
  for (const char* suffix : {"", "-wal", "-shm"}) register_input(path + suffix, "a file of the results store");
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string host_name() {
  char buffer[256] = {0};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
  return buffer;
}

std::string machine_description() {
  std::string model = "unknown CPU";
  std::ifstream cpu("/proc/cpuinfo");
  for (std::string line; std::getline(cpu, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  double gib = 0.0;
  std::ifstream mem("/proc/meminfo");
  std::string key;
  long kb = 0;
  if (mem >> key >> kb && key == "MemTotal:") gib = static_cast<double>(kb) / (1024.0 * 1024.0);
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, "%s (%u hardware threads, %.1f GiB)", model.c_str(),
                std::thread::hardware_concurrency(), gib);
  return buffer;
}

std::string job_host() {
  static const std::string host = host_name() + " (" + machine_description() + ")";
  return host;
}

namespace {
// A file name as an SQLite URI path: '%', '?' and '#' (and non-ASCII bytes) percent-encoded.
std::string uri_path(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file:";
  for (unsigned char c : fs::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#' || c < 0x21 || c > 0x7e) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}
}  // namespace

ResultsStore::ResultsStore(const std::string& results_dir, Access access) {
  path_ = (fs::path(results_dir) / "bnnbench.sqlite").string();
  register_store_files(results_dir);
  if (access != Access::create && !fs::exists(path_))
    throw std::runtime_error("no results store in " + results_dir + " (expected " + path_ + ")");
  if (access == Access::read_only) {
    // Without a -wal file every job is in the database file, which is opened as immutable: no
    // file is made or written. With one (a run in progress, or killed before a checkpoint), a
    // read-only connection sees the jobs in it and never checkpoints or writes the database
    // file. Where SQLite cannot open it so (a read-only place without the -shm file), pending
    // -wal content is an error, not a silent loss of jobs.
    std::error_code no_size;
    const bool pending = fs::exists(path_ + "-wal");
    int status = SQLITE_CANTOPEN;
    if (pending) {
      status = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr);
      if (status == SQLITE_OK) {
        sqlite3_busy_timeout(db_, 60000);
        status = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
      }
      if (status != SQLITE_OK) {
        sqlite3_close(db_);
        db_ = nullptr;
        if (fs::file_size(path_ + "-wal", no_size) > 0)
          throw std::runtime_error("results store " + path_ +
                                   " has jobs in its -wal file that cannot be read from this place (no -shm file and "
                                   "no permission to make one): copy the directory somewhere writable and read it "
                                   "there");
      }
    }
    if (status != SQLITE_OK)
      status = sqlite3_open_v2((uri_path(path_) + "?mode=ro&immutable=1").c_str(), &db_,
                               SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX, nullptr);
    if (status != SQLITE_OK) {
      const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw std::runtime_error("cannot open results store " + path_ + ": " + message);
    }
    sqlite3_busy_timeout(db_, 60000);
    sqlite3_exec(db_, "PRAGMA query_only = ON", nullptr, nullptr, nullptr);  // a statement that writes fails
    long tables = 0;
    try {
      Statement count(db_,
                      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                      "('jobs', 'metrics', 'points', 'grid', 'runs')",
                      path_);
      if (count.step()) tables = count.integer(0);
    } catch (...) {
      sqlite3_close(db_);  // the destructor does not run for a constructor that throws
      throw;
    }
    if (tables != 5) {
      sqlite3_close(db_);
      throw std::runtime_error(path_ + " is not a complete bnnbench results store (" + std::to_string(tables) +
                               " of its 5 tables: an empty or foreign file, or a store of an older bnnbench, "
                               "which `bnnbench run` or `merge` upgrades)");
    }
    return;
  }
  std::error_code ec;
  fs::create_directories(results_dir, ec);
  if (ec) throw std::runtime_error("cannot create results directory " + results_dir + ": " + ec.message());
  if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error("cannot open results store " + path_ + ": " + message);
  }
  sqlite3_busy_timeout(db_, 60000);
  try {
    refuse_foreign();
    exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
    exec(kSchema);
    // Columns added since the first stores (whose jobs keep an empty value).
    if (!has_column("jobs", "data_hash")) exec("ALTER TABLE jobs ADD COLUMN data_hash TEXT");
  } catch (...) {
    sqlite3_close(db_);
    throw;
  }
}

namespace {
// Throws unless the database is empty or holds only bnnbench's tables (jobs among them).
void refuse_foreign_database(sqlite3* db, const std::string& path) {
  std::vector<std::string> foreign;
  long ours = 0;
  bool jobs = false;
  try {
    Statement tables(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", path);
    while (tables.step()) {
      const std::string name = tables.text(0);
      const bool known = name == "jobs" || name == "runs" || name == "sqlite_sequence" ||
                         std::any_of(std::begin(kJobDataTables), std::end(kJobDataTables),
                                     [&](const char* table) { return name == table; });
      jobs = jobs || name == "jobs";
      if (known)
        ++ours;
      else
        foreign.push_back(name);
    }
  } catch (const std::exception&) {  // not an SQLite database at all
    throw std::runtime_error(path +
                             " is not a bnnbench results store (not an SQLite database): choose another "
                             "--results directory, or move the file away");
  }
  if (foreign.empty() && (ours == 0 || jobs)) return;
  std::string names;
  for (const auto& name : foreign) names += (names.empty() ? "" : ", ") + name;
  throw std::runtime_error(path + " is not a bnnbench results store (it holds the table(s) " +
                           (names.empty() ? std::string("of a store without jobs") : names) +
                           "): choose another --results directory; nothing was written to it");
}
}  // namespace

void ResultsStore::refuse_foreign() { refuse_foreign_database(db_, path_); }

void ResultsStore::check_output_store(const std::string& results_dir) {
  const std::string path = (fs::path(results_dir) / "bnnbench.sqlite").string();
  if (!fs::exists(path)) return;
  // A run killed before its last checkpoint leaves jobs in the -wal file, and the main file alone
  // may then be half written: read it with its WAL then (immutable=1 would read the main file
  // only and take a store for a foreign file).
  std::error_code no_size;
  const bool hot_wal = fs::file_size(path + "-wal", no_size) > 0 && !no_size;
  const std::string uri = hot_wal ? uri_path(path) + "?mode=ro" : uri_path(path) + "?mode=ro&immutable=1";
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(db);
    return;  // opening it for writing says why
  }
  sqlite3_busy_timeout(db, 60000);
  try {
    refuse_foreign_database(db, path);
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
  sqlite3_close(db);
}

bool ResultsStore::has_column(const std::string& table, const std::string& column) {
  Statement s(db_, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", path_);
  return s.bind(1, table).bind(2, column).step();
}

void ResultsStore::check_integrity() {
  std::lock_guard lock(mutex_);
  Statement check(db_, "PRAGMA quick_check", path_);
  std::string first;
  if (check.step()) first = check.text(0);
  if (first == "ok") return;
  for (char& c : first)
    if (c == '\n') c = ' ';
  throw std::runtime_error("results store " + path_ + " is damaged (SQLite quick_check: " + first + ")");
}

ResultsStore::~ResultsStore() { sqlite3_close(db_); }

bool ResultsStore::has_table(const std::string& name) {
  Statement s(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", path_);
  return s.bind(1, name).step();
}

void ResultsStore::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    throw std::runtime_error("results store " + path_ + ": " + text);
  }
}

bool ResultsStore::record(const JobRecord& job) {
  std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    const std::string where = std::string(" WHERE (") + kKeyColumns + ") = (?1, ?2, ?3, ?4, ?5)";
    if (job.status != "ok") {
      bool finished_before = false;
      {
        Statement finished(db_, "SELECT 1 FROM jobs" + where + " AND status = 'ok'", path_);
        finished_before = finished.bind_key(job.key).step();
      }
      if (finished_before) {
        exec("COMMIT");
        return false;
      }
    }
    for (const char* table : kJobDataTables) {
      Statement del(db_, std::string("DELETE FROM ") + table + where, path_);
      del.bind_key(job.key).run();
    }
    Statement s(db_,
                "INSERT OR REPLACE INTO jobs (experiment, dataset, method_label, config_hash, split, method, "
                "config, seed, status, error, fit_status, fit_message, fit_iterations, diagnostics, warnings, "
                "n_train, n_test, n_features, scale, fit_seconds, predict_seconds, fit_cpu_seconds, code_version, "
                "host, finished_at, run_id, data_hash) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,"
                "?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26,?27)",
                path_);
    s.bind_key(job.key)
        .bind(6, job.method)
        .bind(7, job.config)
        .bind(8, std::to_string(job.seed))
        .bind(9, job.status)
        .bind(10, job.error)
        .bind(11, job.fit_status)
        .bind(12, job.fit_message)
        .bind(13, job.fit_iterations)
        .bind(14, job.diagnostics)
        .bind(15, job.warnings)
        .bind(16, job.n_train)
        .bind(17, job.n_test)
        .bind(18, job.n_features)
        .bind(19, job.scale)
        .bind(20, job.fit_seconds)
        .bind(21, job.predict_seconds)
        .bind(22, job.fit_cpu_seconds)
        .bind(23, job.code_version)
        .bind(24, job.host)
        .bind(25, job.finished_at)
        .bind(26, job.run_id)
        .bind(27, job.data_hash);
    s.run();
    for (const auto& e : job.evaluations) {
      Statement m(db_, "INSERT INTO metrics VALUES (?1,?2,?3,?4,?5,?6,?7,?8)", path_);
      for (const auto& [name, value] : e.metrics) {
        m.bind_key(job.key).bind(6, e.step).bind(7, name).bind(8, value).run();
        m.reset();
      }
      Statement p(db_, "INSERT INTO points VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)", path_);
      p.bind_key(job.key)
          .bind(6, e.step)
          .bind(7, e.n_train)
          .bind_blob(8, e.test_rows)
          .bind_blob(9, e.points.log_density)
          .bind_blob(10, e.points.squared_error)
          .bind_blob(11, e.points.crps)
          .bind_blob(12, e.points.covered95)
          .bind_blob(13, e.points.mean)
          .bind_blob(14, e.points.variance);
      p.run();
    }
    if (job.grid) {
      const GridPredictions& g = *job.grid;
      const Eigen::Index inputs = g.points.X.cols();
      std::vector<double> x(static_cast<std::size_t>(g.points.X.size()));
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(x.data(), g.points.X.rows(),
                                                                                         inputs) = g.points.X;
      Statement q(db_, "INSERT INTO grid VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)", path_);
      q.bind_key(job.key)
          .bind(6, static_cast<long>(inputs))
          .bind_blob(7, x)
          .bind_blob(8, g.points.varied)
          .bind_blob(9, g.mean)
          .bind_blob(10, g.variance)
          .bind_blob(11, g.lower95)
          .bind_blob(12, g.upper95);
      q.run();
    }
    for (const auto& [kind, request] : job.artifact_requests) {
      Statement r(db_, "INSERT INTO artifact_requests VALUES (?1,?2,?3,?4,?5,?6,?7)", path_);
      r.bind_key(job.key).bind(6, kind).bind(7, request).run();
    }
    for (const ArtifactTable& table : job.artifacts)
      for (std::size_t c = 0; c < table.columns.size(); ++c) {
        const ArtifactColumn& column = table.columns[c];
        Statement a(db_, "INSERT INTO artifacts VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)", path_);
        a.bind_key(job.key)
            .bind(6, table.name)
            .bind(7, table.kind)
            .bind(8, static_cast<long>(c))
            .bind(9, column.name)
            .bind(10, column.text ? static_cast<long>(column.texts.size()) : -1L)
            .bind_blob(11, column.numbers)
            .bind(12, column.text ? join_texts(column.texts) : std::string());
        a.run();
      }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return true;
}

std::vector<std::pair<JobKey, GridPredictions>> ResultsStore::grids(const std::string& experiment) {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<JobKey, GridPredictions>> out;
  Statement s(db_,
              "SELECT g.experiment, g.dataset, g.method_label, g.config_hash, g.split, g.inputs, g.x, g.varied, "
              "g.mean, g.variance, g.lower95, g.upper95 FROM grid g JOIN jobs j USING (experiment, dataset, "
              "method_label, config_hash, split) WHERE g.experiment = ?1 AND j.status = 'ok' "
              "ORDER BY g.dataset, g.method_label, g.split",
              path_);
  s.bind(1, experiment);
  while (s.step()) {
    GridPredictions g;
    const long inputs = s.integer(5);
    const std::vector<double> x = s.blob(6);
    const auto rows = inputs > 0 ? static_cast<Eigen::Index>(x.size()) / inputs : 0;
    g.points.X = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(x.data(),
                                                                                                          rows, inputs);
    g.points.varied = s.blob(7);
    g.mean = s.blob(8);
    g.variance = s.blob(9);
    g.lower95 = s.blob(10);
    g.upper95 = s.blob(11);
    out.emplace_back(JobKey{s.text(0), s.text(1), s.text(2), s.text(3), static_cast<int>(s.integer(4))}, std::move(g));
  }
  return out;
}

std::vector<JobRecord> ResultsStore::jobs(const std::string& experiment, bool with_points) {
  std::lock_guard lock(mutex_);
  std::vector<JobRecord> out;
  std::map<JobKey, std::size_t> index;
  // A store of an older bnnbench, read only, may lack the data hash.
  const std::string data_hash = has_column("jobs", "data_hash") ? "data_hash" : "''";
  Statement s(db_,
              "SELECT experiment, dataset, method_label, config_hash, split, method, config, seed, status, "
              "error, fit_status, fit_message, fit_iterations, diagnostics, warnings, n_train, n_test, "
              "n_features, scale, fit_seconds, predict_seconds, fit_cpu_seconds, code_version, host, "
              "finished_at, run_id, " +
                  data_hash + " FROM jobs WHERE experiment = ?1 ORDER BY dataset, method_label, split",
              path_);
  s.bind(1, experiment);
  while (s.step()) {
    JobRecord j;
    j.key = {s.text(0), s.text(1), s.text(2), s.text(3), static_cast<int>(s.integer(4))};
    j.method = s.text(5);
    j.config = s.text(6);
    j.seed = std::stoull(s.text(7));
    j.status = s.text(8);
    j.error = s.text(9);
    j.fit_status = s.text(10);
    j.fit_message = s.text(11);
    j.fit_iterations = s.integer(12);
    j.diagnostics = s.text(13);
    j.warnings = s.text(14);
    j.n_train = s.integer(15);
    j.n_test = s.integer(16);
    j.n_features = s.integer(17);
    j.scale = s.text(18);
    j.fit_seconds = s.real(19);
    j.predict_seconds = s.real(20);
    j.fit_cpu_seconds = s.real(21);
    j.code_version = s.text(22);
    j.host = s.text(23);
    j.finished_at = s.text(24);
    j.run_id = s.integer(25);
    j.data_hash = s.text(26);
    index[j.key] = out.size();
    out.push_back(std::move(j));
  }
  if (has_table("artifact_requests")) {
    Statement r(db_,
                std::string("SELECT ") + kKeyColumns + ", kind, request FROM artifact_requests WHERE experiment = ?1",
                path_);
    r.bind(1, experiment);
    while (r.step()) {
      const JobKey key{r.text(0), r.text(1), r.text(2), r.text(3), static_cast<int>(r.integer(4))};
      if (auto it = index.find(key); it != index.end()) out[it->second].artifact_requests[r.text(5)] = r.text(6);
    }
  }
  if (with_points && has_table("artifacts")) {
    Statement a(db_,
                std::string("SELECT ") + kKeyColumns +
                    ", table_name, kind, column_index, column_name, text_rows, numbers, texts FROM artifacts "
                    "WHERE experiment = ?1 ORDER BY table_name, column_index",
                path_);
    a.bind(1, experiment);
    while (a.step()) {
      const JobKey key{a.text(0), a.text(1), a.text(2), a.text(3), static_cast<int>(a.integer(4))};
      auto it = index.find(key);
      if (it == index.end()) continue;
      auto& tables = out[it->second].artifacts;
      if (tables.empty() || tables.back().name != a.text(5)) tables.push_back({a.text(6), a.text(5), {}});
      ArtifactColumn column;
      column.name = a.text(8);
      column.text = a.integer(9) >= 0;
      column.numbers = a.blob(10);
      if (column.text) column.texts = split_texts(a.text(11), static_cast<std::size_t>(a.integer(9)));
      tables.back().columns.push_back(std::move(column));
    }
  }
  const auto evaluation = [](JobRecord& j, int step) -> Evaluation& {
    for (auto& e : j.evaluations)
      if (e.step == step) return e;
    j.evaluations.push_back(Evaluation{step, 0, {}, {}, {}});
    return j.evaluations.back();
  };
  Statement m(
      db_,
      std::string("SELECT ") + kKeyColumns + ", step, name, value FROM metrics WHERE experiment = ?1 ORDER BY step",
      path_);
  m.bind(1, experiment);
  while (m.step()) {
    const JobKey key{m.text(0), m.text(1), m.text(2), m.text(3), static_cast<int>(m.integer(4))};
    if (auto it = index.find(key); it != index.end())
      evaluation(out[it->second], static_cast<int>(m.integer(5))).metrics[m.text(6)] = m.real(7);
  }
  Statement p(db_,
              std::string("SELECT ") + kKeyColumns + ", step, n_train" +
                  (with_points ? ", test_rows, log_density, squared_error, crps, covered95, mean, variance" : "") +
                  " FROM points WHERE experiment = ?1 ORDER BY step",
              path_);
  p.bind(1, experiment);
  while (p.step()) {
    const JobKey key{p.text(0), p.text(1), p.text(2), p.text(3), static_cast<int>(p.integer(4))};
    auto it = index.find(key);
    if (it == index.end()) continue;
    Evaluation& e = evaluation(out[it->second], static_cast<int>(p.integer(5)));
    e.n_train = p.integer(6);
    if (with_points) {
      e.test_rows = p.blob(7);
      e.points.log_density = p.blob(8);
      e.points.squared_error = p.blob(9);
      e.points.crps = p.blob(10);
      e.points.covered95 = p.blob(11);
      e.points.mean = p.blob(12);
      e.points.variance = p.blob(13);
    }
  }
  return out;
}

long ResultsStore::begin_run(const RunRecord& run) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "INSERT INTO runs (experiment, command, threads, shard, host, machine, code_version, "
              "started_at, jobs_planned) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)",
              path_);
  s.bind(1, run.experiment)
      .bind(2, run.command)
      .bind(3, run.threads)
      .bind(4, run.shard)
      .bind(5, run.host)
      .bind(6, run.machine)
      .bind(7, run.code_version)
      .bind(8, run.started_at)
      .bind(9, run.jobs_planned);
  s.run();
  return static_cast<long>(sqlite3_last_insert_rowid(db_));
}

void ResultsStore::end_run(const RunRecord& run) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "UPDATE runs SET finished_at = ?1, jobs_run = ?2, jobs_failed = ?3, wall_seconds = ?4 "
              "WHERE run_id = ?5",
              path_);
  s.bind(1, run.finished_at)
      .bind(2, run.jobs_run)
      .bind(3, run.jobs_failed)
      .bind(4, run.wall_seconds)
      .bind(5, run.run_id);
  s.run();
}

std::vector<RunRecord> ResultsStore::runs(const std::string& experiment) {
  std::lock_guard lock(mutex_);
  std::vector<RunRecord> out;
  Statement s(db_,
              "SELECT run_id, experiment, command, threads, shard, host, code_version, started_at, "
              "finished_at, jobs_planned, jobs_run, jobs_failed, wall_seconds, machine, (SELECT count(*) FROM jobs "
              "WHERE jobs.experiment = runs.experiment AND jobs.run_id = runs.run_id) FROM runs "
              "WHERE experiment = ?1 ORDER BY run_id",
              path_);
  s.bind(1, experiment);
  while (s.step()) {
    RunRecord r;
    r.run_id = s.integer(0);
    r.experiment = s.text(1);
    r.command = s.text(2);
    r.threads = static_cast<int>(s.integer(3));
    r.shard = s.text(4);
    r.host = s.text(5);
    r.code_version = s.text(6);
    r.started_at = s.text(7);
    r.finished_at = s.text(8);
    r.jobs_planned = s.integer(9);
    r.jobs_run = s.integer(10);
    r.jobs_failed = s.integer(11);
    r.wall_seconds = s.real(12);
    r.machine = s.text(13);
    r.jobs_stored = s.integer(14);
    out.push_back(std::move(r));
  }
  return out;
}

void ResultsStore::prepare_merge_input(const std::string& results_dir) {
  const std::string path = (fs::path(results_dir) / "bnnbench.sqlite").string();
  if (!fs::exists(path))  // a wrong argument, not a failure of the store
    throw std::invalid_argument("no results store in " + results_dir + " (expected " + path + ")");
  // Opened read-only: an input is never written. An empty or foreign file is rejected (not given
  // our tables); a store of an older version has at least these three, and merge_from copies
  // the tables it has.
  sqlite3* db = nullptr;
  // Without a -wal file nothing is pending: opened as immutable, no -shm or -wal file is made.
  const int status = fs::exists(path + "-wal")
                         ? sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr)
                         : sqlite3_open_v2((uri_path(path) + "?mode=ro&immutable=1").c_str(), &db,
                                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX, nullptr);
  const auto close_and_fail = [&](const std::string& why) {
    sqlite3_close(db);
    throw std::invalid_argument(path + ": " + why);
  };
  if (status != SQLITE_OK) close_and_fail(std::string("cannot open: ") + (db ? sqlite3_errmsg(db) : "out of memory"));
  sqlite3_busy_timeout(db, 60000);
  long tables = 0;
  std::string check;
  try {
    Statement count(
        db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('jobs', 'metrics', 'runs')", path);
    if (count.step()) tables = count.integer(0);
    if (tables == 3) {
      Statement quick(db, "PRAGMA quick_check", path);
      if (quick.step()) check = quick.text(0);
    }
  } catch (const std::exception& e) {
    close_and_fail(std::string("not a bnnbench results store (") + e.what() + ")");
  }
  if (tables != 3) close_and_fail("not a bnnbench results store (no jobs, metrics and runs tables)");
  if (check != "ok") close_and_fail("the store is damaged (SQLite quick_check: " + check + ")");
  sqlite3_close(db);
}

long ResultsStore::merge_from(const std::string& other_results_dir, bool with_points) {
  const std::string other = (fs::path(other_results_dir) / "bnnbench.sqlite").string();
  prepare_merge_input(other_results_dir);
  if (fs::equivalent(other, path_)) throw std::runtime_error("cannot merge a store into itself: " + other);
  std::lock_guard lock(mutex_);
  {
    Statement attach(db_, "ATTACH DATABASE ?1 AS other", path_);
    attach.bind(1, other).run();
  }
  long copied = 0;
  try {
    exec("BEGIN IMMEDIATE");
    // Failed jobs here that the other store finished are replaced.
    const std::string better =
        std::string("(") + kKeyColumns + ") IN (SELECT " + kKeyColumns + " FROM other.jobs WHERE status = 'ok')";
    const std::string failed_here = std::string("(") + kKeyColumns + ") IN (SELECT " + kKeyColumns +
                                    " FROM main.jobs WHERE status != 'ok' AND " + better + ")";
    for (const char* table : kJobDataTables) exec(std::string("DELETE FROM main.") + table + " WHERE " + failed_here);
    exec("DELETE FROM main.jobs WHERE status != 'ok' AND " + better);
    const std::string new_jobs =
        std::string("(") + kKeyColumns + ") NOT IN (SELECT " + kKeyColumns + " FROM main.jobs)";
    const auto other_has = [&](const char* table) {  // a store of an older version lacks the newer tables
      Statement s(db_, "SELECT 1 FROM other.sqlite_master WHERE type = 'table' AND name = ?1", other);
      return s.bind(1, std::string(table)).step();
    };
    const auto copy = [&](const char* table) {
      if (other_has(table))
        exec(std::string("INSERT INTO main.") + table + " SELECT * FROM other." + table + " WHERE " + new_jobs);
    };
    copy("metrics");
    copy("artifact_requests");
    if (with_points) {
      copy("points");
      copy("grid");
      copy("artifacts");
    }
    // The other store's runs get new numbers above every run number used here, and its jobs
    // keep pointing at their own runs.
    long offset = 0;
    {
      Statement top(db_,
                    "SELECT max(coalesce((SELECT max(run_id) FROM main.runs), 0), "
                    "coalesce((SELECT seq FROM main.sqlite_sequence WHERE name = 'runs'), 0))",
                    path_);
      if (top.step()) offset = top.integer(0);
    }
    std::string job_columns;
    {
      Statement columns(db_, "SELECT name FROM pragma_table_info('jobs', 'main') ORDER BY cid", path_);
      while (columns.step()) {
        const std::string name = columns.text(0);
        // A column the other store's older schema lacks is empty.
        Statement theirs(db_, "SELECT 1 FROM pragma_table_info('jobs', 'other') WHERE name = ?1", other);
        const bool present = theirs.bind(1, name).step();
        job_columns += (job_columns.empty() ? "" : ", ") + (!present           ? std::string("NULL")
                                                            : name == "run_id" ? "run_id + " + std::to_string(offset)
                                                                               : name);
      }
    }
    exec("INSERT INTO main.jobs SELECT " + job_columns + " FROM other.jobs WHERE " + new_jobs);
    copied = sqlite3_changes(db_);
    exec(
        "INSERT INTO main.runs (run_id, experiment, command, threads, shard, host, machine, code_version, "
        "started_at, finished_at, jobs_planned, jobs_run, jobs_failed, wall_seconds) SELECT run_id + " +
        std::to_string(offset) +
        ", experiment, command, threads, shard, host, machine, code_version, started_at, finished_at, "
        "jobs_planned, jobs_run, jobs_failed, wall_seconds FROM other.runs");
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_exec(db_, "DETACH DATABASE other", nullptr, nullptr, nullptr);
    throw;
  }
  exec("DETACH DATABASE other");
  return copied;
}

}  // namespace bnn::exp
