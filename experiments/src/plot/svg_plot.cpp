#include "experiments/src/plot/svg_plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace bnn::exp::plot {

std::string palette(std::size_t i) {
  static const std::array<const char*, 7> colours{"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                  "#E69F00", "#56B4E9", "#000000"};
  return colours[i % colours.size()];
}

std::string sequential_colour(double t) {
  // Viridis at five anchors, interpolated linearly in RGB.
  static const std::array<std::array<double, 3>, 5> anchors{
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  if (!std::isfinite(t)) t = 0.0;
  t = std::clamp(t, 0.0, 1.0) * static_cast<double>(anchors.size() - 1);
  const auto k = std::min(static_cast<std::size_t>(t), anchors.size() - 2);
  const double f = t - static_cast<double>(k);
  char text[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<int>(std::lround((1.0 - f) * anchors[k][c] + f * anchors[k + 1][c]));
  std::snprintf(text, sizeof text, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return text;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(std::isfinite(lo) && std::isfinite(hi) && std::isfinite(hi - lo)) || !(hi > lo) || target < 1) return {lo};
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double residual = raw / magnitude;
  const double step = magnitude * (residual < 1.5 ? 1.0 : residual < 3.0 ? 2.0 : residual < 7.0 ? 5.0 : 10.0);
  // Beyond 2^53 steps from zero, k + 1 == k: a range that narrow for its magnitude gets one tick.
  if (std::max(std::abs(lo), std::abs(hi)) / step > 1e15) return {lo};
  std::vector<double> ticks;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k += 1.0)
    ticks.push_back(std::abs(k) < 0.5 ? 0.0 : k * step);
  return ticks;
}

Range data_range(const std::vector<const std::vector<double>*>& values, double padding) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto* v : values)
    for (double x : *v)
      if (std::isfinite(x)) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
  if (!(hi >= lo)) return {0.0, 1.0};
  if (hi == lo) return {lo - 0.5, hi + 0.5};
  const double pad = padding * (hi - lo);
  return {lo - pad, hi + pad};
}

std::string tick_label(double value, double step) {
  char text[32];
  if (std::abs(value) >= 1e5 || (step > 0.0 && step < 1e-4)) {
    std::snprintf(text, sizeof text, "%.3g", value);
  } else {
    const int decimals = step > 0.0 ? std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9))) : 2;
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
  }
  return text;
}

Cells grid_cells(const Eigen::Ref<const Eigen::VectorXd>& x, const Eigen::Ref<const Eigen::VectorXd>& y,
                 const std::vector<double>& values, Range scale) {
  if (y.size() != x.size() || values.size() != static_cast<std::size_t>(x.size()))
    throw std::invalid_argument("grid cells: " + std::to_string(x.size()) + " x, " + std::to_string(y.size()) +
                                " y and " + std::to_string(values.size()) + " values");
  const auto distinct = [](const Eigen::Ref<const Eigen::VectorXd>& v) {
    std::vector<double> axis(v.data(), v.data() + v.size());
    std::sort(axis.begin(), axis.end());
    axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
    return axis;
  };
  Cells cells{distinct(x), distinct(y), Eigen::MatrixXd(), scale};
  cells.values =
      Eigen::MatrixXd::Constant(static_cast<Eigen::Index>(cells.x.size()), static_cast<Eigen::Index>(cells.y.size()),
                                std::numeric_limits<double>::quiet_NaN());
  for (Eigen::Index r = 0; r < x.size(); ++r) {
    const auto i = std::lower_bound(cells.x.begin(), cells.x.end(), x[r]) - cells.x.begin();
    const auto j = std::lower_bound(cells.y.begin(), cells.y.end(), y[r]) - cells.y.begin();
    cells.values(i, j) = values[static_cast<std::size_t>(r)];
  }
  return cells;
}

