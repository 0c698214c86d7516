// The SVG plotting layer (experiments/src/plot/svg_plot) and the figure builders on top of it
// (grid_figure, artifact_figures): ticks, ranges, marching squares, well-formed and
// correctly placed SVG, and the panels each figure builder makes from its inputs.
#include <Eigen/Dense>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <random>
#include <regex>

#include "experiments/src/plot/svg_plot.hpp"
#include "experiments/src/report/artifact_figures.hpp"
#include "experiments/src/report/comparison_figure.hpp"
#include "experiments/src/report/grid_figure.hpp"
#include "experiments/src/run/grid.hpp"

using namespace bnn;
using namespace bnn::exp;
namespace plot = bnn::exp::plot;

namespace {

constexpr double not_finite = std::numeric_limits<double>::quiet_NaN();

// Empty if `s` is well-formed as far as these documents need: the prolog skipped, every
// <name ...> closed by </name> in order (or self-closing), one root element, no raw '<' in
// a tag and every '&' the start of an entity. Otherwise the first problem.
std::string xml_problem(const std::string& s) {
  std::vector<std::string> open;
  bool root_closed = false;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '&') {
      if (!std::regex_search(s.begin() + static_cast<long>(i), s.end(), std::regex("^&(amp|lt|gt|quot|apos);")))
        return "bare '&' at " + std::to_string(i);
      ++i;
      continue;
    }
    if (s[i] == '>') return "stray '>' at " + std::to_string(i);
    if (s[i] != '<') {
      ++i;
      continue;
    }
    if (s.compare(i, 2, "<?") == 0) {
      const auto end = s.find("?>", i);
      if (end == std::string::npos) return "unterminated prolog";
      i = end + 2;
      continue;
    }
    const auto end = s.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    const std::string tag = s.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) return "'<' inside the tag " + tag;
    if (!tag.empty() && tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return "</" + tag.substr(1) + "> closes nothing open";
      open.pop_back();
      root_closed = open.empty();
    } else {
      const std::string name = tag.substr(0, tag.find_first_of(" /\n"));
      if (name.empty()) return "a tag without a name at " + std::to_string(i);
      if (root_closed) return "<" + name + "> after the root element";
      if (tag.back() != '/') open.push_back(name);
    }
    i = end + 1;
  }
  return open.empty() ? std::string() : "<" + open.back() + "> is never closed";
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

double length(const std::vector<plot::Segment>& segments) {
  double total = 0.0;
  for (const auto& s : segments) total += std::hypot(s.x1 - s.x0, s.y1 - s.y0);
  return total;
}

std::vector<double> linspace(double from, double to, int n) {
  std::vector<double> v;
  for (int k = 0; k < n; ++k) v.push_back(from + (to - from) * k / (n - 1));
  return v;
}

}  // namespace

TEST_CASE("nice_ticks: exact easy cases, properties over random ranges, degenerate input", "[svg]") {
  const auto unit = plot::nice_ticks(0.0, 1.0, 5);
  REQUIRE(unit.size() == 6);
  for (int k = 0; k <= 5; ++k) CHECK(unit[static_cast<std::size_t>(k)] == Approx(0.2 * k).margin(1e-12));
  CHECK(plot::nice_ticks(-3.2, 17.0, 4) == std::vector<double>{0.0, 5.0, 10.0, 15.0});

  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int trial = 0; trial < 2000; ++trial) {
    const double scale = std::pow(10.0, -6.0 + 12.0 * uniform(rng));
    const double lo = (uniform(rng) - 0.5) * 20.0 * scale, hi = lo + scale * (0.01 + 10.0 * uniform(rng));
    const int target = 4 + trial % 6;
    INFO("lo " << lo << " hi " << hi << " target " << target);
    const auto ticks = plot::nice_ticks(lo, hi, target);
    REQUIRE(ticks.size() >= 2);
    const double step = ticks[1] - ticks[0];
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    CHECK((std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 || std::abs(mantissa - 5) < 1e-6));
    // (hi - lo) / step lies in [0.6, 1.5) target, so this many multiples of step fit.
    CHECK(ticks.size() >= static_cast<std::size_t>(0.6 * target));
    CHECK(ticks.size() <= static_cast<std::size_t>(1.5 * target) + 1);
    const double slack = 1e-9 * step;
    CHECK(ticks.front() >= lo - slack);
    CHECK(ticks.back() <= hi + slack);
    CHECK(ticks.front() - lo < step);  // no tick left out at either end
    CHECK(hi - ticks.back() < step);
    for (std::size_t k = 1; k < ticks.size(); ++k)
      CHECK(ticks[k] - ticks[k - 1] == Approx(step).epsilon(1e-9).margin(1e-12 * (std::abs(lo) + std::abs(hi))));
  }

  CHECK(plot::nice_ticks(2.0, 2.0) == std::vector<double>{2.0});
  CHECK(plot::nice_ticks(3.0, 1.0) == std::vector<double>{3.0});
  CHECK(plot::nice_ticks(0.0, 1.0, 0).size() == 1);
  CHECK(plot::nice_ticks(0.0, std::numeric_limits<double>::infinity()).size() == 1);
  const auto not_a_number = plot::nice_ticks(not_finite, 1.0);
  REQUIRE(not_a_number.size() == 1);
  CHECK(std::isnan(not_a_number[0]));
  CHECK(plot::nice_ticks(-1e308, 1e308).size() == 1);  // the width overflows: one tick
  // Ranges so narrow for their magnitude that k + 1 == k for the tick index used to loop
  // until memory ran out; they get one tick.
  CHECK(plot::nice_ticks(3e15 - 0.5, 3e15 + 0.5, 5).size() == 1);
  CHECK(plot::nice_ticks(1e10 - 1e-6, 1e10 + 1e-6, 5).size() == 1);
  CHECK(plot::nice_ticks(1e10 - 1.0, 1e10 + 1.0, 4).size() >= 3);  // still fine where ticks are representable
}

