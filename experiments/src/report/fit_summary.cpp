#include "experiments/src/report/fit_summary.hpp"

#include <cstdio>
#include <sstream>

namespace bnn::exp {
namespace {

std::string line(const char* format, auto... values) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, format, values...);
  return buffer;
}

}  // namespace

std::string fit_summary(const std::string& method, const JobData& data, const FitAndScore& fitted,
                        data::TargetTransform transform) {
  const FitReport& report = fitted.model->report();
  const auto& metrics = fitted.evaluation.metrics;
  std::string out;
  out += line("method        %s\n", method.c_str());
  out += line("train / test  %ld / %ld rows, %ld features\n", static_cast<long>(data.train.X.rows()),
              static_cast<long>(data.X_test.rows()), static_cast<long>(data.train.X.cols()));
  const auto header = [](bool named) { return named ? "first row names the columns" : "none, every row is data"; };
  out += line("header        train: %s; test: %s\n", header(data.train_header), header(data.test_header));
  out += line("fit status    %s%s%s\n", to_string(report.status).c_str(), report.message.empty() ? "" : ": ",
              report.message.c_str());
  out += line("rmse          %.6g\n", metrics.at("rmse"));
  if (transform != data::TargetTransform::none)
    out += line("target        %s (metrics on that scale)\n", data::describe_target(transform).c_str());
  out += line("test_ll       %.6g   (mean log density per test point, %s units)\n", metrics.at("test_ll"),
              transform == data::TargetTransform::none ? "original" : "transformed");
  out += line("coverage95    %.4f\n", metrics.at("coverage95"));
  out += line("crps          %.6g\n", metrics.at("crps"));
  out += line("fit_seconds   %.4f\n", fitted.fit_seconds);
  for (const auto& [name, value] : report.diagnostics) out += line("%-13s %.6g\n", name.c_str(), value);
  for (const auto& warning : report.warnings) out += line("warning       %s\n", warning.c_str());
  return out;
}

std::string fit_predictions_csv(const JobData& data, const FitAndScore& fitted) {
  const PointScores& scores = fitted.evaluation.points;
  std::ostringstream out;
  out << "row,y,mean,variance,log_density,squared_error\n";
  for (std::size_t i = 0; i < scores.mean.size(); ++i)
    out << i << "," << data.y_test[static_cast<Eigen::Index>(i)] << "," << scores.mean[i] << "," << scores.variance[i]
        << "," << scores.log_density[i] << "," << scores.squared_error[i] << "\n";
  return out.str();
}

}  // namespace bnn::exp
