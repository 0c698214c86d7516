#pragma once
// What `bnnbench fit` prints of one fit on a user's files, and its per-test-point file.
#include <string>

#include "datasets/src/target_transform.hpp"
#include "experiments/src/run/fit_and_score.hpp"

namespace bnn::exp {

// Method, sizes, fit status, metrics, time, diagnostics and warnings, one per line.
std::string fit_summary(const std::string& method, const JobData& data, const FitAndScore& fitted,
                        data::TargetTransform transform);

// row,y,mean,variance,log_density,squared_error per test point (original units).
std::string fit_predictions_csv(const JobData& data, const FitAndScore& fitted);

}  // namespace bnn::exp