TEST_CASE("tick_label: as few decimals as the step needs, %g for large values", "[svg]") {
  CHECK(plot::tick_label(0.2, 0.2) == "0.2");
  CHECK(plot::tick_label(0.6000000000000001, 0.2) == "0.6");
  CHECK(plot::tick_label(5.0, 5.0) == "5");
  CHECK(plot::tick_label(-0.05, 0.05) == "-0.05");
  CHECK(plot::tick_label(0.3, 0.1) == "0.3");
  CHECK(plot::tick_label(20.0, 10.0) == "20");
  CHECK(plot::tick_label(1e6, 2e5) == "1e+06");
}

TEST_CASE("data_range: padding, a constant series, non-finite values ignored", "[svg]") {
  const std::vector<double> a{0.0, 4.0}, b{10.0, not_finite, std::numeric_limits<double>::infinity()}, c{3.0, 3.0};
  const auto padded = plot::data_range({&a, &b}, 0.04);
  CHECK(padded.lo == Approx(-0.4));
  CHECK(padded.hi == Approx(10.4));
  const auto constant = plot::data_range({&c, &b, &b}, 0.0);  // b's 10 widens it
  CHECK(constant.lo == Approx(3.0));
  CHECK(constant.hi == Approx(10.0));
  const auto point = plot::data_range({&c});
  CHECK(point.lo == Approx(2.5));
  CHECK(point.hi == Approx(3.5));
  const std::vector<double> nothing{not_finite};
  const auto empty = plot::data_range({&nothing});
  CHECK((empty.lo == 0.0 && empty.hi == 1.0));
}

TEST_CASE("contour_segments: circles of x^2 + y^2, a saddle, NaN corners, bad sizes", "[svg]") {
  const auto axis = linspace(-2.0, 2.0, 81);  // spacing h = 0.05
  const double h = 0.05;
  Eigen::MatrixXd values(81, 81);
  for (int i = 0; i < 81; ++i)
    for (int j = 0; j < 81; ++j) values(i, j) = axis[i] * axis[i] + axis[j] * axis[j];
  for (double r : {0.7, 1.3, 1.9}) {
    const auto segments = plot::contour_segments(axis, axis, values, r * r);
    REQUIRE(segments.size() > 20);
    for (const auto& s : segments) {
      CHECK(std::hypot(s.x0, s.y0) == Approx(r).margin(h * h));
      CHECK(std::hypot(s.x1, s.y1) == Approx(r).margin(h * h));
    }
    CHECK(length(segments) == Approx(2 * std::numbers::pi * r).epsilon(0.005));
  }

  // A saddle: the centre (mean 0.5) lies below level 0.5, so corners (0,0) and (1,1) are cut off.
  const std::vector<double> unit{0.0, 1.0};
  Eigen::MatrixXd saddle(2, 2);
  saddle << 1.0, 0.0, 0.0, 1.0;
  const auto cut = plot::contour_segments(unit, unit, saddle, 0.5);
  REQUIRE(cut.size() == 2);
  for (const auto& s : cut) {
    CHECK(std::abs(s.x0 - s.x1) == Approx(0.5));  // each joins two edge midpoints around one corner
    for (double c : {s.x0, s.y0, s.x1, s.y1}) CHECK((c == Approx(0.5) || c == Approx(0.0) || c == Approx(1.0)));
    CHECK(std::abs((s.x0 + s.x1) / 2 + (s.y0 + s.y1) / 2 - 1.0) == Approx(0.5));  // near (0,0) or (1,1)
  }
  // Level 0.4: the centre is above, so the low corners (1,0) and (0,1) are cut off.
  const auto other = plot::contour_segments(unit, unit, saddle, 0.4);
  REQUIRE(other.size() == 2);
  for (const auto& s : other) {
    const double mx = (s.x0 + s.x1) / 2, my = (s.y0 + s.y1) / 2;
    CHECK(std::abs(mx - my) == Approx(0.6));  // (0.6,0)-(1,0.4) or (0,0.6)-(0.4,1)
  }

  const std::vector<double> three{0.0, 1.0, 2.0};
  Eigen::MatrixXd plane(3, 3);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) plane(i, j) = i + j;
  CHECK(plot::contour_segments(three, three, plane, 1.5).size() == 3);
  plane(0, 0) = not_finite;  // cell (0, 0) is skipped, the other two crossing cells are not
  const auto rest = plot::contour_segments(three, three, plane, 1.5);
  CHECK(rest.size() == 2);
  for (const auto& s : rest) CHECK(std::max({s.x0, s.x1, s.y0, s.y1}) > 1.0);
  CHECK_THROWS_AS(plot::contour_segments(unit, three, plane, 1.0), std::invalid_argument);
}

