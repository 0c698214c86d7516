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
#include "datasets/src/synthetic.hpp"
#include "experiments/src/io/files.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/report/active_learning_report.hpp"
#include "experiments/src/report/artifact_report.hpp"
#include "experiments/src/report/comparison_figure.hpp"
#include "experiments/src/report/grid_figure.hpp"
#include "experiments/src/report/html_page.hpp"
#include "experiments/src/report/paired_comparison.hpp"
#include "experiments/src/report/report_store.hpp"

namespace bnn::exp {
namespace {

// The selected data sets of the spec (original units), to plot beside the grid.
std::vector<data::Dataset> spec_datasets(const ReportSource& source) {
  std::vector<data::Dataset> sets;
  for (const auto& d : source.spec.datasets) {
    const data::DatasetSpec& entry = source.registry.find(d.name);
    if (source.selection.shows_dataset(entry.name)) sets.push_back(data::load_dataset(entry, source.data_dir));
  }
  return sets;
}

// The true functions of the spec's synthetic data sets, by name.
std::map<std::string, data::LatentFunction> synthetic_truth(const ReportSource& source) {
  std::map<std::string, data::LatentFunction> truth;
  for (const auto& d : source.spec.datasets) {
    const data::DatasetSpec& entry = source.registry.find(d.name);
    if (entry.synthetic) truth[entry.name] = data::synthetic_latent(entry.synthetic->generator);
  }
  return truth;
}

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

// The paper's values of one metric per method label (first data set that has them), as printed.
std::map<std::string, std::string> paper_values(const ReportData& report, const std::string& metric) {
  std::map<std::string, std::string> out;
  for (const auto& d : report.datasets)
    for (const auto& m : report.methods) {
      const Cell& c = report.cell(d.name, m, metric);
      if (c.paper && !out.count(m)) {
        std::ostringstream text;
        text << c.paper->value;
        out[m] = text.str();
      }
    }
  return out;
}

bool is_artifact_file(const std::string& format) { return format.ends_with(".csv") || format.ends_with(".svg"); }

// What the formats of one report share, each made once when a format first needs it: the
// store it reads, the jobs shown, the table, the grids, the figures of the artifacts.
class ReportContext {
 public:
  explicit ReportContext(const ReportSource& source) : source_(source) {}
  const ReportSource& source() const { return source_; }
  ResultsStore& store() {
    if (!opened_) opened_.emplace(source_);
    return **opened_;
  }
  bool from_committed_files() {
    store();
    return opened_->from_committed_files();
  }
  const std::vector<JobRecord>& jobs() {
    if (!jobs_) {
      jobs_ = selected_jobs(store().jobs(source_.spec.name, false), source_.selection);
      if (jobs_->empty())
        std::cerr << "note: " << store().description() << " holds no job of " << source_.spec.name
                  << (source_.selection.all() ? "" : " in the selection") << "\n";
    }
    return *jobs_;
  }
  const ReportData& report() {
    if (!report_)
      report_ = build_report(source_.spec, source_.registry, store(), load_reference(source_.spec, source_.registry),
                             source_.selection);
    return *report_;
  }
  // The grids of the jobs the table shows (the spec's current configuration, the selection).
  const std::vector<std::pair<JobKey, GridPredictions>>& grids() {
    if (!grids_) {
      const std::set<JobKey> current = selected_job_keys(source_.spec, source_.registry, jobs());
      grids_ = store().grids(source_.spec.name);
      std::erase_if(*grids_, [&](const auto& g) { return !current.count(g.first); });
    }
    return *grids_;
  }
  // The files drawn from the shown jobs: the artifacts' tables and figures, an active-learning
  // experiment's learning curves. Name -> contents.
  const std::vector<std::pair<std::string, std::string>>& figure_files() {
    if (figures_) return *figures_;
    figures_.emplace();
    const ExperimentSpec& spec = source_.spec;
    if (spec.artifacts.empty() && !spec.active_learning) return *figures_;
    const std::vector<JobRecord> shown = shown_jobs(spec, source_.registry, store(), source_.selection);
    if (!spec.artifacts.empty()) {
      std::vector<const JobRecord*> pointers;
      for (const auto& j : shown) pointers.push_back(&j);
      *figures_ = artifact_files(spec, pointers, paper_values(report(), "kl"));
    }
    if (spec.active_learning && !shown.empty()) {
      figures_->emplace_back("learning_curves.csv", learning_curves_csv(spec, source_.registry, shown));
      figures_->emplace_back("learning_curves.svg",
                             plot::render_svg(learning_curve_figure(spec, source_.registry, shown)));
    }
    return *figures_;
  }

 private:
  const ReportSource& source_;
  std::optional<ReportStore> opened_;
  std::optional<std::vector<JobRecord>> jobs_;
  std::optional<ReportData> report_;
  std::optional<std::vector<std::pair<JobKey, GridPredictions>>> grids_;
  std::optional<std::vector<std::pair<std::string, std::string>>> figures_;
};

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

std::string figure_svg(ReportContext& c) {
  const ReportSource& s = c.source();
  if (!s.spec.grid) return plot::render_svg(comparison_figure(c.report()));
  return plot::render_svg(grid_figure(s.spec, c.grids(), spec_datasets(s), synthetic_truth(s)));
}

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
  std::vector<std::pair<std::string, std::string>> figures;
  std::vector<std::string> links;
  if (c.from_committed_files()) {
    const std::string main_figure = s.spec.grid ? "figure.svg" : "report.svg";
    for (const std::string& name : committed_files(s.results)) {
      links.push_back(name);
      if (!name.ends_with(".svg")) continue;
      const auto path = (std::filesystem::path(s.results) / name).string();
      figures.emplace(name == main_figure ? figures.begin() : figures.end(), name, read_text_file(path, "--results"));
    }
  } else {
    figures.emplace_back(s.spec.grid ? "figure.svg" : "report.svg", figure_svg(c));
    for (const ReportFormat& f : report_formats()) {
      const std::string& file = s.spec.grid ? f.figure_file : f.table_file;
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
  // An active-learning job has a row per step and metric: its per-job files are compressed.
  return spec.active_learning && (file == "splits.csv" || file == "jobs.csv") ? file + ".gz" : file;
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
    const std::string& file = source.spec.grid ? f.figure_file : f.table_file;
    if (!file.empty()) files.emplace_back(published_name(source.spec, file), f.render(context));
  }
  for (const auto& file : context.figure_files()) files.push_back(file);
  return files;
}

}  // namespace bnn::exp
