#include "experiments/src/report/active_learning_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "experiments/src/io/csv.hpp"
#include "experiments/src/metrics/metrics.hpp"

namespace bnn::exp {
namespace {

// The finished jobs of one data set and method label, by split.
std::map<int, const JobRecord*> finished(const std::vector<JobRecord>& jobs, const std::string& dataset,
                                         const std::string& label) {
  std::map<int, const JobRecord*> out;
  for (const auto& j : jobs)
    if (j.status == "ok" && j.key.dataset == dataset && j.key.method_label == label) out[j.key.split] = &j;
  return out;
}

double final_metric(const JobRecord& job, const std::string& name) {
  return job.evaluations.empty() ? std::nan("") : job.evaluations.back().metrics.at(name);
}

std::string text(double value, int digits = 4) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

// The data sets of the spec (canonical names) whose curves are drawn.
std::vector<std::string> curve_datasets(const ExperimentSpec& spec, const data::DatasetRegistry& registry) {
  std::vector<std::string> out;
  for (const auto& d : spec.datasets) {
    const auto& wanted = spec.active_learning->curves;
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), d.name) != wanted.end())
      out.push_back(registry.find(d.name).name);
  }
  return out;
}

struct CurvePoint {
  long n_train = 0, repeats = 0;
  Summary rmse, test_ll;
};

// Per evaluation, over the finished repeats of one data set and method.
std::vector<CurvePoint> curve(const std::map<int, const JobRecord*>& jobs) {
  std::vector<CurvePoint> out;
  std::size_t steps = 0;
  for (const auto& [split, job] : jobs) steps = std::max(steps, job->evaluations.size());
  for (std::size_t s = 0; s < steps; ++s) {
    std::vector<double> rmse, test_ll;
    CurvePoint p;
    for (const auto& [split, job] : jobs) {
      if (s >= job->evaluations.size()) continue;
      const Evaluation& e = job->evaluations[s];
      rmse.push_back(e.metrics.at("rmse"));
      test_ll.push_back(e.metrics.at("test_ll"));
      p.n_train = e.n_train;
    }
    p.repeats = static_cast<long>(rmse.size());
    p.rmse = mean_and_se(rmse);
    p.test_ll = mean_and_se(test_ll);
    out.push_back(p);
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> selection_pairs(const ExperimentSpec& spec) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& a : spec.methods) {
    if (a.selection != "variance") continue;
    for (const auto& r : spec.methods)
      if (r.selection == "random" && r.method == a.method && r.options == a.options &&
          r.dataset_options == a.dataset_options)
        pairs.emplace_back(a.label, r.label);
  }
  return pairs;
}

std::string paired_markdown(const ExperimentSpec& spec, const std::vector<std::string>& datasets,
                            const std::vector<JobRecord>& jobs) {
  const auto pairs = selection_pairs(spec);
  if (pairs.empty()) return {};
  std::ostringstream out;
  out << "## Paired differences of the final test RMSE (variance - random selection)\n\n"
      << "Mean over the repeats where both finished, ± its standard error, and z = mean / se; a negative mean: "
         "choosing the largest predictive variance beats choosing at random. `*`: |z| > 2.\n\n| data set |";
  std::string rule = "|---|";
  for (const auto& [a, r] : pairs) {
    out << " " << a << " - " << r << " |";
    rule += "---|";
  }
  out << "\n" << rule << "\n";
  for (const auto& name : datasets) {
    out << "| " << name << " |";
    for (const auto& [a, r] : pairs) {
      const auto with_a = finished(jobs, name, a), with_r = finished(jobs, name, r);
      std::vector<double> differences;
      for (const auto& [split, job] : with_a)
        if (const auto it = with_r.find(split); it != with_r.end())
          differences.push_back(final_metric(*job, "rmse") - final_metric(*it->second, "rmse"));
      if (differences.size() < 2) {
        out << " — |";
        continue;
      }
      const Summary s = mean_and_se(differences);
      const double z = s.value / s.se;
      out << " " << text(s.value, 3) << " ± " << text(s.se, 2) << " (z " << text(z, 2) << ", " << differences.size()
          << ")" << (std::abs(z) > 2.0 ? " *" : "") << " |";
    }
    out << "\n";
  }
  return out.str() + "\n";
}

std::string learning_curves_csv(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                const std::vector<JobRecord>& jobs) {
  std::ostringstream out;
  out << "dataset,method,evaluation,n_train,repeats,rmse,rmse_se,test_ll,test_ll_se\n";
  for (const auto& d : spec.datasets) {
    const std::string name = registry.find(d.name).name;
    for (const auto& m : spec.methods) {
      const auto points = curve(finished(jobs, name, m.label));
      for (std::size_t s = 0; s < points.size(); ++s)
        out << name << "," << m.label << "," << s + 1 << "," << points[s].n_train << "," << points[s].repeats << ","
            << exact_number(points[s].rmse.value) << "," << exact_number(points[s].rmse.se) << ","
            << exact_number(points[s].test_ll.value) << "," << exact_number(points[s].test_ll.se) << "\n";
    }
  }
  return out.str();
}

plot::Figure learning_curve_figure(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                   const std::vector<JobRecord>& jobs) {
  plot::Figure figure;
  figure.title = spec.name + ": test RMSE during active learning (mean -+ 1 standard error over repeats)";
  figure.notes.push_back(
      "evaluation 1: the initial training set; one point added before each further evaluation. "
      "Solid: largest predictive variance; dashed: uniformly at random.");
  figure.columns = 3;
  figure.panel_width = 330.0;
  figure.panel_height = 260.0;
  std::map<std::string, std::size_t> colours;  // one per method (its two selections share it)
  for (const auto& m : spec.methods) colours.try_emplace(m.method, colours.size());
  for (const auto& name : curve_datasets(spec, registry)) {
    plot::Panel panel;
    panel.title = name;
    panel.x_label = "number of evaluations";
    panel.y_label = "test RMSE";
    for (const MethodConfig& method : spec.methods) {
      const auto points = curve(finished(jobs, name, method.label));
      if (points.empty()) continue;
      plot::Line line;
      line.colour = plot::palette(colours.at(method.method));
      line.dashed = method.selection == "random";
      plot::Intervals bars;
      bars.colour = line.colour;
      for (std::size_t s = 0; s < points.size(); ++s) {
        const double x = static_cast<double>(s + 1) + (line.dashed ? 0.08 : -0.08);
        line.x.push_back(x);
        line.y.push_back(points[s].rmse.value);
        const double se = std::isfinite(points[s].rmse.se) ? points[s].rmse.se : 0.0;
        bars.x.push_back(x);
        bars.centre.push_back(points[s].rmse.value);
        bars.lower.push_back(points[s].rmse.value - se);
        bars.upper.push_back(points[s].rmse.value + se);
      }
      panel.lines.push_back(std::move(line));
      panel.intervals.push_back(std::move(bars));
    }
    if (!panel.lines.empty()) figure.panels.push_back(std::move(panel));
  }
  if (figure.panels.empty()) throw std::invalid_argument(spec.name + ": no finished job to draw learning curves of");
  for (const auto& m : spec.methods)
    figure.legend.push_back(
        {m.label, plot::palette(colours.at(m.method)),
         m.selection == "random" ? plot::LegendEntry::Kind::dashed_line : plot::LegendEntry::Kind::line});
  return figure;
}

}  // namespace bnn::exp
