#include "datasets/src/target_transform.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

#include "datasets/src/data_error.hpp"

namespace bnn::data {
namespace {

struct TransformName {
  TargetTransform transform;
  const char* name;     // as written in specs and options
  const char* formula;  // as a report reads it
};
constexpr std::array<TransformName, 3> kTransforms{{
    {TargetTransform::none, "none", "y"},
    {TargetTransform::sqrt, "sqrt", "sqrt(y)"},
    {TargetTransform::log1p, "log1p", "log(1 + y)"},
}};

const TransformName& entry(TargetTransform transform) {
  for (const auto& e : kTransforms)
    if (e.transform == transform) return e;
  return kTransforms.front();
}

}  // namespace

TargetTransform parse_target_transform(const std::string& text) {
  for (const auto& e : kTransforms)
    if (text == e.name) return e.transform;
  throw std::invalid_argument("target transform '" + text + "' is not one of none, sqrt, log1p");
}

std::string to_string(TargetTransform transform) { return entry(transform).name; }

std::string describe_target(TargetTransform transform) { return entry(transform).formula; }

void apply_target_transform(Dataset& data, TargetTransform transform) {
  if (transform == TargetTransform::none) return;
  const bool is_sqrt = transform == TargetTransform::sqrt;
  for (Eigen::Index i = 0; i < data.y.size(); ++i) {
    const double y = data.y(i);
    const bool inside = is_sqrt ? y >= 0.0 : y > -1.0;
    if (!inside)
      throw DataError(data.origin, 0, 0,
                      data.name + ": target " + std::to_string(y) + " in data row " + std::to_string(i + 1) +
                          " is outside the domain of " + describe_target(transform));
    data.y(i) = is_sqrt ? std::sqrt(y) : std::log1p(y);
  }
}

}  // namespace bnn::data
