#pragma once
// A small plotting layer that writes standalone SVG: panels in a grid, each with axes and
// ticks, and lines, shaded bands, points, vertical intervals, filled cells (heat maps) and
// contour lines. Enough to draw the papers' figures from the harness's own numbers, with no
// plotting library; the drawing data stays in the CSV files beside it.
#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

namespace bnn::exp::plot {

// Okabe-Ito colours, distinguishable in colour-blind vision; the i-th series' colour.
std::string palette(std::size_t i);
// A colour on a perceptually ordered scale (viridis-like) for t in [0, 1] (clamped).
std::string sequential_colour(double t);

struct Range {
  double lo = 0.0, hi = 1.0;
};
// Tick positions at 1, 2 or 5 times a power of ten, about `target` of them, inside [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int target = 5);
// [lo, hi] of the finite values widened by `padding` of its width (a point range gets +-0.5).
Range data_range(const std::vector<const std::vector<double>*>& values, double padding = 0.04);
// Tick label: as few decimals as the tick step needs.
std::string tick_label(double value, double step);

struct Line {
  std::vector<double> x, y;
  std::string colour = "#000000";
  double width = 1.5;
  bool dashed = false;
};
struct Band {  // the area between lower and upper over x
  std::vector<double> x, lower, upper;
  std::string colour = "#000000";
  double opacity = 0.25;
};
struct Points {
  std::vector<double> x, y;
  std::string colour = "#000000";
  double radius = 1.8;
};
struct Intervals {  // a vertical bar from lower to upper and a dot at centre, at each x
  std::vector<double> x, lower, upper, centre;
  std::string colour = "#000000";
};
struct Cells {  // a heat map: values(i, j) fills the cell centred at (x[i], y[j])
  std::vector<double> x, y;
  Eigen::MatrixXd values;
  Range scale;  // values mapped to sequential_colour((v - lo) / (hi - lo))
};
// Values given at the points (x[r], y[r]) of a product grid, in any order, as a heat map: its
// axes are the distinct x and y, values(i, j) the value at (x[i], y[j]) (NaN where none is given).
Cells grid_cells(const Eigen::Ref<const Eigen::VectorXd>& x, const Eigen::Ref<const Eigen::VectorXd>& y,
                 const std::vector<double>& values, Range scale);
struct Segment {
  double x0, y0, x1, y1;
};
struct Contour {  // line segments, e.g. from contour_segments
  std::vector<Segment> segments;
  std::string colour = "#000000";
  double width = 1.0;
  bool dashed = false;
};

struct Panel {
  std::string title, x_label, y_label;
  std::optional<Range> x_range, y_range;                     // default: the data's
  std::vector<std::pair<double, std::string>> x_categories;  // tick labels at positions instead of numbers
  bool slanted_categories = false;  // the category labels at an angle, for long ones (the plot is shorter)
  std::vector<Cells> cells;
  std::vector<Band> bands;
  std::vector<Contour> contours;
  std::vector<Line> lines;
  std::vector<Intervals> intervals;
  std::vector<Points> points;
  std::optional<double> zero_line;  // a thin horizontal reference line at this y
  bool blank = false;               // keeps its place in the grid of panels, draws nothing
};

struct LegendEntry {
  std::string label, colour;
  enum class Kind { line, dashed_line, band, point, interval } kind = Kind::line;
};

struct Figure {
  std::string title;
  std::vector<std::string> notes;  // lines of small text under the title
  int columns = 2;
  double panel_width = 330.0, panel_height = 250.0;
  std::vector<Panel> panels;
  std::vector<LegendEntry> legend;
};

// The whole figure as an SVG document. std::invalid_argument for a figure without panels or
// a series whose coordinate vectors differ in length.
std::string render_svg(const Figure& figure);

// Marching squares: the segments of the level set values = level, values(i, j) at (x[i], y[j]).
std::vector<Segment> contour_segments(const std::vector<double>& x, const std::vector<double>& y,
                                      const Eigen::MatrixXd& values, double level);

}  // namespace bnn::exp::plot
