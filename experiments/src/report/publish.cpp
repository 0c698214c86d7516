#include "experiments/src/report/publish.hpp"
#include "experiments/src/export/job_csv.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "datasets/src/load.hpp"
#include "experiments/src/io/files.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/report/artifact_report.hpp"
#include "experiments/src/report/html_page.hpp"
#include "experiments/src/report/paired_comparison.hpp"
#include "experiments/src/report/report_context.hpp"
#include "experiments/src/report/report_store.hpp"
#include "experiments/src/spec/experiment_kind.hpp"

namespace bnn::exp {
namespace {

// The points of every data set of the spec (original units), for plotting beside the grid.
std::string observations_csv(const std::vector<data::Dataset>& sets) {
  Eigen::Index inputs = 0;
  for (const auto& data : sets) inputs = std::max(inputs, data.X.cols());
  std::ostringstream out;
  out.precision(10);
  out << "dataset,row";
  for (Eigen::Index j = 0; j < inputs; ++j) out << ",x" << j + 1;
  out << ",y\n";
  for (const auto& data : sets)
    for (Eigen::Index i = 0; i < data.X.rows(); ++i) {
      out << data.name << "," << i;
      for (Eigen::Index j = 0; j < inputs; ++j) {
        out << ",";
        if (j < data.X.cols()) out << data.X(i, j);
      }
      out << "," << data.y[i] << "\n";
    }
  return out.str();
}

bool is_artifact_file(const std::string& format) { return format.ends_with(".csv") || format.ends_with(".svg"); }

// One format of a report: its name (--format), what it is, its file in --publish (for a table
// experiment and for a figure experiment; empty: not published), whether `run` may print it,
// how it is made, and how `report --paired-against` renders in it (empty: it does not).
struct ReportFormat {
  std::string name;
  std::string description;
  std::string table_file, figure_file;
  bool after_run = false;
  std::function<std::string(ReportContext&)> render;
  std::function<std::string(const PairedComparison&)> paired = {};
};

std::string figure_svg(ReportContext& c) { return experiment_kind(c.source().spec).figure_svg(c); }

const std::vector<ReportFormat>& report_formats();

// The files of a committed results folder (not the page itself, nor a store's).
std::vector<std::string> committed_files(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name != "report.html" && !name.starts_with("bnnbench.")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The HTML page: the Markdown report, the experiment's figure and the artifacts' figures
// inline, links to the other published files. Rendered from committed per-job files (which keep
// no grids or artifacts), its figures and links are the committed folder's own.
std::string html_report(ReportContext& c) {
  const ReportSource& s = c.source();
  const ExperimentKind& kind = experiment_kind(s.spec);
  std::vector<std::pair<std::string, std::string>> figures;
  std::vector<std::string> links;
  if (c.from_committed_files()) {
    const std::string main_figure = kind.main_figure_file();
    for (const std::string& name : committed_files(s.results)) {
      links.push_back(name);
      if (!name.ends_with(".svg")) continue;
      const auto path = (std::filesystem::path(s.results) / name).string();
      figures.emplace(name == main_figure ? figures.begin() : figures.end(), name, read_text_file(path, "--results"));
    }
  } else {
    figures.emplace_back(kind.main_figure_file(), figure_svg(c));
    for (const ReportFormat& f : report_formats()) {
      const std::string& file = kind.is_figure() ? f.figure_file : f.table_file;
      if (!file.empty() && f.name != "html") links.push_back(published_name(s.spec, file));
    }
    for (const auto& [name, text] : c.figure_files()) {
      if (name.ends_with(".svg")) figures.emplace_back(name, text);
      links.push_back(name);
    }
  }
  return html_page(s.spec.name + (s.spec.title.empty() ? "" : ": " + s.spec.title), render_markdown(c.report()),
                   figures, links);
}

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> formats = {
      {"md", "Markdown", "report.md", "report.md", true, [](ReportContext& c) { return render_markdown(c.report()); },
       render_paired_markdown},
      {"csv", "tidy CSV, one row per data set x method x metric", "report.csv", "", true,
       [](ReportContext& c) { return render_csv(c.report()); }, render_paired_csv},
      {"latex", "LaTeX tables (booktabs)", "report.tex", "", true,
       [](ReportContext& c) { return render_latex(c.report()); }, render_paired_latex},
      {"html", "one self-contained page: the tables, the figures inline, links to the files", "report.html",
       "report.html", true, html_report, render_paired_html},
      {"svg", "a figure: a grid experiment's predictions and data, or a table's values beside the paper's",
       "report.svg", "figure.svg", false, figure_svg},
      {"splits", "every job's per-split metrics", "splits.csv", "splits.csv", true,
       [](ReportContext& c) { return render_split_csv(c.jobs()); }},
      {"jobs", "every job's provenance and fit report", "jobs.csv", "jobs.csv", false,
       [](ReportContext& c) { return render_job_csv(c.jobs()); }},
      {"grid", "a figure experiment's predictions on its grid", "", "grid.csv", false,
       [](ReportContext& c) { return render_grid_csv(c.grids()); }},
      {"observations", "the data sets' points (a figure's training data)", "", "observations.csv", false,
       [](ReportContext& c) { return observations_csv(spec_datasets(c.source())); }},
  };
  return formats;
}

const ReportFormat& find_format(const std::string& name, bool for_run) {
  for (const ReportFormat& f : report_formats())
    if (f.name == name && (f.after_run || !for_run)) return f;
  std::vector<std::string> names;
  for (const ReportFormat& f : report_formats())
    if (f.after_run || !for_run) names.push_back(f.name);
  if (!for_run) names.push_back("an artifact file such as parameter_marginals.csv");
  check_format(name, names);
  throw std::logic_error("unreachable");
}

}  // namespace

std::string published_name(const ExperimentSpec& spec, const std::string& file) {
  return experiment_kind(spec).published_name(file);
}

std::string report_format_list() {
  std::string out;
  for (const ReportFormat& f : report_formats()) out += (out.empty() ? "" : ", ") + f.name + " (" + f.description + ")";
  return out + ", or an artifact file such as parameter_marginals.csv or gaussian_posterior.svg";
}

void check_run_format(const std::string& format) { find_format(format, true); }

void check_format(const std::string& format, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), format) != allowed.end()) return;
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  throw std::invalid_argument("--format '" + format + "' must be " + list);
}

