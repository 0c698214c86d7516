#include "datasets/src/target_transform.hpp"

#include <cmath>
#include <stdexcept>

#include "datasets/src/data_error.hpp"

namespace bnn::data {

TargetTransform parse_target_transform(const std::string& text) {
  if (text == "none") return TargetTransform::none;
  if (text == "sqrt") return TargetTransform::sqrt;
  if (text == "log1p") return TargetTransform::log1p;
  throw std::invalid_argument("target transform '" + text + "' is not one of none, sqrt, log1p");
}

std::string to_string(TargetTransform transform) {
  switch (transform) {
    case TargetTransform::sqrt: return "sqrt";
    case TargetTransform::log1p: return "log1p";
    case TargetTransform::none: break;
  }
  return "none";
}

std::string describe_target(TargetTransform transform) {
  switch (transform) {
    case TargetTransform::sqrt: return "sqrt(y)";
    case TargetTransform::log1p: return "log(1 + y)";
    case TargetTransform::none: break;
  }
  return "y";
}

void apply_target_transform(Dataset& data, TargetTransform transform) {
  if (transform == TargetTransform::none) return;
  const double lowest = transform == TargetTransform::sqrt ? 0.0 : -1.0;
  for (Eigen::Index i = 0; i < data.y.size(); ++i) {
    const double y = data.y(i);
    const bool inside = transform == TargetTransform::sqrt ? y >= lowest : y > lowest;
    if (!inside)
      throw DataError(data.origin, 0, 0,
                      data.name + ": target " + std::to_string(y) + " in data row " + std::to_string(i + 1) +
                          " is outside the domain of " + describe_target(transform));
    data.y(i) = transform == TargetTransform::sqrt ? std::sqrt(y) : std::log1p(y);
  }
}

}  // namespace bnn::data
