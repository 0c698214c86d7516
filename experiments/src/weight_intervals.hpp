#pragma once
// The parameter panels of the EP-NN paper's Figures 2(c,d) and 4: 95% marginal intervals of
// NN-EP's input weights, input scales phi_l and output weights on a data set, fitted on all of
// it with inputs and target normalized.
#include <string>
#include <vector>

#include "datasets/src/dataset.hpp"
#include "methods/nnep/nnep.hpp"

namespace bnn::exp {

struct WeightInterval {
  std::string parameter;  // w (input weight), phi (log prior variance of a scale group), v (output weight)
  int unit = 0;           // hidden unit 1..K (0: none; v: 0 is the output bias)
  int input = 0;          // input 1..d, d + 1 the bias (0: none); phi: the group's input for ARD
  double mean = 0.0, sd = 0.0;
};

// Fits nn-ep with `options` on the normalized data and lists every parameter's q marginal.
std::vector<WeightInterval> nnep_weight_intervals(const data::Dataset& data, const nnep::Options& options,
                                                  std::uint64_t seed, FitReport* report = nullptr);

}  // namespace bnn::exp
