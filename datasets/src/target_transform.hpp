#pragma once
// A fixed transform of the target applied right after loading, before any split or
// normalization: part of an experiment's data protocol where a paper modelled, say, the square
// root of a skewed count instead of the count itself. Metrics are then on the transformed scale.
#include <string>

#include "datasets/src/dataset.hpp"

namespace bnn::data {

enum class TargetTransform { none, sqrt, log1p };

// "none", "sqrt" or "log1p"; throws std::invalid_argument naming the accepted values.
TargetTransform parse_target_transform(const std::string& text);
std::string to_string(TargetTransform transform);
// How the transformed target reads in a report, e.g. "sqrt(y)".
std::string describe_target(TargetTransform transform);

// Replaces data.y by its transform; a value outside the transform's domain (negative for sqrt,
// <= -1 for log1p) is a DataError naming the data set's file and the row.
void apply_target_transform(Dataset& data, TargetTransform transform);

}  // namespace bnn::data
