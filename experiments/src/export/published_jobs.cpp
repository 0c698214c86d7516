#include "experiments/src/export/published_jobs.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "experiments/src/io/csv.hpp"

namespace bnn::exp {
namespace {

constexpr const char* kSplitHeader = "dataset,method,config_hash,split,status,metric,value";

double number(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw std::invalid_argument(where + ": '" + text + "' is not a number");
  return value;
}

long integer(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') throw std::invalid_argument(where + ": '" + text + "' is not an integer");
  return value;
}

// One row of jobs.csv by column name ("" for a column an older file lacks).
struct JobRow {
  const std::vector<std::string>* fields;
  const std::map<std::string, std::size_t>* columns;
  std::string where;
  std::string operator[](const std::string& name) const {
    const auto it = columns->find(name);
    return it == columns->end() ? std::string() : (*fields)[it->second];
  }
};

void add_provenance(JobRecord& job, const JobRow& row) {
  job.method = row["method_name"];
  job.config = row["config"];
  if (const std::string seed = row["seed"]; !seed.empty()) job.seed = std::stoull(seed);
  job.error = row["error"];
  job.fit_status = row["fit_status"];
  job.fit_message = row["fit_message"];
  if (const std::string v = row["fit_iterations"]; !v.empty()) job.fit_iterations = integer(v, row.where);
  for (auto [name, field] :
       {std::pair{"n_train", &job.n_train}, {"n_test", &job.n_test}, {"n_features", &job.n_features}})
    if (const std::string v = row[name]; !v.empty()) *field = integer(v, row.where);
  for (auto [name, field] : {std::pair{"fit_seconds", &job.fit_seconds},
                             {"fit_cpu_seconds", &job.fit_cpu_seconds},
                             {"predict_seconds", &job.predict_seconds}})
    if (const std::string v = row[name]; !v.empty()) *field = number(v, row.where);
  job.code_version = row["code_version"];
  job.host = row["host"];
  job.finished_at = row["finished_at"];
  job.warnings = row["warnings"];
  job.diagnostics = row["diagnostics"];
  job.data_hash = row["data_hash"];
}

}  // namespace

std::vector<JobRecord> published_jobs(const std::string& experiment, const std::string& splits,
                                      const std::string& splits_name, const std::string& jobs,
                                      const std::string& jobs_name) {
  std::map<JobKey, JobRecord> by_key;
  const std::vector<CsvRow> rows = csv_rows(splits, splits_name);
  if (rows.empty() || rows.front().line != 1 || rows.front().text != kSplitHeader)
    throw std::invalid_argument(splits_name + ", line 1: not a per-split table (expected the header " + kSplitHeader +
                                ")");
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const std::vector<std::string>& f = rows[r].fields;
    if (f.size() != 7)
      throw std::invalid_argument(rows[r].where + ": " + std::to_string(f.size()) + " fields, but a row has 7");
    const JobKey key{experiment, f[0], f[1], f[2], static_cast<int>(integer(f[3], rows[r].where + ", column 4"))};
    JobRecord& job = by_key[key];
    job.key = key;
    job.status = f[4];
    // "rmse@3": step 3 of an active-learning job
    const auto at = f[5].find('@');
    const int step = at == std::string::npos ? 0 : static_cast<int>(integer(f[5].substr(at + 1), rows[r].where));
    auto e = std::find_if(job.evaluations.begin(), job.evaluations.end(),
                          [&](const Evaluation& x) { return x.step == step; });
    if (e == job.evaluations.end()) {
      job.evaluations.push_back(Evaluation{});
      e = job.evaluations.end() - 1;
      e->step = step;
    }
    e->metrics[f[5].substr(0, at)] = number(f[6], rows[r].where + ", column 7");
  }
  if (!jobs.empty()) {
    std::map<std::string, std::size_t> columns;
    for (const CsvRow& row : csv_rows(jobs, jobs_name)) {
      if (row.line == 1) {
        for (std::size_t c = 0; c < row.fields.size(); ++c) columns[row.fields[c]] = c;
        for (const char* needed : {"dataset", "method", "config_hash", "split"})
          if (!columns.count(needed))
            throw std::invalid_argument(jobs_name + ", line 1: no column '" + needed +
                                        "' (expected the header of `report --format jobs`)");
        continue;
      }
      if (row.fields.size() != columns.size())
        throw std::invalid_argument(row.where + ": " + std::to_string(row.fields.size()) +
                                    " fields, but the header has " + std::to_string(columns.size()));
      const JobRow job_row{&row.fields, &columns, row.where};
      const JobKey key{experiment, job_row["dataset"], job_row["method"], job_row["config_hash"],
                       static_cast<int>(integer(job_row["split"], row.where))};
      if (auto it = by_key.find(key); it != by_key.end()) add_provenance(it->second, job_row);
    }
  }
  std::vector<JobRecord> out;
  for (auto& [key, job] : by_key) {
    std::sort(job.evaluations.begin(), job.evaluations.end(),
              [](const Evaluation& a, const Evaluation& b) { return a.step < b.step; });
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace bnn::exp