TEST_CASE("render_svg: well-formed, escaped, points placed in the panel frame", "[svg]") {
  CHECK_FALSE(xml_problem("<a><b></a></b>").empty());  // the checker itself can fail
  CHECK_FALSE(xml_problem("<a>x & y</a>").empty());
  CHECK(xml_problem("<?xml v?><a><b/><c x=\"1\">t &amp; u</c></a>").empty());

  plot::Figure figure;
  figure.title = "A & B <c> \"d\"";
  figure.notes = {"n & m"};
  figure.legend = {{"x > y", "#000000", plot::LegendEntry::Kind::band}};
  plot::Panel first;
  first.title = "p < q & r";
  first.lines.push_back({{0, 1, 2, 3, 4}, {0, 1, not_finite, 3, 4}});
  first.bands.push_back({{0, 1, 2}, {-1, -1, -1}, {1, 2, 1}});
  first.intervals.push_back({{1, 2, 3}, {0, 0, not_finite}, {1, 1, 1}, {0.5, 0.5, 0.5}});  // the third is skipped
  first.x_categories = {{1.0, "\"q\""}};
  first.zero_line = 0.0;
  plot::Panel second;
  second.x_range = plot::Range{0.0, 1.0};
  second.y_range = plot::Range{0.0, 1.0};
  second.points.push_back({{0.5, 0.25}, {0.5, 0.75}, "#123456", 3.0});
  Eigen::MatrixXd heat(2, 2);
  heat << 0, 1, 2, 3;
  plot::Panel third;
  third.cells.push_back({{0, 1}, {0, 1}, heat, {0, 3}});
  third.contours.push_back({{{0, 0, 1, 1}}, "#000000", 1.0, true});
  figure.panels = {first, second, third};
  const std::string svg = plot::render_svg(figure);
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.rfind("<?xml", 0) == 0);
  for (const char* escaped :
       {"A &amp; B &lt;c&gt; &quot;d&quot;", "n &amp; m", "x &gt; y", "p &lt; q &amp; r", "&quot;q&quot;"})
    CHECK(count(svg, escaped) == 1);

  CHECK(svg.find("nan") == std::string::npos);
  CHECK(count(svg, "stroke-width=\"1.4\"/>") == 2);  // two interval bars drawn, the one with a NaN end skipped
  // The line broken at its NaN: two polylines of two points each.
  CHECK(count(svg, "<polyline") == 2);
  const std::regex polyline("<polyline[^>]*points=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), polyline); it != std::sregex_iterator(); ++it)
    CHECK(count((*it)[1].str(), ",") == 2);

  // Panel 2: data [0, 1]^2 fills its clip rectangle; (0.5, 0.5) at its centre, y upwards.
  std::smatch clip;
  REQUIRE(std::regex_search(svg, clip,
                            std::regex("<clipPath id=\"clip1\"><rect x=\"([-0-9.]+)\" y=\"([-0-9.]+)\" "
                                       "width=\"([-0-9.]+)\" height=\"([-0-9.]+)\"/>")));
  const double x = std::stod(clip[1]), y = std::stod(clip[2]), w = std::stod(clip[3]), hgt = std::stod(clip[4]);
  CHECK(x > 330.0);  // the second column
  std::vector<std::pair<double, double>> circles;
  const std::regex circle("<circle cx=\"([-0-9.]+)\" cy=\"([-0-9.]+)\" r=\"3\" fill=\"#123456\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), circle); it != std::sregex_iterator(); ++it)
    circles.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
  REQUIRE(circles.size() == 2);
  CHECK(circles[0].first == Approx(x + w / 2).margin(0.01));
  CHECK(circles[0].second == Approx(y + hgt / 2).margin(0.01));
  CHECK(circles[1].first == Approx(x + w / 4).margin(0.01));
  CHECK(circles[1].second == Approx(y + hgt / 4).margin(0.01));
  for (double v : {0.0, 1.0, 2.0, 3.0})  // the heat map's four cells, coloured by value
    CHECK(count(svg, "fill=\"" + plot::sequential_colour(v / 3.0) + "\"") == 1);

  CHECK_THROWS_AS(plot::render_svg(plot::Figure{}), std::invalid_argument);
  plot::Panel bad[3];  // a line's y, a band's upper edge, a heat map's rows of the wrong length
  bad[0].lines.push_back({{0, 1, 2}, {0, 1}});
  bad[1].bands.push_back({{0, 1}, {0, 1}, {1}});
  bad[2].cells.push_back({{0, 1, 2}, {0, 1}, heat, {0, 3}});
  for (const auto& panel : bad)
    CHECK_THROWS_AS(plot::render_svg({"bad", {}, 2, 330, 250, {panel}, {}}), std::invalid_argument);
}

namespace {

ExperimentSpec grid_spec(GridSpec::Mode mode) {
  ExperimentSpec spec;
  spec.name = "toy-figure";
  spec.title = "a toy";
  spec.paper = "Nobody (2024)";
  spec.methods.resize(2);
  spec.methods[0].label = "A";
  spec.methods[1].label = "B";
  spec.grid = GridSpec{};
  spec.grid->mode = mode;
  return spec;
}

// Predictions at the points: mean f(x), variance g(x), the interval mean -+ 1.96 sd.
template <class F, class G>
GridPredictions predictions(const GridPoints& points, F f, G g) {
  GridPredictions p;
  p.points = points;
  for (Eigen::Index r = 0; r < points.X.rows(); ++r) {
    const Eigen::VectorXd x = points.X.row(r).transpose();
    p.mean.push_back(f(x));
    p.variance.push_back(g(x));
    p.lower95.push_back(p.mean.back() - 1.96 * std::sqrt(p.variance.back()));
    p.upper95.push_back(p.mean.back() + 1.96 * std::sqrt(p.variance.back()));
  }
  return p;
}

JobKey key(const std::string& method, int split) { return {"toy-figure", "toy", method, "h", split}; }

}  // namespace

TEST_CASE("grid_figure: one input, one at a time, two-input heat maps, errors", "[svg]") {
  data::Dataset observations;
  observations.name = "toy";
  observations.X = Eigen::MatrixXd::Random(7, 2);
  observations.y = Eigen::VectorXd::Random(7);
  const std::vector<data::Dataset> data{observations};
  const auto var = [](const Eigen::VectorXd& x) { return 0.1 + x.squaredNorm(); };

  SECTION("one input: a panel per method in the spec's order, the lowest split") {
    const ExperimentSpec spec = grid_spec(GridSpec::Mode::product);
    GridPoints points;
    points.X = Eigen::VectorXd::LinSpaced(9, -1.0, 1.0);
    const auto a0 = predictions(
        points, [](const Eigen::VectorXd& x) { return 2 * x[0]; }, var);
    const auto a1 = predictions(
        points, [](const Eigen::VectorXd& x) { return 5 * x[0]; }, var);
    const auto b2 = predictions(
        points, [](const Eigen::VectorXd& x) { return -x[0]; }, var);
    data::Dataset one = observations;
    one.X = observations.X.leftCols(1);
    const auto figure = grid_figure(spec, {{key("B", 2), b2}, {key("A", 1), a1}, {key("A", 0), a0}}, {one});
    REQUIRE(figure.panels.size() == 2);
    CHECK(figure.panels[0].title == "A");
    CHECK(figure.panels[1].title == "B");
    for (std::size_t m = 0; m < 2; ++m) {
      const auto& p = figure.panels[m];
      const GridPredictions& g = m == 0 ? a0 : b2;
      REQUIRE((p.bands.size() == 1 && p.lines.size() == 1 && p.points.size() == 1));
      CHECK(p.lines[0].y == g.mean);
      CHECK(p.bands[0].lower == g.lower95);
      CHECK(p.bands[0].upper == g.upper95);
      CHECK(p.bands[0].x == std::vector<double>(points.X.data(), points.X.data() + 9));
      CHECK(p.points[0].x == std::vector<double>(one.X.data(), one.X.data() + 7));
      CHECK(p.points[0].y == std::vector<double>(one.y.data(), one.y.data() + 7));
    }
    CHECK(figure.panels[0].lines[0].colour != figure.panels[1].lines[0].colour);
    REQUIRE_FALSE(figure.notes.empty());
    CHECK(figure.notes[0].find("split 0") != std::string::npos);
    CHECK(xml_problem(plot::render_svg(figure)).empty());
  }

  SECTION("one at a time: a panel per varied input, every method overlaid") {
    ExperimentSpec spec = grid_spec(GridSpec::Mode::one_at_a_time);
    spec.grid->axes = {{-2.0, 2.0, 5}};
    spec.grid->fixed = 0.5;
    const GridPoints points = make_grid(*spec.grid, 2);
    const auto fa = [](const Eigen::VectorXd& x) { return x[0] + 10 * x[1]; };
    const auto fb = [](const Eigen::VectorXd& x) { return x[0] * x[1]; };
    const auto figure = grid_figure(
        spec, {{key("A", 0), predictions(points, fa, var)}, {key("B", 0), predictions(points, fb, var)}}, data);
    REQUIRE(figure.panels.size() == 2);
    const std::vector<double> axis{-2.0, -1.0, 0.0, 1.0, 2.0};
    for (int input = 1; input <= 2; ++input) {
      const auto& p = figure.panels[static_cast<std::size_t>(input - 1)];
      CHECK(p.title == "input " + std::to_string(input));
      CHECK(p.points.empty());
      REQUIRE(p.lines.size() == 2);
      CHECK(p.bands.size() == 2);
      for (std::size_t m = 0; m < 2; ++m) {
        CHECK(p.lines[m].x == axis);
        for (std::size_t k = 0; k < 5; ++k) {
          Eigen::VectorXd x = Eigen::VectorXd::Constant(2, 0.5);
          x[input - 1] = axis[k];
          CHECK(p.lines[m].y[k] == Approx(m == 0 ? fa(x) : fb(x)));
        }
      }
    }
    CHECK(figure.legend.size() == 2);
    CHECK(xml_problem(plot::render_svg(figure)).empty());
  }

  SECTION("two inputs: mean and sd heat maps, cells at their grid points despite shuffled rows") {
    ExperimentSpec spec = grid_spec(GridSpec::Mode::product);
    spec.grid->axes = {{0.0, 1.0, 3}, {-1.0, 1.0, 2}};
    GridPoints points = make_grid(*spec.grid, 2);
    const Eigen::MatrixXd X = points.X;
    const std::vector<int> order{4, 1, 5, 0, 3, 2};
    for (int r = 0; r < 6; ++r) points.X.row(r) = X.row(order[static_cast<std::size_t>(r)]);
    const auto fa = [](const Eigen::VectorXd& x) { return 10 * x[0] + x[1]; };
    const auto fb = [](const Eigen::VectorXd& x) { return -10 * x[0] - x[1]; };
    const auto figure = grid_figure(
        spec, {{key("B", 0), predictions(points, fb, var)}, {key("A", 0), predictions(points, fa, var)}}, data);
    REQUIRE(figure.panels.size() == 4);
    CHECK(figure.columns == 2);
    const std::vector<std::string> titles{"A: predictive mean", "B: predictive mean", "A: predictive sd",
                                          "B: predictive sd"};
    for (std::size_t k = 0; k < 4; ++k) {
      const auto& p = figure.panels[k];
      CHECK(p.title == titles[k]);
      REQUIRE(p.cells.size() == 1);
      const auto& c = p.cells[0];
      REQUIRE(c.x == std::vector<double>{0.0, 0.5, 1.0});
      REQUIRE(c.y == std::vector<double>{-1.0, 1.0});
      for (Eigen::Index i = 0; i < 3; ++i)
        for (Eigen::Index j = 0; j < 2; ++j) {
          const Eigen::Vector2d x(c.x[static_cast<std::size_t>(i)], c.y[static_cast<std::size_t>(j)]);
          const double expected = k >= 2 ? std::sqrt(var(x)) : k == 0 ? fa(x) : fb(x);
          CHECK(c.values(i, j) == Approx(expected));
        }
      CHECK(c.scale.lo == Approx(k < 2 ? -11.0 : std::sqrt(1.1)));
      CHECK(c.scale.hi == Approx(k < 2 ? 11.0 : std::sqrt(2.1)));
      REQUIRE(p.points.size() == 1);
      CHECK(p.points[0].y == std::vector<double>(observations.X.col(1).data(), observations.X.col(1).data() + 7));
    }
    CHECK(xml_problem(plot::render_svg(figure)).empty());
  }

  SECTION("the true function of a synthetic data set: a dashed line, or a heat map beside the means") {
    const data::LatentFunction cube = [](const Eigen::Ref<const Eigen::VectorXd>& x) {
      return x.size() == 1 ? x[0] * x[0] * x[0] : std::numeric_limits<double>::quiet_NaN();
    };
    ExperimentSpec spec = grid_spec(GridSpec::Mode::product);
    GridPoints points;
    points.X = Eigen::VectorXd::LinSpaced(5, -1.0, 1.0);
    const auto a = predictions(
        points, [](const Eigen::VectorXd& x) { return x[0]; }, var);
    const auto with_truth = grid_figure(spec, {{key("A", 0), a}}, {}, {{"toy", cube}});
    REQUIRE(with_truth.panels[0].lines.size() == 2);
    const plot::Line& truth = with_truth.panels[0].lines[1];
    CHECK(truth.dashed);
    CHECK(truth.y == std::vector<double>{-1.0, -0.125, 0.0, 0.125, 1.0});
    CHECK(with_truth.legend.back().label == "true function");
    // Another data set's function, or one that does not fit the grid's inputs, draws nothing.
    CHECK(grid_figure(spec, {{key("A", 0), a}}, {}, {{"other", cube}}).panels[0].lines.size() == 1);
    spec.grid->axes = {{0.0, 1.0, 3}, {-1.0, 1.0, 2}};
    const GridPoints plane = make_grid(*spec.grid, 2);
    const auto plane_truth = [](const Eigen::Ref<const Eigen::VectorXd>& x) { return x[0] - x[1]; };
    const auto fa = [](const Eigen::VectorXd& x) { return 10 * x[0] + x[1]; };
    const auto maps = grid_figure(spec, {{key("A", 0), predictions(plane, fa, var)}}, {}, {{"toy", plane_truth}});
    REQUIRE(maps.panels.size() == 4);  // A's mean, the truth; A's sd, an empty slot
    CHECK(maps.columns == 2);
    CHECK(maps.panels[1].title == "true function");
    CHECK_FALSE(maps.panels[1].blank);
    CHECK(maps.panels[3].blank);
    const auto& c = maps.panels[1].cells[0];
    for (Eigen::Index i = 0; i < 3; ++i)
      for (Eigen::Index j = 0; j < 2; ++j)
        CHECK(c.values(i, j) == Approx(c.x[static_cast<std::size_t>(i)] - c.y[static_cast<std::size_t>(j)]));
    CHECK(c.scale.lo == maps.panels[0].cells[0].scale.lo);  // on the means' colour scale
    const std::string svg = plot::render_svg(maps);
    CHECK(xml_problem(svg).empty());
    CHECK(count(svg, "<clipPath") == 3);  // the empty slot draws nothing
  }

  SECTION("errors: three-input product grid, no grid in the spec, no grids") {
    const ExperimentSpec spec = grid_spec(GridSpec::Mode::product);
    GridPoints points;
    points.X = Eigen::MatrixXd::Random(8, 3);
    const auto three = predictions(
        points, [](const Eigen::VectorXd& x) { return x.sum(); }, var);
    CHECK_THROWS_AS(grid_figure(spec, {{key("A", 0), three}}, data), std::invalid_argument);
    CHECK_THROWS_AS(grid_figure(spec, {}, data), std::invalid_argument);
    ExperimentSpec gridless = spec;
    gridless.grid.reset();
    points.X = Eigen::MatrixXd::Random(8, 1);
    const auto one = predictions(
        points, [](const Eigen::VectorXd& x) { return x[0]; }, var);
    CHECK_NOTHROW(grid_figure(spec, {{key("A", 0), one}}, data));
    CHECK_THROWS_AS(grid_figure(gridless, {{key("A", 0), one}}, data), std::invalid_argument);
  }
}

namespace {
struct Marginal {
  std::string parameter;
  int unit, input;
  double mean, sd;
};
// A parameter_marginals table as the parameter-marginals artifact stores it.
ArtifactTable marginal_table(const std::vector<Marginal>& rows) {
  ArtifactTable t{"parameter-marginals", "parameter_marginals", {}};
  std::vector<std::string> parameter;
  std::vector<double> unit, input, mean, sd;
  for (const auto& r : rows) {
    parameter.push_back(r.parameter);
    unit.push_back(r.unit);
    input.push_back(r.input);
    mean.push_back(r.mean);
    sd.push_back(r.sd);
  }
  t.add_text("parameter", parameter).add("unit", unit).add("input", input).add("mean", mean).add("sd", sd);
  return t;
}
}  // namespace

TEST_CASE("parameter_marginal_figure: three panels per job, intervals mean -+ 1.96 sd", "[svg]") {
  std::vector<Marginal> rows;
  for (int unit = 1; unit <= 2; ++unit)
    for (int input = 1; input <= 3; ++input)  // two inputs and the bias
      rows.push_back({"w", unit, input, 0.1 * unit - 0.05 * input, 0.01 * (unit + input)});
  for (int input = 1; input <= 3; ++input) rows.push_back({"phi", 0, input, -1.0 * input, 0.2});
  for (int unit = 0; unit <= 2; ++unit) rows.push_back({"v", unit, 0, 1.0 - unit, 0.3 + 0.1 * unit});
  std::vector<Marginal> second_rows = rows;
  second_rows.pop_back();  // one output weight fewer
  const ArtifactTable first = marginal_table(rows), second = marginal_table(second_rows);
  const auto figure = parameter_marginal_figure({{"toy", "nn-ep-ard", 0, &first}, {"other", "nn-ep-ard", 0, &second}});
  REQUIRE(figure.panels.size() == 6);
  for (std::size_t s = 0; s < 2; ++s) {
    const std::vector<Marginal>& ws = s == 0 ? rows : second_rows;
    std::map<std::string, std::size_t> count;
    for (const auto& r : ws) ++count[r.parameter];
    std::vector<double> means, lower, upper;
    const char* parameters[] = {"w", "phi", "v"};
    for (std::size_t k = 0; k < 3; ++k) {
      const auto& p = figure.panels[3 * s + k];
      CHECK(p.title.find(s == 0 ? "toy" : "other") == 0);
      std::size_t n = 0;
      for (const auto& iv : p.intervals) {
        n += iv.x.size();
        for (std::size_t i = 0; i < iv.x.size(); ++i) {
          means.push_back(iv.centre[i]);
          lower.push_back(iv.lower[i]);
          upper.push_back(iv.upper[i]);
        }
      }
      CHECK(n == count[parameters[k]]);
    }
    REQUIRE(means.size() == ws.size());
    for (std::size_t i = 0; i < ws.size(); ++i) {  // panels list rows in their stored order
      CHECK(means[i] == Approx(ws[i].mean));
      CHECK(lower[i] == Approx(ws[i].mean - 1.96 * ws[i].sd));
      CHECK(upper[i] == Approx(ws[i].mean + 1.96 * ws[i].sd));
    }
  }
  const auto& w = figure.panels[0];
  REQUIRE(w.intervals.size() == 2);  // one series per hidden unit, at distinct positions
  CHECK(*std::max_element(w.intervals[0].x.begin(), w.intervals[0].x.end()) <
        *std::min_element(w.intervals[1].x.begin(), w.intervals[1].x.end()));
  CHECK(figure.panels[1].x_categories.back().second == "b");
  CHECK(figure.panels[2].x_categories.front().second == "b");
  CHECK(xml_problem(plot::render_svg(figure)).empty());
}

namespace {
// A gaussian_posterior table over (u, v) as the gaussian-posterior artifact stores it.
ArtifactTable gaussian_table(const Eigen::Vector2d& mean, const Eigen::Matrix2d& cov) {
  ArtifactTable t{"gaussian-posterior", "gaussian_posterior", {}};
  t.add_text("parameter", {"u1.1", "v1"}).add("mean", {mean[0], mean[1]});
  t.add("cov.u1.1", {cov(0, 0), cov(1, 0)}).add("cov.v1", {cov(0, 1), cov(1, 1)});
  return t;
}
}  // namespace

TEST_CASE("gaussian_fit_figure: ellipses at Mahalanobis r, posterior contours on them", "[svg]") {
  const Eigen::Vector2d mean(0.3, -0.2);
  Eigen::Matrix2d cov;
  cov << 0.5, 0.2, 0.2, 0.3;
  const Eigen::Matrix2d precision = cov.inverse();
  const auto mahalanobis = [&](const Eigen::Vector2d& m, const Eigen::Matrix2d& p, double u, double v) {
    const Eigen::Vector2d d = Eigen::Vector2d(u, v) - m;
    return std::sqrt(d.dot(p * d));
  };
  // The posterior_density table (u, v, log p) on a grid through the mean, in a scrambled order.
  const double h = 0.04;
  const int K = 60, n = 2 * K + 1;
  std::vector<double> us(n * n), vs(n * n), log_p(n * n);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const auto row =
          static_cast<std::size_t>((static_cast<Eigen::Index>(a) * n + b) * 7919 % (n * n));  // a permutation
      us[row] = mean[0] + h * (a - K);
      vs[row] = mean[1] + h * (b - K);
      log_p[row] = -0.5 * std::pow(mahalanobis(mean, precision, us[row], vs[row]), 2) - 1.7;
    }
  ArtifactTable density{"gaussian-posterior", "posterior_density", {}};
  density.add("u1.1", us).add("v1", vs).add("log_posterior", log_p);
  struct Fit {
    Eigen::Vector2d mean;
    Eigen::Matrix2d covariance;
  };
  const std::vector<Fit> fits = {{mean, cov}, {Eigen::Vector2d(0.25, -0.1), Eigen::Vector2d(0.2, 0.1).asDiagonal()}};
  const ArtifactTable exact = gaussian_table(fits[0].mean, fits[0].covariance);
  const ArtifactTable diag = gaussian_table(fits[1].mean, fits[1].covariance);
  const auto figure = gaussian_fit_figure({{"toy", "laplace", 0, &exact}, {"toy", "vi-diag", 0, &diag}}, density,
                                          {{"laplace", 0.0123}, {"vi-diag", 0.5}}, {{"laplace", "0.01"}});
  REQUIRE(figure.panels.size() == 2);
  CHECK(figure.panels[0].title == "laplace: KL(Q||P) = 0.0123 (paper 0.01)");
  CHECK(figure.panels[1].title.find("paper") == std::string::npos);

  // Moving by one grid spacing changes the Mahalanobis distance by at most this.
  const double tolerance =
      h * std::sqrt(Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(precision).eigenvalues().maxCoeff());
  for (std::size_t f = 0; f < 2; ++f) {
    const auto& p = figure.panels[f];
    const Fit& fit = fits[f];
    const Eigen::Matrix2d fit_precision = fit.covariance.inverse();
    REQUIRE(p.lines.size() == 3);
    REQUIRE(p.contours.size() == 3);
    for (std::size_t k = 0; k < 3; ++k) {
      const double r = static_cast<double>(k + 1);
      const auto& ellipse = p.lines[k];
      REQUIRE(ellipse.x.size() > 50);
      for (std::size_t i = 0; i < ellipse.x.size(); ++i)
        CHECK(mahalanobis(fit.mean, fit_precision, ellipse.x[i], ellipse.y[i]) == Approx(r).margin(1e-9));
      // The posterior's contours are the same in every panel: the exact Gaussian's ellipses.
      const auto& segments = p.contours[k].segments;
      REQUIRE(segments.size() > 20);
      for (const auto& s : segments) {
        CHECK(mahalanobis(mean, precision, s.x0, s.y0) == Approx(r).margin(tolerance));
        CHECK(mahalanobis(mean, precision, s.x1, s.y1) == Approx(r).margin(tolerance));
      }
      if (f == 0) {
        double perimeter = 0.0;
        for (std::size_t i = 1; i < ellipse.x.size(); ++i)
          perimeter += std::hypot(ellipse.x[i] - ellipse.x[i - 1], ellipse.y[i] - ellipse.y[i - 1]);
        CHECK(length(segments) == Approx(perimeter).epsilon(0.01));
      }
    }
  }
  CHECK(xml_problem(plot::render_svg(figure)).empty());
}

