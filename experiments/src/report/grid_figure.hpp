#pragma once
// The figure of a grid experiment (pbp-toy, epnn-case1..3) drawn from its stored grid
// predictions: a one-input grid gives a panel per method with the predictive mean, its 95%
// interval and the data; a one-at-a-time grid a panel per input with every method overlaid;
// a two-input product grid heat maps of each method's predictive mean and sd.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "datasets/src/dataset.hpp"
#include "datasets/src/synthetic.hpp"
#include "experiments/src/plot/svg_plot.hpp"
#include "experiments/src/records/job_record.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

// `grids`: the stored predictions to draw (one split per data set and method is drawn, the
// lowest); `observations`: the spec's data sets in original units, drawn where the grid has
// one input or two; `truth`: the noise-free function of a synthetic data set (by name), drawn
// with the predictions. std::invalid_argument for a spec without a grid, no grids, or a
// product grid over more than two inputs.
plot::Figure grid_figure(const ExperimentSpec& spec, const std::vector<std::pair<JobKey, GridPredictions>>& grids,
                         const std::vector<data::Dataset>& observations,
                         const std::map<std::string, data::LatentFunction>& truth = {});

}  // namespace bnn::exp
