#include "experiments/src/report/comparison_figure.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace bnn::exp {
namespace {

constexpr double kOffset = 0.17;  // ours left of the method's position, the paper's right of it

// value -+ 2 se (a point where the standard error is not known)
void add_interval(plot::Intervals& s, double x, double value, double se) {
  const double half = std::isfinite(se) ? 2.0 * se : 0.0;
  s.x.push_back(x);
  s.centre.push_back(value);
  s.lower.push_back(value - half);
  s.upper.push_back(value + half);
}

}  // namespace

plot::Figure comparison_figure(const ReportData& r) {
  plot::Figure figure;
  figure.title =
      r.spec->name + (r.spec->title.empty() ? std::string() : ": " + r.spec->title) + ", ours beside the paper's";
  figure.notes.push_back(
      "mean -+ 2 standard errors (over splits; a dot alone where none is defined); '*' after a "
      "method: ours differs from the paper's by more than two combined standard errors beyond "
      "its rounding; paper: " +
      r.spec->paper);
  figure.legend = {{"ours", plot::palette(0), plot::LegendEntry::Kind::interval},
                   {"paper", plot::palette(1), plot::LegendEntry::Kind::interval}};
  figure.columns = 3;
  figure.panel_width = 300.0;
  figure.panel_height = 260.0;
  for (const auto& metric : r.metrics) {
    const MetricInfo* info = find_metric(metric);
    if (info && !info->comparable) continue;
    for (const auto& dataset : r.datasets) {
      plot::Panel panel;
      panel.title = dataset.name + ": " + (info ? info->title : metric);
      panel.y_label = metric;
      panel.slanted_categories = true;
      plot::Intervals ours, paper;
      ours.colour = plot::palette(0);
      paper.colour = plot::palette(1);
      double position = 0.0;
      for (const auto& label : r.methods) {
        const Cell& c = r.cell(dataset.name, label, metric);
        if (!c.ours && !c.paper) continue;
        if (c.ours) add_interval(ours, position - kOffset, c.ours->value, c.ours->se);
        if (c.paper) add_interval(paper, position + kOffset, c.paper->value, c.paper->se);
        panel.x_categories.emplace_back(position, label + (c.differs ? " *" : ""));
        position += 1.0;
      }
      if (ours.x.empty()) continue;  // nothing of ours to compare here
      panel.x_range = plot::Range{-0.6, position - 0.4};
      panel.intervals = {paper, ours};
      figure.panels.push_back(std::move(panel));
    }
  }
  const bool any_paper = std::any_of(figure.panels.begin(), figure.panels.end(),
                                     [](const plot::Panel& p) { return !p.intervals.front().x.empty(); });
  if (!any_paper) {  // nothing published to compare with (e.g. the quickstart): ours alone
    figure.title = r.spec->name + (r.spec->title.empty() ? std::string() : ": " + r.spec->title);
    figure.legend.pop_back();
  }
  if (figure.panels.empty())
    throw std::invalid_argument("experiment " + r.spec->name +
                                ": the report has no value of a metric compared with "
                                "the paper to draw");
  return figure;
}

}  // namespace bnn::exp