TEST_CASE("comparison_figure: ours and the paper's at -+ 2 se, compared metrics only, '*' marks", "[svg]") {
  ExperimentSpec spec;
  spec.name = "toy-table";
  spec.paper = "Nobody (2024)";
  ReportData r;
  r.spec = &spec;
  r.datasets = {DatasetRow{.name = "a"}, DatasetRow{.name = "b"}};
  r.methods = {"m1", "m2", "m3"};
  r.metrics = {"rmse", "fit_seconds"};
  const auto put = [&](const std::string& d, const std::string& m, const std::string& metric,
                       std::optional<Summary> ours, std::optional<PaperValue> paper, bool differs) {
    Cell c;
    c.ours = ours;
    c.paper = paper;
    c.differs = differs;
    r.cells[{d, m, metric}] = c;
  };
  const double not_known = std::numeric_limits<double>::quiet_NaN();
  put("a", "m1", "rmse", Summary{1.0, 0.1}, PaperValue{1.5, 0.05, 0.1}, true);
  put("a", "m2", "rmse", Summary{2.0, not_known}, std::nullopt, false);    // ours alone, no se: a dot
  put("a", "m3", "rmse", std::nullopt, std::nullopt, false);               // neither: no category
  put("b", "m1", "rmse", std::nullopt, PaperValue{3.0, 0.2, 0.1}, false);  // the paper's only: no panel
  for (const char* d : {"a", "b"})
    for (const char* m : {"m1", "m2", "m3"})
      put(d, m, "fit_seconds", Summary{5.0, 1.0}, PaperValue{9.0, 1.0, 1.0}, true);

  const plot::Figure figure = comparison_figure(r);
  REQUIRE(figure.panels.size() == 1);  // timings are not compared; b has nothing of ours
  const plot::Panel& p = figure.panels[0];
  CHECK(p.title == "a: test RMSE");
  REQUIRE(p.x_categories.size() == 2);
  CHECK(p.x_categories[0].second == "m1 *");
  CHECK(p.x_categories[1].second == "m2");
  REQUIRE(p.intervals.size() == 2);
  const plot::Intervals& paper = p.intervals[0];
  const plot::Intervals& ours = p.intervals[1];
  REQUIRE(ours.x.size() == 2);
  REQUIRE(paper.x.size() == 1);
  CHECK(ours.lower[0] == Approx(0.8));
  CHECK(ours.upper[0] == Approx(1.2));
  CHECK(ours.lower[1] == ours.upper[1]);  // no standard error: a point
  CHECK(paper.lower[0] == Approx(1.4));
  CHECK(paper.upper[0] == Approx(1.6));
  CHECK(ours.x[0] < p.x_categories[0].first);  // ours left of the method's position, the paper's right
  CHECK(paper.x[0] > p.x_categories[0].first);
  CHECK(xml_problem(plot::render_svg(figure)).empty());

  r.cells.erase({"a", "m1", "rmse"});
  r.cells.erase({"a", "m2", "rmse"});
  CHECK_THROWS_AS(comparison_figure(r), std::invalid_argument);
}
