#include "artifacts.hpp"

namespace bnn {

std::vector<std::string> two_layer_parameter_names(Eigen::Index inputs, Eigen::Index hidden, bool input_bias,
                                                   bool output_bias) {
  std::vector<std::string> names;
  for (Eigen::Index i = 1; i <= hidden; ++i) {
    const std::string unit = "u" + std::to_string(i) + ".";
    for (Eigen::Index j = 1; j <= inputs; ++j) names.push_back(unit + std::to_string(j));
    if (input_bias) names.push_back(unit + "bias");
  }
  for (Eigen::Index i = 1; i <= hidden; ++i) names.push_back("v" + std::to_string(i));
  if (output_bias) names.push_back("c");
  return names;
}

}  // namespace bnn
