#include "experiments/src/report/grid_figure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>

namespace bnn::exp {
namespace {

using Grids = std::vector<std::pair<JobKey, GridPredictions>>;

std::vector<double> column(const Eigen::MatrixXd& X, Eigen::Index j) {
  return {X.col(j).data(), X.col(j).data() + X.rows()};
}

// The spec's method order, then any other label in the store's order.
std::vector<std::string> method_order(const ExperimentSpec& spec, const Grids& grids) {
  std::vector<std::string> order;
  for (const auto& m : spec.methods) order.push_back(m.label);
  for (const auto& [key, g] : grids)
    if (std::find(order.begin(), order.end(), key.method_label) == order.end()) order.push_back(key.method_label);
  return order;
}

// The drawn job per (data set, method): the lowest split.
std::map<std::pair<std::string, std::string>, const std::pair<JobKey, GridPredictions>*> drawn_jobs(
    const Grids& grids) {
  std::map<std::pair<std::string, std::string>, const std::pair<JobKey, GridPredictions>*> drawn;
  for (const auto& job : grids) {
    auto& slot = drawn[{job.first.dataset, job.first.method_label}];
    if (!slot || job.first.split < slot->first.split) slot = &job;
  }
  return drawn;
}

const data::Dataset* find_observations(const std::vector<data::Dataset>& observations, const std::string& name) {
  for (const auto& d : observations)
    if (d.name == name) return &d;
  return nullptr;
}

using Truth = std::map<std::string, data::LatentFunction>;

// The true function at every grid row, or empty when the data set has none.
std::vector<double> truth_at(const Truth& truth, const std::string& dataset, const GridPoints& points) {
  const auto it = truth.find(dataset);
  if (it == truth.end() || !it->second) return {};
  std::vector<double> f;
  for (Eigen::Index r = 0; r < points.X.rows(); ++r) f.push_back(it->second(points.X.row(r).transpose()));
  if (!std::all_of(f.begin(), f.end(), [](double v) { return std::isfinite(v); })) return {};
  return f;
}

const plot::LegendEntry kTruthEntry{"true function", "#000000", plot::LegendEntry::Kind::dashed_line};

std::vector<double> sd_of(const GridPredictions& g) {
  std::vector<double> sd(g.variance.size());
  std::transform(g.variance.begin(), g.variance.end(), sd.begin(), [](double v) { return std::sqrt(v); });
  return sd;
}

// The data sets of the drawn jobs, in the order of the grids.
std::vector<std::string> dataset_order(const Grids& grids) {
  std::vector<std::string> order;
  for (const auto& [key, g] : grids)
    if (std::find(order.begin(), order.end(), key.dataset) == order.end()) order.push_back(key.dataset);
  return order;
}

// One input: a panel per data set and method, the data in each.
void one_input_panels(const ExperimentSpec& spec, const Grids& grids, const std::vector<data::Dataset>& observations,
                      const Truth& truth, plot::Figure& figure) {
  bool any_truth = false;
  const auto drawn = drawn_jobs(grids);
  const auto methods = method_order(spec, grids);
  const auto datasets = dataset_order(grids);
  for (const auto& dataset : datasets) {
    const std::size_t first_panel = figure.panels.size();
    for (std::size_t m = 0; m < methods.size(); ++m) {
      const auto it = drawn.find({dataset, methods[m]});
      if (it == drawn.end()) continue;
      const GridPredictions& g = it->second->second;
      plot::Panel panel;
      panel.title = datasets.size() > 1 ? dataset + ": " + methods[m] : methods[m];
      panel.x_label = "x";
      panel.y_label = "y";
      const std::vector<double> x = column(g.points.X, 0);
      panel.bands.push_back({x, g.lower95, g.upper95, plot::palette(m), 0.25});
      panel.lines.push_back({x, g.mean, plot::palette(m), 1.6, false});
      if (const std::vector<double> f = truth_at(truth, dataset, g.points); !f.empty()) {
        panel.lines.push_back({x, f, "#000000", 1.2, true});
        any_truth = true;
      }
      if (const data::Dataset* data = find_observations(observations, dataset))
        panel.points.push_back({column(data->X, 0), {data->y.data(), data->y.data() + data->y.size()}, "#000000", 2.0});
      figure.panels.push_back(std::move(panel));
    }
    // One y range for the data set's panels, so that the methods compare at a glance.
    std::vector<const std::vector<double>*> ys;
    for (std::size_t p = first_panel; p < figure.panels.size(); ++p) {
      for (const auto& band : figure.panels[p].bands) ys.insert(ys.end(), {&band.lower, &band.upper});
      for (const auto& points : figure.panels[p].points) ys.push_back(&points.y);
    }
    const plot::Range shared = plot::data_range(ys, 0.05);
    for (std::size_t p = first_panel; p < figure.panels.size(); ++p) figure.panels[p].y_range = shared;
  }
  figure.legend = {{"predictive mean", "#555555", plot::LegendEntry::Kind::line},
                   {"central 95% predictive interval", "#555555", plot::LegendEntry::Kind::band},
                   {"data", "#000000", plot::LegendEntry::Kind::point}};
  if (any_truth) figure.legend.push_back(kTruthEntry);
}

// One input varied at a time: a panel per data set and input, every method overlaid.
void one_at_a_time_panels(const ExperimentSpec& spec, const Grids& grids, const Truth& truth, plot::Figure& figure) {
  bool any_truth = false;
  const auto drawn = drawn_jobs(grids);
  const auto methods = method_order(spec, grids);
  const auto datasets = dataset_order(grids);
  char others[32];
  std::snprintf(others, sizeof others, "%g", spec.grid->fixed);
  for (const auto& dataset : datasets) {
    std::map<int, plot::Panel> panels;  // by varied input
    for (std::size_t m = 0; m < methods.size(); ++m) {
      const auto it = drawn.find({dataset, methods[m]});
      if (it == drawn.end()) continue;
      const GridPredictions& g = it->second->second;
      std::map<int, std::vector<Eigen::Index>> rows;
      for (std::size_t r = 0; r < g.points.varied.size(); ++r)
        rows[static_cast<int>(g.points.varied[r])].push_back(static_cast<Eigen::Index>(r));
      const std::vector<double> f = truth_at(truth, dataset, g.points);
      for (const auto& [input, idx] : rows) {
        plot::Panel& panel = panels[input];
        panel.title = (datasets.size() > 1 ? dataset + ": " : std::string()) + "input " + std::to_string(input);
        panel.x_label = "x" + std::to_string(input) + " (other inputs at " + std::string(others) + ")";
        panel.y_label = "f";
        std::vector<double> x, mean, lower, upper;
        for (Eigen::Index r : idx) {
          const auto k = static_cast<std::size_t>(r);
          x.push_back(g.points.X(r, input - 1));
          mean.push_back(g.mean[k]);
          lower.push_back(g.lower95[k]);
          upper.push_back(g.upper95[k]);
        }
        panel.bands.push_back({x, lower, upper, plot::palette(m), 0.15});
        panel.lines.push_back({x, mean, plot::palette(m), 1.6, false});
        if (!f.empty() &&
            std::none_of(panel.lines.begin(), panel.lines.end(), [](const plot::Line& l) { return l.dashed; })) {
          std::vector<double> true_f;
          for (Eigen::Index r : idx) true_f.push_back(f[static_cast<std::size_t>(r)]);
          panel.lines.push_back({x, true_f, "#000000", 1.2, true});
          any_truth = true;
        }
      }
    }
    for (auto& [input, panel] : panels) figure.panels.push_back(std::move(panel));
  }
  for (std::size_t m = 0; m < methods.size(); ++m)
    if (std::any_of(drawn.begin(), drawn.end(), [&](const auto& e) { return e.first.second == methods[m]; }))
      figure.legend.push_back({methods[m] + " (mean, 95% interval)", plot::palette(m), plot::LegendEntry::Kind::line});
  if (any_truth) figure.legend.push_back(kTruthEntry);
  figure.columns = 5;
  figure.panel_width = 250.0;
  figure.panel_height = 210.0;
}

// Two inputs on a product grid: heat maps of the predictive mean (first row) and sd (second).
void two_input_panels(const ExperimentSpec& spec, const Grids& grids, const std::vector<data::Dataset>& observations,
                      const Truth& truth, plot::Figure& figure) {
  const auto drawn = drawn_jobs(grids);
  const auto methods = method_order(spec, grids);
  std::vector<const std::pair<JobKey, GridPredictions>*> jobs;
  for (const auto& label : methods)
    for (const auto& [id, job] : drawn)
      if (id.second == label) jobs.push_back(job);
  constexpr double inf = std::numeric_limits<double>::infinity();
  plot::Range mean_scale{inf, -inf}, sd_scale{inf, -inf};
  for (const auto* job : jobs) {
    for (double v : job->second.mean) mean_scale = {std::min(mean_scale.lo, v), std::max(mean_scale.hi, v)};
    for (double v : sd_of(job->second)) sd_scale = {std::min(sd_scale.lo, v), std::max(sd_scale.hi, v)};
  }
  // The true function, where known, as a last panel of the first row (the second keeps the slot empty).
  const std::vector<double> f =
      jobs.empty() ? std::vector<double>{} : truth_at(truth, jobs.front()->first.dataset, jobs.front()->second.points);
  for (int row = 0; row < 2; ++row) {
    for (const auto* job : jobs) {
      const GridPredictions& g = job->second;
      plot::Panel panel;
      panel.title = job->first.method_label + (row == 0 ? ": predictive mean" : ": predictive sd");
      panel.x_label = "x1";
      panel.y_label = "x2";
      panel.cells.push_back(plot::grid_cells(g.points.X.col(0), g.points.X.col(1), row == 0 ? g.mean : sd_of(g),
                                             row == 0 ? mean_scale : sd_scale));
      const data::Dataset* data = find_observations(observations, job->first.dataset);
      if (data && data->X.cols() == 2) panel.points.push_back({column(data->X, 0), column(data->X, 1), "#ffffff", 1.6});
      figure.panels.push_back(std::move(panel));
    }
    if (!f.empty()) {
      plot::Panel panel = figure.panels.back();  // the same axes and data
      panel.title = "true function";
      const GridPoints& points = jobs.front()->second.points;
      panel.cells = {plot::grid_cells(points.X.col(0), points.X.col(1), f, mean_scale)};
      panel.blank = row == 1;
      figure.panels.push_back(std::move(panel));
    }
  }
  figure.columns = static_cast<int>(std::max<std::size_t>(1, jobs.size() + (f.empty() ? 0 : 1)));
  figure.panel_width = 330.0;
  figure.panel_height = 280.0;
  figure.notes.push_back("white dots: the training inputs; one colour scale per row, shown beside each panel");
}

}  // namespace

plot::Figure grid_figure(const ExperimentSpec& spec, const Grids& grids, const std::vector<data::Dataset>& observations,
                         const Truth& truth) {
  if (!spec.grid)
    throw std::invalid_argument("experiment " + spec.name + " has no [grid], so it has no figure to draw");
  if (grids.empty())
    throw std::invalid_argument("experiment " + spec.name + ": the store holds no grid predictions of the spec's jobs");
  plot::Figure figure;
  figure.title = spec.name + (spec.title.empty() ? std::string() : ": " + spec.title);
  const GridPredictions& first = grids.front().second;
  if (spec.grid->mode == GridSpec::Mode::one_at_a_time) {
    one_at_a_time_panels(spec, grids, truth, figure);
  } else if (first.points.X.cols() == 1) {
    one_input_panels(spec, grids, observations, truth, figure);
    figure.columns = 2;
  } else if (first.points.X.cols() == 2) {
    two_input_panels(spec, grids, observations, truth, figure);
  } else {
    throw std::invalid_argument("experiment " + spec.name + ": a product grid over " +
                                std::to_string(first.points.X.cols()) +
                                " inputs cannot be drawn (one or two inputs, or mode = \"one-at-a-time\")");
  }
  int lowest = grids.front().first.split;
  for (const auto& [key, g] : grids) lowest = std::min(lowest, key.split);
  figure.notes.insert(figure.notes.begin(), "original units; split " + std::to_string(lowest) +
                                                " of each data set and method; paper: " + spec.paper);
  return figure;
}

}  // namespace bnn::exp
