#include "parameter_figures.hpp"

#include <algorithm>
#include <cmath>
#include <Eigen/Cholesky>
#include <cstdio>
#include <numbers>

namespace bnn::exp {
namespace {

plot::Intervals intervals_of(const std::vector<const WeightInterval*>& rows, const std::vector<double>& positions,
                             const std::string& colour) {
  plot::Intervals s;
  s.colour = colour;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    s.x.push_back(positions[i]);
    s.centre.push_back(rows[i]->mean);
    s.lower.push_back(rows[i]->mean - 1.96 * rows[i]->sd);
    s.upper.push_back(rows[i]->mean + 1.96 * rows[i]->sd);
  }
  return s;
}

}  // namespace

plot::Figure weight_interval_figure(const std::vector<WeightIntervalSet>& sets) {
  plot::Figure figure;
  figure.title = "NN-EP parameters: 95% marginal intervals (EP-NN paper, Figures 2(c,d) and 4)";
  figure.notes.push_back("input weights grouped by hidden unit (within a unit: inputs 1..d, then the bias); "
                         "phi: log prior variance of each scale group; v: output weights (b: the output bias)");
  figure.columns = 3;
  figure.panel_width = 360.0;
  for (const auto& set : sets) {
    int units = 0, inputs = 0;
    for (const auto& r : set.rows)
      if (r.parameter == "w") {
        units = std::max(units, r.unit);
        inputs = std::max(inputs, r.input);
      }
    // Input weights: unit k's inputs at (k - 1)(inputs + 1) + input, a gap between units.
    plot::Panel w;
    w.title = set.name + " (" + set.method + "): input weights";
    w.x_label = "hidden unit";
    w.y_label = "w";
    w.zero_line = 0.0;
    for (int k = 1; k <= units; ++k) {
      std::vector<const WeightInterval*> rows;
      std::vector<double> positions;
      for (const auto& r : set.rows)
        if (r.parameter == "w" && r.unit == k) {
          rows.push_back(&r);
          positions.push_back((k - 1) * (inputs + 1) + r.input);
        }
      w.intervals.push_back(intervals_of(rows, positions, plot::palette(static_cast<std::size_t>((k - 1) % 2))));
      w.x_categories.emplace_back((k - 1) * (inputs + 1) + 0.5 * (inputs + 1), std::to_string(k));
    }
    plot::Panel phi;
    phi.title = set.name + ": scale groups";
    phi.x_label = "group (input; b: the bias)";
    phi.y_label = "phi = log lambda^2";
    {
      std::vector<const WeightInterval*> rows;
      std::vector<double> positions;
      for (const auto& r : set.rows)
        if (r.parameter == "phi") {
          rows.push_back(&r);
          positions.push_back(static_cast<double>(rows.size()));
          const std::string label = r.input == 0 ? "all" : r.input > inputs - 1 ? "b" : std::to_string(r.input);
          phi.x_categories.emplace_back(positions.back(), label);
        }
      phi.intervals.push_back(intervals_of(rows, positions, plot::palette(2)));
      if (rows.size() == 1) phi.x_range = plot::Range{0.0, 2.0};
    }
    plot::Panel v;
    v.title = set.name + ": output weights";
    v.x_label = "hidden unit";
    v.y_label = "v";
    v.zero_line = 0.0;
    {
      std::vector<const WeightInterval*> rows;
      std::vector<double> positions;
      for (const auto& r : set.rows)
        if (r.parameter == "v") {
          rows.push_back(&r);
          positions.push_back(r.unit);
          v.x_categories.emplace_back(r.unit, r.unit == 0 ? "b" : std::to_string(r.unit));
        }
      v.intervals.push_back(intervals_of(rows, positions, plot::palette(3)));
    }
    figure.panels.push_back(std::move(w));
    figure.panels.push_back(std::move(phi));
    figure.panels.push_back(std::move(v));
  }
  return figure;
}

plot::Figure posterior_fit_figure(const PosteriorFigure& result, const std::map<std::string, std::string>& paper_kl) {
  // the log posterior on the (u, v) grid
  const Eigen::VectorXd log_posterior = result.plot.col(2);
  const plot::Cells grid = plot::grid_cells(result.plot.col(0), result.plot.col(1),
                                            {log_posterior.data(), log_posterior.data() + log_posterior.size()}, {});
  const std::vector<double>& u = grid.x;
  const std::vector<double>& v = grid.y;
  const Eigen::MatrixXd& posterior = grid.values;
  const double top = posterior.maxCoeff();
  plot::Figure figure;
  figure.title = "Barber & Bishop (1998), Figure 2: Gaussian approximations to a two-weight posterior";
  figure.notes.push_back("f(x) = v erf(u x / sqrt 2) on bb-toy; contours at log density max - r^2/2 for r = 1, 2, 3 "
                         "(a Gaussian's 1, 2, 3 sd); the posterior has two modes, (u, v) and (-u, -v)");
  figure.columns = static_cast<int>(result.fits.size());
  figure.panel_height = 300.0;
  figure.legend = {{"posterior p(u, v | D)", "#000000", plot::LegendEntry::Kind::line},
                   {"Gaussian approximation Q", plot::palette(1), plot::LegendEntry::Kind::dashed_line}};
  for (std::size_t f = 0; f < result.fits.size(); ++f) {
    const GaussianFit& fit = result.fits[f];
    plot::Panel panel;
    char kl[64];
    std::snprintf(kl, sizeof kl, "%.3g", fit.kl);
    const auto paper = paper_kl.find(fit.method);
    panel.title = fit.method + ": KL(Q||P) = " + kl + (paper == paper_kl.end() ? "" : " (paper " + paper->second + ")");
    panel.x_label = "u (input weight)";
    panel.y_label = "v (output weight)";
    for (double r : {1.0, 2.0, 3.0})
      panel.contours.push_back({plot::contour_segments(u, v, posterior, top - 0.5 * r * r), "#000000", 1.0, false});
    // The fit's ellipses: mean + r L (cos t, sin t), L the Cholesky factor of its covariance.
    const Eigen::Matrix2d L = fit.covariance.llt().matrixL();
    for (double r : {1.0, 2.0, 3.0}) {
      plot::Line ellipse;
      ellipse.colour = plot::palette(1);
      ellipse.dashed = true;
      for (int t = 0; t <= 120; ++t) {
        const double angle = 2.0 * std::numbers::pi * t / 120.0;
        const Eigen::Vector2d p = fit.mean + r * L * Eigen::Vector2d(std::cos(angle), std::sin(angle));
        ellipse.x.push_back(p[0]);
        ellipse.y.push_back(p[1]);
      }
      panel.lines.push_back(std::move(ellipse));
    }
    panel.points.push_back({{fit.mean[0]}, {fit.mean[1]}, plot::palette(1), 2.5});
    figure.panels.push_back(std::move(panel));
  }
  return figure;
}

}  // namespace bnn::exp