std::vector<Segment> contour_segments(const std::vector<double>& x, const std::vector<double>& y,
                                      const Eigen::MatrixXd& values, double level) {
  if (values.rows() != static_cast<Eigen::Index>(x.size()) || values.cols() != static_cast<Eigen::Index>(y.size()))
    throw std::invalid_argument("contour: values are " + std::to_string(values.rows()) + " x " +
                                std::to_string(values.cols()) + ", the axes " + std::to_string(x.size()) + " x " +
                                std::to_string(y.size()));
  std::vector<Segment> segments;
  for (std::size_t i = 0; i + 1 < x.size(); ++i)
    for (std::size_t j = 0; j + 1 < y.size(); ++j) {
      const auto I = static_cast<Eigen::Index>(i), J = static_cast<Eigen::Index>(j);
      // corners 0: (i, j), 1: (i+1, j), 2: (i+1, j+1), 3: (i, j+1); edge e joins corners e, e+1
      const std::array<double, 4> v{values(I, J), values(I + 1, J), values(I + 1, J + 1), values(I, J + 1)};
      const std::array<double, 4> cx{x[i], x[i + 1], x[i + 1], x[i]}, cy{y[j], y[j], y[j + 1], y[j + 1]};
      if (!std::all_of(v.begin(), v.end(), [](double a) { return std::isfinite(a); })) continue;
      std::array<bool, 4> above{};
      for (int c = 0; c < 4; ++c) above[c] = v[c] > level;
      std::array<std::array<double, 2>, 4> crossing{};
      std::array<bool, 4> crosses{};
      int count = 0;
      for (int e = 0; e < 4; ++e) {
        const int a = e, b = (e + 1) % 4;
        if (above[a] == above[b]) continue;
        const double t = (level - v[a]) / (v[b] - v[a]);
        crossing[e] = {cx[a] + t * (cx[b] - cx[a]), cy[a] + t * (cy[b] - cy[a])};
        crosses[e] = true;
        ++count;
      }
      const auto join = [&](int e, int f) {
        segments.push_back({crossing[e][0], crossing[e][1], crossing[f][0], crossing[f][1]});
      };
      if (count == 2) {
        int first = -1;
        for (int e = 0; e < 4; ++e)
          if (crosses[e]) {
            if (first < 0)
              first = e;
            else
              join(first, e);
          }
      } else if (count == 4) {
        // A saddle: cut off the two corners on the other side of the level than the centre.
        const bool centre_above = (v[0] + v[1] + v[2] + v[3]) / 4.0 > level;
        for (int c = 0; c < 4; ++c)
          if (above[c] != centre_above) join((c + 3) % 4, c);  // corner c lies between edges c-1 and c
      }
    }
  return segments;
}

namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", v);
  return text;
}

void check_lengths(std::size_t expected, std::size_t got, const std::string& what) {
  if (expected != got)
    throw std::invalid_argument("svg plot: " + what + " has " + std::to_string(got) + " values, but x has " +
                                std::to_string(expected));
}

// Cell edges for centres x: midpoints, the outer ones mirrored.
std::vector<double> cell_edges(const std::vector<double>& x) {
  std::vector<double> edges(x.size() + 1);
  if (x.size() == 1) return {x[0] - 0.5, x[0] + 0.5};
  for (std::size_t i = 1; i < x.size(); ++i) edges[i] = 0.5 * (x[i - 1] + x[i]);
  edges.front() = x.front() - (edges[1] - x.front());
  edges.back() = x.back() + (x.back() - edges[x.size() - 1]);
  return edges;
}

struct Frame {  // the plot area of a panel and its data ranges
  double left, top, width, height;
  Range xr, yr;
  double px(double x) const { return left + (x - xr.lo) / (xr.hi - xr.lo) * width; }
  double py(double y) const { return top + height - (y - yr.lo) / (yr.hi - yr.lo) * height; }
};

Range panel_x_range(const Panel& p) {
  if (p.x_range) return *p.x_range;
  std::vector<const std::vector<double>*> v;
  std::vector<double> extra;
  for (const auto& s : p.lines) v.push_back(&s.x);
  for (const auto& s : p.bands) v.push_back(&s.x);
  for (const auto& s : p.points) v.push_back(&s.x);
  for (const auto& s : p.intervals) v.push_back(&s.x);
  for (const auto& c : p.cells) {
    const auto edges = cell_edges(c.x);
    extra.push_back(edges.front());
    extra.push_back(edges.back());
  }
  for (const auto& c : p.contours)
    for (const auto& s : c.segments) extra.insert(extra.end(), {s.x0, s.x1});
  for (const auto& [position, label] : p.x_categories) extra.push_back(position);
  v.push_back(&extra);
  return data_range(v, p.cells.empty() ? 0.02 : 0.0);
}

