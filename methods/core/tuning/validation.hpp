#pragma once
// Holding out a validation part of the training data for tuning (never the test part).
#include "methods/core/model.hpp"
#include "methods/core/rng.hpp"

namespace bnn::tuning {

struct ValidationSplit {
  RegressionData fit, validation;
};

// A seeded random `fraction` of the rows as validation data; throws std::invalid_argument
// (naming `method`) when either part would be too small.
ValidationSplit split_validation(const RegressionData& data, double fraction, Rng& rng, const char* method);

}  // namespace bnn::tuning
