#pragma once
// Drawings of the two figures that are not prediction grids: the EP-NN paper's panels of
// 95% intervals of NN-EP's parameters (Figures 2(c,d) and 4) and Barber & Bishop's Figure 2
// (a two-weight posterior with its Gaussian approximations).
#include <map>
#include <string>
#include <vector>

#include "posterior_figure.hpp"
#include "svg_plot.hpp"
#include "weight_intervals.hpp"

namespace bnn::exp {

struct WeightIntervalSet {
  std::string name, method;  // e.g. epnn-case2, nn-ep-ard
  std::vector<WeightInterval> rows;
};

// Per set a row of three panels: input weights grouped by hidden unit, the scale groups'
// log prior variances phi, the output weights (b: the output bias); 95% marginal intervals.
plot::Figure weight_interval_figure(const std::vector<WeightIntervalSet>& sets);

// A panel per Gaussian fit: the posterior's contours and the fit's, at the density ratios
// of one, two and three standard deviations of a Gaussian (log p = max - r^2 / 2);
// `paper_kl`: the paper's KL(Q||P) per method, shown beside ours.
plot::Figure posterior_fit_figure(const PosteriorFigure& figure, const std::map<std::string, std::string>& paper_kl);

}  // namespace bnn::exp
