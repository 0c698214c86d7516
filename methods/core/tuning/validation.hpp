#pragma once
// Holding out a validation part of the training data for tuning (never the test part).
#include <cstdint>

#include "methods/core/model.hpp"
#include "methods/core/rng.hpp"

namespace bnn::tuning {

struct ValidationSplit {
  RegressionData fit, validation;
};

// A seeded random `fraction` of the rows as validation data; throws std::invalid_argument
// (naming `method`) when either part would be too small.
ValidationSplit split_validation(const RegressionData& data, double fraction, Rng& rng, const char* method);

// The rows in a random order drawn from their values and `key` alone: the same rows given in
// any order come out in the same order (rows equal in every value being interchangeable). Any
// part of it is a random subset that no ordering of a file or of a split's index list can bias,
// and a fit on it does not depend on the order the rows came in.
RegressionData order_by_content(const RegressionData& data, std::uint64_t key);

}  // namespace bnn::tuning