Range panel_y_range(const Panel& p) {
  if (p.y_range) return *p.y_range;
  std::vector<const std::vector<double>*> v;
  std::vector<double> extra;
  for (const auto& s : p.lines) v.push_back(&s.y);
  for (const auto& s : p.bands) v.insert(v.end(), {&s.lower, &s.upper});
  for (const auto& s : p.points) v.push_back(&s.y);
  for (const auto& s : p.intervals) v.insert(v.end(), {&s.lower, &s.upper});
  for (const auto& c : p.cells) {
    const auto edges = cell_edges(c.y);
    extra.push_back(edges.front());
    extra.push_back(edges.back());
  }
  for (const auto& c : p.contours)
    for (const auto& s : c.segments) extra.insert(extra.end(), {s.y0, s.y1});
  if (p.zero_line) extra.push_back(*p.zero_line);
  v.push_back(&extra);
  return data_range(v, p.cells.empty() ? 0.05 : 0.0);
}

// A range with hi > lo (an empty or inverted one, e.g. given by a caller, is widened).
Range usable(Range r) {
  if (!std::isfinite(r.lo) || !std::isfinite(r.hi)) return {0.0, 1.0};
  if (r.hi > r.lo) return r;
  return {std::min(r.lo, r.hi) - 0.5, std::max(r.lo, r.hi) + 0.5};
}

// A polyline through the finite points, broken where a value is not finite.
void polyline(std::ostream& out, const Frame& f, const std::vector<double>& x, const std::vector<double>& y,
              const std::string& style) {
  std::string points;
  const auto flush = [&] {
    if (!points.empty()) out << "<polyline fill=\"none\" " << style << " points=\"" << points << "\"/>\n";
    points.clear();
  };
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
      flush();
      continue;
    }
    points += (points.empty() ? "" : " ") + num(f.px(x[i])) + "," + num(f.py(y[i]));
  }
  flush();
}

// nice_ticks, with more asked for until at least three fall inside the range.
std::vector<double> ticks_inside(const Range& r, int target) {
  std::vector<double> ticks = nice_ticks(r.lo, r.hi, target);
  for (int more = 1; ticks.size() < 3 && more <= 4; ++more) ticks = nice_ticks(r.lo, r.hi, target + 2 * more);
  return ticks;
}

