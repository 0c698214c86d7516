// Rendering a ReportData as Markdown, LaTeX (booktabs) or tidy CSV.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "experiments/src/io/csv.hpp"
#include "experiments/src/report/latex_text.hpp"
#include "experiments/src/report/report.hpp"
#include "experiments/src/spec/experiment_kind.hpp"

namespace bnn::exp {
namespace {

int decimals_for(double value, double se) {
  if (std::isfinite(se) && se > 0) return std::clamp(1 - static_cast<int>(std::floor(std::log10(se))), 1, 6);
  const double a = std::abs(value);
  if (a >= 1000) return 0;
  if (a >= 100) return 1;
  if (a >= 10) return 2;
  if (a >= 0.1 || a == 0.0) return 3;
  return std::clamp(2 - static_cast<int>(std::floor(std::log10(a))), 3, 6);
}

std::string number(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

// "3.01 ± 0.18", "0.27", or "—"; `pm` is the plus-minus text of the output format.
std::string value_text(double value, double se, const std::string& pm, const std::string& dash) {
  if (!std::isfinite(value)) return dash;
  const int d = decimals_for(value, se);
  std::string out = number(value, d);
  if (std::isfinite(se)) out += pm + number(se, d);
  return out;
}

std::string ours_text(const Cell& c, const std::string& pm, const std::string& dash, const std::string& mark) {
  if (!c.ours) return c.n_failed > 0 ? "failed (" + std::to_string(c.n_failed) + ")" : dash;
  std::string out = value_text(c.ours->value, c.ours->se, pm, dash);
  if (c.partial()) out += " (" + std::to_string(c.n_splits) + "/" + std::to_string(c.n_planned) + ")";
  if (c.differs) out += mark;
  if (c.n_failed > 0) out += " [" + std::to_string(c.n_failed) + " failed]";
  return out;
}

// The paper's value; one printed without a standard error keeps its printed digits.
std::string paper_text(const Cell& c, const std::string& pm, const std::string& dash) {
  if (!c.paper) return dash;
  if (!std::isfinite(c.paper->se) && c.paper->resolution > 0 && std::isfinite(c.paper->value))
    return number(c.paper->value, std::max(0, static_cast<int>(std::lround(-std::log10(c.paper->resolution)))));
  return value_text(c.paper->value, c.paper->se, pm, dash);
}

std::string metric_title(const std::string& name, const ReportData& r) {
  const MetricInfo* info = find_metric(name);
  std::string title = info ? info->title : name;
  if (name == "rel_time" && !r.spec->report.relative_time_to.empty())
    title = "CPU time relative to " + r.spec->report.relative_time_to;
  return title + " (" + name + ")";
}

// Whether the paper has a value of the metric for the method on some data set: its table
// gets a "(paper)" column.
bool method_has_paper(const ReportData& r, const std::string& label, const std::string& metric) {
  for (const auto& [key, c] : r.cells)
    if (std::get<1>(key) == label && std::get<2>(key) == metric && c.paper) return true;
  return false;
}

bool method_has_paper_for(const ReportData& r, const std::string& dataset, const std::string& label) {
  for (const auto& metric : r.metrics)
    if (r.cell(dataset, label, metric).paper) return true;
  return false;
}

std::string size_text(const DatasetRow& d) {
  if (d.n_train > 0) return std::to_string(d.n_train) + "/" + std::to_string(d.n_test);
  if (d.paper_n > 0) return std::to_string(d.paper_n) + " (paper)";
  return d.failed_jobs > 0 ? "— (" + std::to_string(d.failed_jobs) + " failed)" : "— (not run)";
}

std::string dims_text(const DatasetRow& d) {
  if (d.d > 0) return std::to_string(d.d);
  return d.paper_d > 0 ? std::to_string(d.paper_d) : "—";
}

std::string provenance(const ReportData& r, const std::string& bullet) {
  std::ostringstream out;
  const ExperimentSpec& s = *r.spec;
  const bool paper_numbers =
      std::any_of(r.cells.begin(), r.cells.end(), [](const auto& c) { return c.second.paper.has_value(); });
  out << bullet << "Paper: " << (s.paper.empty() ? "—" : s.paper)
      << (!s.references.empty() && !paper_numbers && !r.datasets.empty()
              ? " (it has no numbers for the data sets shown: a copied spec keeps the paper it names)"
              : "")
      << "\n";
  for (const ReferenceSpec& ref : s.references) {
    const auto covered = [&](const std::string& label) {
      return ref.methods.empty() || std::find(ref.methods.begin(), ref.methods.end(), label) != ref.methods.end();
    };
    // A file with no row for any data set shown (a renamed or new data set) says so, rather than
    // the paper's column silently going missing.
    const bool shows_its_methods = std::any_of(r.methods.begin(), r.methods.end(), covered);
    const bool has_rows = std::any_of(r.cells.begin(), r.cells.end(), [&](const auto& c) {
      return covered(std::get<1>(c.first)) && c.second.paper.has_value();
    });
    const bool no_rows = shows_its_methods && !has_rows && !r.datasets.empty() && paper_numbers;
    if ((ref.source.empty() && !no_rows) || !shows_its_methods) continue;
    std::string labels;
    for (const auto& label : ref.methods) labels += (labels.empty() ? "" : ", ") + label;
    out << bullet << "Paper's numbers for " << (labels.empty() ? std::string("the methods") : labels) << ": "
        << (ref.source.empty() ? s.paper : ref.source);
    if (no_rows) {
      std::string shown;
      for (const auto& row : r.datasets) shown += (shown.empty() ? "" : ", ") + row.name;
      out << " (its file " << ref.file << " has no rows for the data sets shown, " << shown
          << ": a data set of another name needs [reference] dataset_names = { PAPER_NAME = \"NAME\" })";
    }
    out << "\n";
  }
  out << bullet << "Metrics on the "
      << (s.scale == "original" ? "original target scale" : "normalized target scale (training-part mean and sd)")
      << "; experiment seed " << s.seed << "\n";
  for (const auto& row : r.datasets)  // the data sets shown
    if (row.config && row.config->target_transform != data::TargetTransform::none)
      out << bullet << row.config->name << ": target transformed on loading to "
          << data::describe_target(row.config->target_transform) << ", so its metrics are on that scale\n";
  for (const auto& row : r.datasets)
    if (!row.loading.empty()) out << bullet << row.name << ": " << row.loading << "\n";
  for (const auto& row : r.datasets)
    if (row.config && row.config->constant_inputs == data::ConstantInputs::numpy)
      out << bullet << row.config->name
          << ": constant input columns standardized as numpy does in double precision (the authors' code), so one "
             "whose mean does not sum exactly becomes a constant input of +-1\n";
  std::set<std::string> versions, hosts, machines;
  double wall = 0;
  long jobs_run = 0;
  std::set<int> threads;
  long stopped = 0;  // runs killed before their end: their counts were never written
  for (const auto& run : r.runs) {
    versions.insert(run.code_version);
    hosts.insert(run.host);
    machines.insert(run.machine);
    threads.insert(run.threads);
    wall += run.wall_seconds;
    jobs_run += run.ended() ? run.jobs_run : run.jobs_stored;
    if (!run.ended()) ++stopped;
  }
  const auto join = [](const auto& set) {
    std::string o;
    for (const auto& v : set) {
      std::ostringstream item;
      item << v;
      o += (o.empty() ? "" : ", ") + item.str();
    }
    return o.empty() ? std::string("—") : o;
  };
  if (r.runs.empty() && r.stored.jobs > 0) {  // no run records: what the jobs themselves say
    out << bullet << "Results: " << r.store_path << " — " << r.stored.jobs << " job(s); code "
        << join(r.stored.code_versions) << "; host " << join(r.stored.hosts) << "; finished "
        << (r.stored.first_finished.empty() ? "—" : r.stored.first_finished + " to " + r.stored.last_finished) << "\n";
    return out.str();
  }
  out << bullet << "Results: " << r.store_path << " — " << r.runs.size() << " run(s)"
      << (stopped > 0 ? " (" + std::to_string(stopped) + " stopped before its end: its stored jobs counted)" : "")
      << ", " << jobs_run << " job(s) run, wall time " << number(wall, 1) << " s"
      << (stopped > 0 ? " (of the runs that ended)" : "") << "; code " << join(versions) << "; host " << join(hosts)
      << " (" << join(machines) << "); threads " << join(threads);
  if (!r.runs.empty()) {
    // ISO-8601 UTC stamps order as strings; merged stores list runs in merge order.
    std::string first = r.runs.front().started_at, last;
    for (const auto& run : r.runs) {
      first = std::min(first, run.started_at);
      last = std::max(last, run.finished_at);
    }
    out << "; first run " << first << ", last finished " << (last.empty() ? "—" : last);
  }
  out << "\n";
  return out.str();
}

}  // namespace

std::string render_markdown(const ReportData& r) {
  const ExperimentSpec& s = *r.spec;
  std::ostringstream out;
  const std::string pm = " ± ", dash = "—", mark = " *";
  out << "# " << s.name << (s.title.empty() ? "" : ": " + s.title) << "\n\n";
  out << provenance(r, "- ");
  for (const auto& n : r.notes) out << "- Note: " << n << "\n";
  for (const auto& w : r.warnings) out << "- Warning: " << w << "\n";
  for (const std::string& line : experiment_kind(s).header_lines(s)) out << "- " << line << "\n";
  out << "- `*` marks our value where it differs from the paper's by more than two combined standard errors, beyond "
         "the rounding of the paper's printed value (half a unit in its last digit).\n";
  if (std::any_of(r.cells.begin(), r.cells.end(), [](const auto& c) { return c.second.partial(); }))
    out << "- `(k/N)`: our value is the mean of k of the protocol's N splits (the others not run, or not finished); "
           "it is not marked against the paper's, which is over all N.\n";
  out << "\n";
  if (s.report.layout == "dataset-rows") {
    for (const auto& metric : r.metrics) {
      out << "## " << metric_title(metric, r) << "\n\n| data set | n train/test | d |";
      std::string rule = "|---|---|---|";
      for (const auto& m : r.methods) {
        out << " " << m << " |";
        rule += "---|";
        if (method_has_paper(r, m, metric)) {
          out << " " << m << " (paper) |";
          rule += "---|";
        }
      }
      out << "\n" << rule << "\n";
      for (const auto& d : r.datasets) {
        out << "| " << d.name << " | " << size_text(d) << " | " << dims_text(d) << " |";
        for (const auto& m : r.methods) {
          const Cell& c = r.cell(d.name, m, metric);
          out << " " << ours_text(c, pm, dash, mark) << " |";
          if (method_has_paper(r, m, metric)) out << " " << paper_text(c, pm, dash) << " |";
        }
        out << "\n";
      }
      out << "\n";
    }
  } else {
    for (const auto& d : r.datasets) {
      out << "## " << d.name << " (n train/test " << size_text(d) << ", d " << dims_text(d) << ")\n\n| method |";
      std::string rule = "|---|";
      for (const auto& metric : r.metrics) {
        out << " " << metric << " |";
        rule += "---|";
      }
      out << "\n" << rule << "\n";
      for (const auto& m : r.methods) {
        out << "| " << m << " |";
        for (const auto& metric : r.metrics) out << " " << ours_text(r.cell(d.name, m, metric), pm, dash, mark) << " |";
        out << "\n";
        if (method_has_paper_for(r, d.name, m)) {
          out << "| " << m << " (paper) |";
          for (const auto& metric : r.metrics) out << " " << paper_text(r.cell(d.name, m, metric), pm, dash) << " |";
          out << "\n";
        }
      }
      out << "\nMetrics: ";
      for (std::size_t i = 0; i < r.metrics.size(); ++i) out << (i ? "; " : "") << metric_title(r.metrics[i], r);
      out << ".\n\n";
    }
  }
  out << r.artifacts;
  if (!r.failures.empty()) {
    out << "## Failed jobs\n\n";
    for (std::size_t i = 0; i < r.failures.size() && i < 50; ++i) out << "- " << r.failures[i] << "\n";
    if (r.failures.size() > 50) out << "- ... and " << r.failures.size() - 50 << " more\n";
    out << "\n";
  }
  return out.str();
}

std::string render_latex(const ReportData& r) {
  const ExperimentSpec& s = *r.spec;
  std::ostringstream out;
  const std::string pm = " $\\pm$ ", dash = "--", mark = "$^*$";
  out << "% " << s.name << ": " << s.title << "\n% generated by bnnbench; requires \\usepackage{booktabs}\n";
  for (const auto& line : {provenance(r, "% ")}) out << line;
  if (s.report.layout == "dataset-rows") {
    for (const auto& metric : r.metrics) {
      std::string columns = "lrr";
      std::string head = "Data set & $n$ & $d$";
      for (const auto& m : r.methods) {
        columns += "r";
        head += " & " + latex_escape(m);
        if (method_has_paper(r, m, metric)) {
          columns += "r";
          head += " & " + latex_escape(m) + " (paper)";
        }
      }
      out << "\\begin{table}\n\\centering\n\\caption{" << latex_escape(s.name + ": " + metric_title(metric, r))
          << "}\n";
      out << "\\begin{tabular}{" << columns << "}\n\\toprule\n" << head << " \\\\\n\\midrule\n";
      for (const auto& d : r.datasets) {
        out << latex_escape(d.name) << " & " << size_text(d) << " & " << dims_text(d);
        for (const auto& m : r.methods) {
          const Cell& c = r.cell(d.name, m, metric);
          out << " & " << ours_text(c, pm, dash, mark);
          if (method_has_paper(r, m, metric)) out << " & " << paper_text(c, pm, dash);
        }
        out << " \\\\\n";
      }
      out << "\\bottomrule\n\\end{tabular}\n\\end{table}\n\n";
    }
  } else {
    std::string columns = "l";
    std::string head = "Method";
    for (const auto& metric : r.metrics) {
      columns += "r";
      head += " & " + latex_escape(metric);
    }
    out << "\\begin{table}\n\\centering\n\\caption{" << latex_escape(s.name + (s.title.empty() ? "" : ": " + s.title))
        << "}\n";
    out << "\\begin{tabular}{" << columns << "}\n\\toprule\n" << head << " \\\\\n";
    for (const auto& d : r.datasets) {
      out << "\\midrule\n\\multicolumn{" << r.metrics.size() + 1 << "}{l}{\\textbf{" << latex_escape(d.name)
          << "} ($n$ = " << size_text(d) << ", $d$ = " << dims_text(d) << ")} \\\\\n";
      for (const auto& m : r.methods) {
        out << latex_escape(m);
        for (const auto& metric : r.metrics) out << " & " << ours_text(r.cell(d.name, m, metric), pm, dash, mark);
        out << " \\\\\n";
        if (method_has_paper_for(r, d.name, m)) {
          out << "\\quad paper";
          for (const auto& metric : r.metrics) out << " & " << paper_text(r.cell(d.name, m, metric), pm, dash);
          out << " \\\\\n";
        }
      }
    }
    out << "\\bottomrule\n\\end{tabular}\n\\end{table}\n";
  }
  return out.str();
}

std::string render_csv(const ReportData& r) {
  std::ostringstream out;
  const auto num = [](double v) {
    if (!std::isfinite(v)) return std::string();
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.10g", v);
    return std::string(buffer);
  };
  out << "dataset,method,metric,value,se,n_splits,paper_value,paper_se\n";
  for (const auto& d : r.datasets)
    for (const auto& m : r.methods)
      for (const auto& metric : r.metrics) {
        const Cell& c = r.cell(d.name, m, metric);
        out << d.name << "," << m << "," << metric << "," << (c.ours ? num(c.ours->value) : "") << ","
            << (c.ours ? num(c.ours->se) : "") << "," << c.n_splits << "," << (c.paper ? num(c.paper->value) : "")
            << "," << (c.paper ? num(c.paper->se) : "") << "\n";
      }
  return out.str();
}

std::string render_grid_csv(const std::vector<std::pair<JobKey, GridPredictions>>& grids) {
  Eigen::Index inputs = 0;
  for (const auto& [key, g] : grids) inputs = std::max(inputs, g.points.X.cols());
  std::ostringstream out;
  out << "dataset,method,split,input";
  for (Eigen::Index j = 0; j < inputs; ++j) out << ",x" << j + 1;
  out << ",mean,sd,lower95,upper95\n";
  char buffer[64];
  const auto num = [&](double v) {
    std::snprintf(buffer, sizeof buffer, "%.10g", v);
    return std::string(buffer);
  };
  for (const auto& [key, g] : grids)
    for (Eigen::Index i = 0; i < g.points.X.rows(); ++i) {
      const auto k = static_cast<std::size_t>(i);
      out << key.dataset << "," << key.method_label << "," << key.split << ","
          << (g.points.varied.empty() ? std::string() : num(g.points.varied[k]));
      for (Eigen::Index j = 0; j < inputs; ++j) out << "," << (j < g.points.X.cols() ? num(g.points.X(i, j)) : "");
      out << "," << num(g.mean[k]) << "," << num(std::sqrt(g.variance[k])) << "," << num(g.lower95[k]) << ","
          << num(g.upper95[k]) << "\n";
    }
  return out.str();
}

}  // namespace bnn::exp
