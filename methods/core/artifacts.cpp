#include "artifacts.hpp"

namespace bnn {

std::vector<std::string> two_layer_parameter_names(Eigen::Index inputs, Eigen::Index hidden, bool input_bias,
                                                   bool output_bias) {
  std::vector<std::string> names;
  // Built by appending: GCC 12 takes `"u" + std::to_string(i)` for an overflowing copy
  // (-Wstringop-overflow) when the standard headers come precompiled.
  const auto name = [](char letter, Eigen::Index number, const char* rest) {
    std::string text(1, letter);
    text += std::to_string(number);
    text += rest;
    return text;
  };
  for (Eigen::Index i = 1; i <= hidden; ++i) {
    const std::string unit = name('u', i, ".");
    for (Eigen::Index j = 1; j <= inputs; ++j) names.push_back(unit + std::to_string(j));
    if (input_bias) names.push_back(unit + "bias");
  }
  for (Eigen::Index i = 1; i <= hidden; ++i) names.push_back(name('v', i, ""));
  if (output_bias) names.push_back("c");
  return names;
}

}  // namespace bnn