void draw_panel(std::ostream& out, const Panel& p, const Frame& f, int index) {
  const std::string clip = "clip" + std::to_string(index);
  out << "<clipPath id=\"" << clip << "\"><rect x=\"" << num(f.left) << "\" y=\"" << num(f.top) << "\" width=\""
      << num(f.width) << "\" height=\"" << num(f.height) << "\"/></clipPath>\n";
  out << "<text x=\"" << num(f.left + f.width / 2) << "\" y=\"" << num(f.top - 7)
      << "\" text-anchor=\"middle\" font-size=\"12\" font-weight=\"bold\">" << escape(p.title) << "</text>\n";
  // Ticks and grid lines.
  const auto x_ticks = ticks_inside(f.xr, std::max(2, static_cast<int>(f.width / 70)));
  const auto y_ticks = ticks_inside(f.yr, std::max(2, static_cast<int>(f.height / 45)));
  const double x_step = x_ticks.size() > 1 ? x_ticks[1] - x_ticks[0] : 1.0;
  const double y_step = y_ticks.size() > 1 ? y_ticks[1] - y_ticks[0] : 1.0;
  const double bottom = f.top + f.height;
  if (p.x_categories.empty()) {
    for (double t : x_ticks) {
      if (t < f.xr.lo || t > f.xr.hi) continue;
      out << "<line x1=\"" << num(f.px(t)) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(f.px(t)) << "\" y2=\""
          << num(bottom) << "\" stroke=\"#e6e6e6\"/>\n";
      out << "<text x=\"" << num(f.px(t)) << "\" y=\"" << num(bottom + 13) << "\" text-anchor=\"middle\">"
          << tick_label(t, x_step) << "</text>\n";
    }
  } else {
    for (const auto& [position, label] : p.x_categories) {
      if (p.slanted_categories)
        out << "<text transform=\"translate(" << num(f.px(position) + 3) << "," << num(bottom + 9)
            << ") rotate(-35)\" text-anchor=\"end\">" << escape(label) << "</text>\n";
      else
        out << "<text x=\"" << num(f.px(position)) << "\" y=\"" << num(bottom + 13) << "\" text-anchor=\"middle\">"
            << escape(label) << "</text>\n";
    }
  }
  for (double t : y_ticks) {
    if (t < f.yr.lo || t > f.yr.hi) continue;
    out << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(f.py(t)) << "\" x2=\"" << num(f.left + f.width)
        << "\" y2=\"" << num(f.py(t)) << "\" stroke=\"#e6e6e6\"/>\n";
    out << "<text x=\"" << num(f.left - 4) << "\" y=\"" << num(f.py(t) + 3.5) << "\" text-anchor=\"end\">"
        << tick_label(t, y_step) << "</text>\n";
  }
  out << "<text x=\"" << num(f.left + f.width / 2) << "\" y=\"" << num(bottom + (p.slanted_categories ? 66 : 29))
      << "\" text-anchor=\"middle\">" << escape(p.x_label) << "</text>\n";
  out << "<text transform=\"translate(" << num(f.left - 40) << "," << num(f.top + f.height / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">" << escape(p.y_label) << "</text>\n";

  out << "<g clip-path=\"url(#" << clip << ")\">\n";
  for (const auto& c : p.cells) {
    check_lengths(c.x.size(), static_cast<std::size_t>(c.values.rows()), "a heat map's rows");
    check_lengths(c.y.size(), static_cast<std::size_t>(c.values.cols()), "a heat map's columns");
    const auto xe = cell_edges(c.x), ye = cell_edges(c.y);
    const double span = c.scale.hi > c.scale.lo ? c.scale.hi - c.scale.lo : 1.0;
    for (std::size_t i = 0; i < c.x.size(); ++i)
      for (std::size_t j = 0; j < c.y.size(); ++j) {
        const double v = c.values(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
        if (!std::isfinite(v)) continue;
        const double x0 = f.px(xe[i]), x1 = f.px(xe[i + 1]), y0 = f.py(ye[j + 1]), y1 = f.py(ye[j]);
        // Cells overlap by a fraction of a pixel so that no seams show.
        out << "<rect x=\"" << num(x0) << "\" y=\"" << num(y0) << "\" width=\"" << num(x1 - x0 + 0.3) << "\" height=\""
            << num(y1 - y0 + 0.3) << "\" fill=\"" << sequential_colour((v - c.scale.lo) / span) << "\"/>\n";
      }
  }
  for (const auto& b : p.bands) {
    check_lengths(b.x.size(), b.lower.size(), "a band's lower edge");
    check_lengths(b.x.size(), b.upper.size(), "a band's upper edge");
    std::string points;
    for (std::size_t i = 0; i < b.x.size(); ++i)
      if (std::isfinite(b.x[i]) && std::isfinite(b.upper[i]))
        points += num(f.px(b.x[i])) + "," + num(f.py(b.upper[i])) + " ";
    for (std::size_t i = b.x.size(); i-- > 0;)
      if (std::isfinite(b.x[i]) && std::isfinite(b.lower[i]))
        points += num(f.px(b.x[i])) + "," + num(f.py(b.lower[i])) + " ";
    if (!points.empty()) points.pop_back();
    out << "<polygon fill=\"" << b.colour << "\" fill-opacity=\"" << b.opacity << "\" stroke=\"none\" points=\""
        << points << "\"/>\n";
  }
  if (p.zero_line)
    out << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(f.py(*p.zero_line)) << "\" x2=\"" << num(f.left + f.width)
        << "\" y2=\"" << num(f.py(*p.zero_line)) << "\" stroke=\"#888888\" stroke-width=\"0.8\"/>\n";
  for (const auto& c : p.contours) {
    std::string d;
    for (const auto& s : c.segments)
      d += "M" + num(f.px(s.x0)) + " " + num(f.py(s.y0)) + "L" + num(f.px(s.x1)) + " " + num(f.py(s.y1));
    if (!d.empty())
      out << "<path fill=\"none\" stroke=\"" << c.colour << "\" stroke-width=\"" << c.width << "\""
          << (c.dashed ? " stroke-dasharray=\"5,3\"" : "") << " d=\"" << d << "\"/>\n";
  }
  for (const auto& l : p.lines) {
    check_lengths(l.x.size(), l.y.size(), "a line's y");
    std::ostringstream style;
    style << "stroke=\"" << l.colour << "\" stroke-width=\"" << l.width << "\""
          << (l.dashed ? " stroke-dasharray=\"6,3\"" : "");
    polyline(out, f, l.x, l.y, style.str());
  }
  for (const auto& s : p.intervals) {
    check_lengths(s.x.size(), s.lower.size(), "intervals' lower ends");
    check_lengths(s.x.size(), s.upper.size(), "intervals' upper ends");
    check_lengths(s.x.size(), s.centre.size(), "intervals' centres");
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.lower[i]) || !std::isfinite(s.upper[i]) ||
          !std::isfinite(s.centre[i]))
        continue;
      out << "<line x1=\"" << num(f.px(s.x[i])) << "\" y1=\"" << num(f.py(s.lower[i])) << "\" x2=\""
          << num(f.px(s.x[i])) << "\" y2=\"" << num(f.py(s.upper[i])) << "\" stroke=\"" << s.colour
          << "\" stroke-width=\"1.4\"/>\n";
      out << "<circle cx=\"" << num(f.px(s.x[i])) << "\" cy=\"" << num(f.py(s.centre[i])) << "\" r=\"1.8\" fill=\""
          << s.colour << "\"/>\n";
    }
  }
  for (const auto& s : p.points) {
    check_lengths(s.x.size(), s.y.size(), "points' y");
    for (std::size_t i = 0; i < s.x.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i]))
        out << "<circle cx=\"" << num(f.px(s.x[i])) << "\" cy=\"" << num(f.py(s.y[i])) << "\" r=\"" << s.radius
            << "\" fill=\"" << s.colour << "\"/>\n";
  }
  out << "</g>\n<rect x=\"" << num(f.left) << "\" y=\"" << num(f.top) << "\" width=\"" << num(f.width) << "\" height=\""
      << num(f.height) << "\" fill=\"none\" stroke=\"#333333\"/>\n";
  if (!p.cells.empty()) {  // the first heat map's colour scale, bottom to top
    const Range& scale = p.cells.front().scale;
    const double x = f.left + f.width + 8.0, bands = 24.0, band_height = f.height / bands;
    for (int k = 0; k < static_cast<int>(bands); ++k)
      out << "<rect x=\"" << num(x) << "\" y=\"" << num(f.top + f.height - (k + 1) * band_height)
          << "\" width=\"9\" height=\"" << num(band_height + 0.3) << "\" fill=\""
          << sequential_colour((k + 0.5) / bands) << "\"/>\n";
    char text[32];
    for (const auto& [value, y] : {std::pair{scale.hi, f.top + 8.0}, std::pair{scale.lo, f.top + f.height}}) {
      std::snprintf(text, sizeof text, "%.3g", value);
      out << "<text x=\"" << num(x + 11.0) << "\" y=\"" << num(y) << "\">" << text << "</text>\n";
    }
  }
}