std::string report_text(const std::string& format, const ReportSource& source) {
  const ReportFormat* chosen = is_artifact_file(format) ? nullptr : &find_format(format, false);
  ReportContext context(source);
  if (chosen) return chosen->render(context);
  std::string known;
  for (const auto& [name, text] : context.figure_files()) {
    if (name == format) return text;
    known += (known.empty() ? "" : ", ") + name;
  }
  throw std::invalid_argument("no file '" + format + "' in this store's results of " + source.spec.name +
                              (known.empty() ? " (it has none)" : " (it has: " + known + ")"));
}

std::string paired_report_text(const std::string& format, const ReportSource& source, const std::string& baseline) {
  std::vector<std::string> labels, paired_formats;
  for (const auto& m : source.spec.methods) labels.push_back(m.label);
  check_baseline_label(baseline, labels, source.spec.name);
  const ReportFormat* chosen = nullptr;
  for (const ReportFormat& f : report_formats())
    if (f.paired) {
      paired_formats.push_back(f.name);
      if (f.name == format) chosen = &f;
    }
  if (!chosen) {
    std::string list;
    for (const auto& name : paired_formats) list += (list.empty() ? "" : ", ") + name;
    throw std::invalid_argument("--paired-against has no --format '" + format + "' (it renders as " + list + ")");
  }
  ReportSource shown = source;  // the baseline is compared with whatever --methods selects
  if (!shown.selection.shows_method(baseline)) shown.selection.methods.push_back(baseline);
  ReportContext context(shown);
  const PairedInput input =
      paired_input(shown.spec, shown.registry, context.jobs(), shown.selection, context.store().description());
  return chosen->paired(paired_comparison(input, baseline));
}

std::vector<std::pair<std::string, std::string>> published_files(const ReportSource& source) {
  ReportContext context(source);
  std::vector<std::pair<std::string, std::string>> files;
  for (const ReportFormat& f : report_formats()) {
    const std::string& file = experiment_kind(source.spec).is_figure() ? f.figure_file : f.table_file;
    if (!file.empty()) files.emplace_back(published_name(source.spec, file), f.render(context));
  }
  for (const auto& file : context.figure_files()) files.push_back(file);
  return files;
}

}  // namespace bnn::exp
