#pragma once
// Trace plots of an NN-MC fit: per chain, the kept draws' training log-likelihood, noise sd
// and network output at chosen test points, with the split R-hat of every test prediction.
// What the report's "R-hat above 1.1" warnings look like: chains that agree overlap, chains
// stuck in different modes run side by side.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "methods/core/model.hpp"
#include "methods/hmc/hmc.hpp"
#include "svg_plot.hpp"

namespace bnn::exp {

struct ChainTraces {
  std::vector<std::vector<double>> log_likelihood;  // chain x kept draw, training data, normalized scale
  std::vector<std::vector<double>> noise_sd;        // chain x kept draw
  std::vector<Eigen::MatrixXd> outputs;             // per chain: kept draws x test points, f(x*)
  std::vector<double> rhat;                         // split R-hat of f(x*) per test point
  Eigen::Index worst = 0, median = 0;               // test points of the largest and the median R-hat
};

// From a fitted NN-MC model, its training data and the test inputs (both normalized).
ChainTraces chain_traces(const hmc::Model& model, const RegressionData& train, const Eigen::MatrixXd& X_test);

// Four panels: log-likelihood, noise sd, f at the worst and at the median test point; a
// colour per chain.
plot::Figure chain_trace_figure(const ChainTraces& traces, const std::string& title,
                                const std::vector<std::string>& notes);

}  // namespace bnn::exp