// Lines of at most width / char_width characters, broken at spaces (an estimate: SVG text
// has no wrapping of its own).
std::vector<std::string> wrap(const std::string& text, double width, double char_width) {
  const auto limit = static_cast<std::size_t>(std::max(10.0, width / char_width));
  std::vector<std::string> lines;
  std::string line;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > limit) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// Legend entries in rows under the title; returns the height used.
double draw_legend(std::ostream& out, const std::vector<LegendEntry>& legend, double top, double width) {
  if (legend.empty()) return 0.0;
  double x = 12.0, y = top + 10.0;
  for (const auto& e : legend) {
    const double item = 30.0 + 6.5 * static_cast<double>(e.label.size()) + 16.0;
    if (x + item > width && x > 12.0) {
      x = 12.0;
      y += 16.0;
    }
    switch (e.kind) {
      case LegendEntry::Kind::band:
        out << "<rect x=\"" << num(x) << "\" y=\"" << num(y - 5) << "\" width=\"24\" height=\"10\" fill=\"" << e.colour
            << "\" fill-opacity=\"0.3\"/>\n";
        break;
      case LegendEntry::Kind::point:
        out << "<circle cx=\"" << num(x + 12) << "\" cy=\"" << num(y) << "\" r=\"2.5\" fill=\"" << e.colour << "\"/>\n";
        break;
      case LegendEntry::Kind::interval:
        out << "<line x1=\"" << num(x + 12) << "\" y1=\"" << num(y - 6) << "\" x2=\"" << num(x + 12) << "\" y2=\""
            << num(y + 6) << "\" stroke=\"" << e.colour << "\" stroke-width=\"1.4\"/>\n";
        break;
      default:
        out << "<line x1=\"" << num(x) << "\" y1=\"" << num(y) << "\" x2=\"" << num(x + 24) << "\" y2=\"" << num(y)
            << "\" stroke=\"" << e.colour << "\" stroke-width=\"1.8\""
            << (e.kind == LegendEntry::Kind::dashed_line ? " stroke-dasharray=\"6,3\"" : "") << "/>\n";
    }
    out << "<text x=\"" << num(x + 30) << "\" y=\"" << num(y + 4) << "\">" << escape(e.label) << "</text>\n";
    x += item;
  }
  return y + 10.0 - top;
}

}  // namespace

