#include "experiments/src/report/artifact_figures.hpp"

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>

#include "experiments/src/artifacts/traced_points.hpp"

namespace bnn::exp {
namespace {

// One parameter's marginal as read from a parameter_marginals table.
struct Marginal {
  std::string parameter;
  int unit = 0, input = 0;
  double mean = 0.0, sd = 0.0;
};

std::vector<Marginal> marginals_of(const ArtifactTable& t) {
  const auto& parameter = t.column("parameter").texts;
  const auto& unit = t.column("unit").numbers;
  const auto& input = t.column("input").numbers;
  const auto& mean = t.column("mean").numbers;
  const auto& sd = t.column("sd").numbers;
  std::vector<Marginal> out;
  for (std::size_t r = 0; r < t.rows(); ++r)
    out.push_back({parameter[r], static_cast<int>(unit[r]), static_cast<int>(input[r]), mean[r], sd[r]});
  return out;
}

plot::Intervals intervals_of(const std::vector<const Marginal*>& rows, const std::vector<double>& positions,
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

// The marginals of one family ("phi", "v") as intervals at 1, 2, ... (phi) or at their unit (v).
plot::Panel family_panel(const std::vector<Marginal>& rows, const std::string& family, int inputs,
                         const std::string& title, const std::string& x_label, const std::string& y_label) {
  plot::Panel panel;
  panel.title = title;
  panel.x_label = x_label;
  panel.y_label = y_label;
  std::vector<const Marginal*> chosen;
  std::vector<double> positions;
  for (const auto& r : rows)
    if (r.parameter == family) {
      chosen.push_back(&r);
      if (family == "v") {
        positions.push_back(r.unit);
        panel.x_categories.emplace_back(r.unit, r.unit == 0 ? "b" : std::to_string(r.unit));
      } else {
        positions.push_back(static_cast<double>(chosen.size()));
        panel.x_categories.emplace_back(positions.back(), r.input == 0           ? "all"
                                                          : r.input > inputs - 1 ? "b"
                                                                                 : std::to_string(r.input));
      }
    }
  panel.intervals.push_back(intervals_of(chosen, positions, plot::palette(family == "v" ? 3 : 2)));
  if (family == "v") panel.zero_line = 0.0;
  if (family == "phi" && chosen.size() == 1) panel.x_range = plot::Range{0.0, 2.0};
  return panel;
}

// f at one point, chain by chain, from a chain_draws column.
std::vector<std::vector<double>> per_chain(const ArtifactTable& draws, const std::string& column) {
  const auto& chain = draws.column("chain").numbers;
  const auto& values = draws.column(column).numbers;
  std::vector<std::vector<double>> out;
  for (std::size_t r = 0; r < draws.rows(); ++r) {
    const auto c = static_cast<std::size_t>(chain[r]) - 1;
    if (out.size() <= c) out.resize(c + 1);
    out[c].push_back(values[r]);
  }
  return out;
}

plot::Panel trace_panel(const std::string& title, const std::string& y_label,
                        const std::vector<std::vector<double>>& chains) {
  plot::Panel panel;
  panel.title = title;
  panel.x_label = "kept draw";
  panel.y_label = y_label;
  for (std::size_t c = 0; c < chains.size(); ++c) {
    plot::Line line;
    line.colour = plot::palette(c);
    line.width = 1.0;
    for (std::size_t s = 0; s < chains[c].size(); ++s) {
      line.x.push_back(static_cast<double>(s + 1));
      line.y.push_back(chains[c][s]);
    }
    panel.lines.push_back(std::move(line));
  }
  return panel;
}

std::string fixed(double x, int decimals) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(decimals);
  out << x;
  return out.str();
}

}  // namespace

plot::Figure parameter_marginal_figure(const std::vector<JobTable>& marginals) {
  plot::Figure figure;
  figure.title = "NN-EP parameters: 95% marginal intervals (EP-NN paper, Figures 2(c,d) and 4)";
  figure.notes.push_back(
      "input weights grouped by hidden unit (within a unit: inputs 1..d, then the bias); "
      "phi: log prior variance of each scale group; v: output weights (b: the output bias)");
  figure.columns = 3;
  figure.panel_width = 360.0;
  for (const auto& job : marginals) {
    const std::vector<Marginal> rows = marginals_of(*job.table);
    int units = 0, inputs = 0;
    for (const auto& r : rows)
      if (r.parameter == "w") {
        units = std::max(units, r.unit);
        inputs = std::max(inputs, r.input);
      }
    // Input weights: unit k's inputs at (k - 1)(inputs + 1) + input, a gap between units.
    plot::Panel w;
    w.title = job.dataset + " (" + job.method + "): input weights";
    w.x_label = "hidden unit";
    w.y_label = "w";
    w.zero_line = 0.0;
    for (int k = 1; k <= units; ++k) {
      std::vector<const Marginal*> unit_rows;
      std::vector<double> positions;
      for (const auto& r : rows)
        if (r.parameter == "w" && r.unit == k) {
          unit_rows.push_back(&r);
          positions.push_back((k - 1) * (inputs + 1) + r.input);
        }
      w.intervals.push_back(intervals_of(unit_rows, positions, plot::palette(static_cast<std::size_t>((k - 1) % 2))));
      w.x_categories.emplace_back((k - 1) * (inputs + 1) + 0.5 * (inputs + 1), std::to_string(k));
    }
    figure.panels.push_back(std::move(w));
    figure.panels.push_back(family_panel(rows, "phi", inputs, job.dataset + ": scale groups",
                                         "group (input; b: the bias)", "phi = log lambda^2"));
    figure.panels.push_back(family_panel(rows, "v", inputs, job.dataset + ": output weights", "hidden unit", "v"));
  }
  return figure;
}

plot::Figure gaussian_fit_figure(const std::vector<JobTable>& gaussians, const ArtifactTable& density,
                                 const std::map<std::string, double>& kl,
                                 const std::map<std::string, std::string>& paper_kl) {
  const auto& columns = density.columns;
  const Eigen::Map<const Eigen::VectorXd> u_at(columns[0].numbers.data(), static_cast<Eigen::Index>(density.rows()));
  const Eigen::Map<const Eigen::VectorXd> v_at(columns[1].numbers.data(), static_cast<Eigen::Index>(density.rows()));
  const plot::Cells grid = plot::grid_cells(u_at, v_at, density.column("log_posterior").numbers, {});
  const double top = grid.values.maxCoeff();
  plot::Figure figure;
  figure.title = "Barber & Bishop (1998), Figure 2: Gaussian approximations to a two-weight posterior";
  figure.notes.push_back(
      "f(x) = v erf(u x / sqrt 2); contours at log density max - r^2/2 for r = 1, 2, 3 "
      "(a Gaussian's 1, 2, 3 sd); the posterior has two modes, (u, v) and (-u, -v)");
  figure.columns = static_cast<int>(gaussians.size());
  figure.panel_height = 300.0;
  figure.legend = {{"posterior p(u, v | D)", "#000000", plot::LegendEntry::Kind::line},
                   {"Gaussian approximation Q", plot::palette(1), plot::LegendEntry::Kind::dashed_line}};
  for (const auto& job : gaussians) {
    const ArtifactTable& t = *job.table;
    if (t.rows() != 2)
      throw std::invalid_argument(job.method + ": a Gaussian over two parameters is needed for the figure");
    const auto& m = t.column("mean").numbers;
    const Eigen::Vector2d mean(m[0], m[1]);
    Eigen::Matrix2d covariance;
    for (std::size_t c = 0; c < 2; ++c)
      for (std::size_t r = 0; r < 2; ++r)
        covariance(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = t.columns[2 + c].numbers[r];
    plot::Panel panel;
    std::string title = job.method;
    if (const auto it = kl.find(job.method); it != kl.end()) {
      char text[64];
      std::snprintf(text, sizeof text, "%.3g", it->second);
      title += std::string(": KL(Q||P) = ") + text;
    }
    if (const auto paper = paper_kl.find(job.method); paper != paper_kl.end())
      title += " (paper " + paper->second + ")";
    panel.title = title;
    panel.x_label = columns[0].name + " (input weight)";
    panel.y_label = columns[1].name + " (output weight)";
    for (double r : {1.0, 2.0, 3.0})
      panel.contours.push_back(
          {plot::contour_segments(grid.x, grid.y, grid.values, top - 0.5 * r * r), "#000000", 1.0, false});
    // The fit's ellipses: mean + r L (cos t, sin t), L the Cholesky factor of its covariance.
    const Eigen::Matrix2d L = covariance.llt().matrixL();
    for (double r : {1.0, 2.0, 3.0}) {
      plot::Line ellipse;
      ellipse.colour = plot::palette(1);
      ellipse.dashed = true;
      for (int s = 0; s <= 120; ++s) {
        const double angle = 2.0 * std::numbers::pi * s / 120.0;
        const Eigen::Vector2d p = mean + r * L * Eigen::Vector2d(std::cos(angle), std::sin(angle));
        ellipse.x.push_back(p[0]);
        ellipse.y.push_back(p[1]);
      }
      panel.lines.push_back(std::move(ellipse));
    }
    panel.points.push_back({{mean[0]}, {mean[1]}, plot::palette(1), 2.5});
    figure.panels.push_back(std::move(panel));
  }
  return figure;
}

plot::Figure chain_trace_figure(const ArtifactTable& draws, const ArtifactTable& rhat, const std::string& title,
                                const std::vector<std::string>& notes) {
  const std::vector<double>& r = rhat.column("rhat").numbers;
  const TracedPoints points = traced_points(r);
  plot::Figure figure;
  figure.title = title;
  figure.notes = notes;
  figure.columns = 2;
  figure.panel_width = 420.0;
  figure.panel_height = 240.0;
  figure.panels.push_back(
      trace_panel("training log-likelihood", "log p(y | w, noise)", per_chain(draws, "log_likelihood")));
  figure.panels.push_back(trace_panel("noise sd", "sd (normalized)", per_chain(draws, "noise_sd")));
  const auto point_title = [&](const char* which, Eigen::Index i) {
    return "f at test point " + std::to_string(i + 1) + " (" + which + " R-hat, " +
           fixed(r[static_cast<std::size_t>(i)], 2) + ")";
  };
  figure.panels.push_back(
      trace_panel(point_title("largest", points.worst), "f(x*) (normalized)", per_chain(draws, "f_largest_rhat")));
  const auto chains = per_chain(draws, "f_median_rhat");
  figure.panels.push_back(trace_panel(point_title("median", points.median), "f(x*) (normalized)", chains));
  for (std::size_t c = 0; c < chains.size(); ++c)
    figure.legend.push_back({"chain " + std::to_string(c + 1), plot::palette(c), plot::LegendEntry::Kind::line});
  return figure;
}

}  // namespace bnn::exp
