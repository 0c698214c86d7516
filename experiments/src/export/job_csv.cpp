#include "experiments/src/export/job_csv.hpp"

#include <sstream>

#include "experiments/src/io/csv.hpp"

namespace bnn::exp {

std::string render_split_csv(const std::vector<JobRecord>& jobs) {
  std::ostringstream out;
  out << "dataset,method,config_hash,split,status,metric,value\n";
  for (const auto& j : jobs)
    for (const auto& e : j.evaluations)
      for (const auto& [name, value] : e.metrics)
        out << j.key.dataset << "," << j.key.method_label << "," << j.key.config_hash << "," << j.key.split << ","
            << j.status << "," << (e.step == 0 ? name : name + "@" + std::to_string(e.step)) << ","
            << exact_number(value) << "\n";
  return out.str();
}

std::string render_job_csv(const std::vector<JobRecord>& jobs) {
  std::ostringstream out;
  out << "dataset,method,config_hash,split,method_name,config,seed,status,error,fit_status,fit_message,fit_iterations,"
         "n_train,n_test,n_features,fit_seconds,fit_cpu_seconds,predict_seconds,code_version,host,finished_at,"
         "warnings,diagnostics,data_hash\n";
  for (const auto& j : jobs)
    out << csv_field(j.key.dataset) << "," << csv_field(j.key.method_label) << "," << j.key.config_hash << ","
        << j.key.split << "," << csv_field(j.method) << "," << csv_field(j.config) << "," << j.seed << "," << j.status
        << "," << csv_field(j.error) << "," << csv_field(j.fit_status) << "," << csv_field(j.fit_message) << ","
        << j.fit_iterations << "," << j.n_train << "," << j.n_test << "," << j.n_features << ","
        << exact_number(j.fit_seconds) << "," << exact_number(j.fit_cpu_seconds) << ","
        << exact_number(j.predict_seconds) << "," << csv_field(j.code_version) << "," << csv_field(j.host) << ","
        << csv_field(j.finished_at) << "," << csv_field(j.warnings) << "," << csv_field(j.diagnostics) << ","
        << j.data_hash << "\n";
  return out.str();
}

}  // namespace bnn::exp