std::string render_svg(const Figure& figure) {
  if (figure.panels.empty()) throw std::invalid_argument("svg plot: the figure '" + figure.title + "' has no panels");
  const int columns = std::max(1, std::min(figure.columns, static_cast<int>(figure.panels.size())));
  const auto rows = static_cast<int>((figure.panels.size() + static_cast<std::size_t>(columns) - 1) /
                                     static_cast<std::size_t>(columns));
  const double width = columns * figure.panel_width + 20.0;
  std::ostringstream body;
  double top = 8.0;
  for (const auto& line : wrap(figure.title, width - 24.0, 8.6)) {
    body << "<text x=\"12\" y=\"" << num(top + 14) << "\" font-size=\"14\" font-weight=\"bold\">" << escape(line)
         << "</text>\n";
    top += 19.0;
  }
  for (const auto& note : figure.notes)
    for (const auto& line : wrap(note, width - 24.0, 5.3)) {
      body << "<text x=\"12\" y=\"" << num(top + 11) << "\" fill=\"#444444\">" << escape(line) << "</text>\n";
      top += 14.0;
    }
  top += draw_legend(body, figure.legend, top, width) + 6.0;
  for (std::size_t i = 0; i < figure.panels.size(); ++i) {
    const Panel& p = figure.panels[i];
    if (p.blank) continue;
    const double x0 = 10.0 + static_cast<double>(i % static_cast<std::size_t>(columns)) * figure.panel_width;
    const double y0 = top + static_cast<double>(i / static_cast<std::size_t>(columns)) * figure.panel_height;
    const double label_room = p.slanted_categories ? 37.0 : 0.0;
    const double bar_room = p.cells.empty() ? 0.0 : 44.0;  // a colour bar right of a heat map
    Frame f{x0 + 58.0,
            y0 + 22.0,
            figure.panel_width - 72.0 - bar_room,
            figure.panel_height - 62.0 - label_room,
            usable(panel_x_range(p)),
            usable(panel_y_range(p))};
    draw_panel(body, p, f, static_cast<int>(i));
  }
  const double height = top + rows * figure.panel_height + 4.0;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width)
      << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << num(width) << " " << num(height)
      << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"10\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << body.str() << "</svg>\n";
  return out.str();
}

}  // namespace bnn::exp::plot
