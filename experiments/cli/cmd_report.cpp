#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "common.hpp"
#include "datasets/src/load.hpp"
#include "datasets/src/synthetic.hpp"
#include "experiments/src/comparison_figure.hpp"
#include "experiments/src/grid_figure.hpp"
#include "experiments/src/selection.hpp"
#include "experiments/src/split_comparison.hpp"
#include "experiments/src/verify.hpp"
#include "shared.hpp"

namespace bnn::cli {
namespace {
// The selected data sets of the spec (original units), to plot beside the grid.
std::vector<data::Dataset> spec_datasets(const exp::ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                         const exp::ReportSelection& selection, const std::string& data_dir) {
  std::vector<data::Dataset> sets;
  for (const auto& d : spec.datasets) {
    const data::DatasetSpec& entry = registry.find(d.name);
    if (selection.shows_dataset(entry.name)) sets.push_back(data::load_dataset(entry, data_dir));
  }
  return sets;
}

// The true functions of the spec's synthetic data sets, by name.
std::map<std::string, data::LatentFunction> synthetic_truth(const exp::ExperimentSpec& spec,
                                                            const data::DatasetRegistry& registry) {
  std::map<std::string, data::LatentFunction> truth;
  for (const auto& d : spec.datasets) {
    const data::DatasetSpec& entry = registry.find(d.name);
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

// `report --compare FILE`: our table against a published one, cell by cell.
int compare_with_published(const exp::ExperimentSpec& spec, const data::DatasetRegistry& registry,
                           const std::string& results, const exp::ReportSelection& selection, const std::string& file,
                           double tolerance) {
  const std::string published = read_text_file(file, "--compare");
  exp::ResultsStore store(results, exp::ResultsStore::Access::read_only);
  if (exp::is_split_table(published))
    return compare_with_split_file(spec.name, selected_jobs(store.jobs(spec.name, false), selection), store.path(), file,
                                   published, tolerance);
  const std::string ours =
      exp::render_csv(exp::build_report(spec, registry, store, exp::load_reference(spec, registry), selection));
  const exp::TableComparison c = exp::compare_report_tables(ours, published, file, tolerance);
  std::cout << "# " << spec.name << ": " << store.path() << " against " << file << "\n\n"
            << c.compared << " value(s) compared (timings excepted): " << c.identical << " identical, " << c.within
            << " within tolerance " << tolerance << ", " << c.differing.size() << " differ; " << c.not_rerun
            << " published value(s) not rerun here, " << c.partial << " over a different number of splits, "
            << c.not_published << " of ours not in the published table\n";
  if (c.compared == 0) {
    std::cerr << "bnnbench report: --compare: no value of " << file << " could be compared with this store's report\n";
    return 1;
  }
  if (!c.differing.empty()) {
    std::cout << "\n| data set | method | metric | ours | se | published | se | relative difference |\n"
                 "|---|---|---|---|---|---|---|---|\n";
    for (const auto& d : c.differing)
      std::cout << "| " << d.dataset << " | " << d.method << " | " << d.metric << " | " << d.ours << " | " << d.ours_se
                << " | " << d.theirs << " | " << d.theirs_se << " | " << d.relative << " |\n";
  }
  return c.differing.empty() ? 0 : 1;
}

// One output format of `report` as text.
std::string report_text(const std::string& format, const exp::ExperimentSpec& spec,
                        const data::DatasetRegistry& registry, const std::string& results,
                        const exp::ReportSelection& selection, const CommonOptions& common) {
  if (format == "observations")
    return observations_csv(spec_datasets(spec, registry, selection, common.resolved_data_dir()));
  exp::ResultsStore store(results, exp::ResultsStore::Access::read_only);
  const std::vector<exp::JobRecord> jobs = selected_jobs(store.jobs(spec.name, false), selection);
  if (jobs.empty()) std::cerr << "note: " << store.path() << " holds no job of " << spec.name << (selection.all() ? "" : " in the selection") << "\n";
  if (format == "splits") return exp::render_split_csv(jobs);
  if (format == "jobs") return exp::render_job_csv(jobs);
  if (format == "svg" && !spec.grid)
    return exp::plot::render_svg(exp::comparison_figure(
        exp::build_report(spec, registry, store, exp::load_reference(spec, registry), selection)));
  if (format == "grid" || format == "svg") {
    // Only the grids of the jobs the table would show (the spec's current configuration, the selection).
    const std::set<exp::JobKey> current = exp::selected_job_keys(spec, registry, jobs);
    auto grids = store.grids(spec.name);
    std::erase_if(grids, [&](const auto& g) { return !current.count(g.first); });
    if (format == "grid") return exp::render_grid_csv(grids);
    return exp::plot::render_svg(exp::grid_figure(
        spec, grids, spec_datasets(spec, registry, selection, common.resolved_data_dir()), synthetic_truth(spec, registry)));
  }
  return render(exp::build_report(spec, registry, store, exp::load_reference(spec, registry), selection), format);
}

// The files `report --publish DIR` writes, with their formats: what results/EXPERIMENT holds.
std::vector<std::pair<std::string, std::string>> published_files(const exp::ExperimentSpec& spec) {
  if (spec.grid)
    return {{"report.md", "md"},     {"grid.csv", "grid"},     {"observations.csv", "observations"},
            {"figure.svg", "svg"},   {"splits.csv", "splits"}, {"jobs.csv", "jobs"}};
  return {{"report.md", "md"},   {"report.csv", "csv"},       {"report.tex", "latex"},
          {"report.svg", "svg"}, {"splits.csv", "splits"}, {"jobs.csv", "jobs"}};
}

}  // namespace

int cmd_report(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string experiment, results, format = "md", output, compare, publish;
  JobFilterOptions filter;  // its --methods, --datasets and --set
  double tolerance = 0.0;
  po::options_description options("bnnbench report options");
  options.add_options()
      ("experiment", po::value(&experiment), "experiment name or spec file")
      ("results", po::value(&results), "results directory (default: results/EXPERIMENT)")
      ("format", po::value(&format),
       "md (Markdown), csv (tidy: one row per data set x method x metric), latex (booktabs), splits (every "
       "job's per-split metrics), jobs (every job's provenance and fit report: configuration, seed, status, iterations, "
       "times, code version, host, warnings, diagnostics), grid (figure predictions on the spec's grid), observations (the data sets' points), "
       "svg (a figure: a grid experiment's predictions and data, or a table experiment's values beside the "
       "paper's with two standard errors)")
      ("output,o", po::value(&output), "write to this file instead of standard output")
      ("publish", po::value(&publish),
       "write every format into this directory, as results/EXPERIMENT holds them: report.md, and report.csv, "
       "report.tex, report.svg for a table or grid.csv, observations.csv, figure.svg for a figure; splits.csv "
       "and jobs.csv for both")
      ("set", po::value(&filter.settings)->composing(), "the --set overrides the run used (to select its results)")
      ("methods", po::value(&filter.methods)->composing(),
       "only these method labels (comma-separated): the report, the per-split and job files, the comparison")
      ("datasets", po::value(&filter.datasets)->composing(), "only these data sets (comma-separated names or aliases)")
      ("compare", po::value(&compare),
       "instead of the report, compare it with a published one: a table in the CSV format (e.g. "
       "results/EXPERIMENT/report.csv; values and standard errors, cell by cell) or per-split metrics in the "
       "splits format (e.g. results/EXPERIMENT/splits.csv; every job this store holds, metric by metric); exit "
       "status 1 when any differ")
      ("tolerance", po::value(&tolerance),
       "with --compare: largest relative difference accepted (default 0: a table's 10 significant digits, "
       "per-split values bit for bit)");
  if (common.parse_or_help(args, options, "experiment",
                           "usage: bnnbench report EXPERIMENT [--results DIR] [--format md|csv|latex|splits|jobs|grid|observations|svg] [-o FILE | --publish DIR]\n\n"
                           "Aggregates finished jobs over splits in the paper's layout, with the paper's numbers\n"
                           "beside ours; '*' marks a difference of more than two combined standard errors beyond the\n"
                           "rounding of the paper's printed value."))
    return 0;
  if (experiment.empty()) throw po::error("missing EXPERIMENT");
  check_format(format, {"md", "csv", "latex", "splits", "jobs", "grid", "observations", "svg"});
  if (!(tolerance >= 0.0))
    throw std::invalid_argument("--tolerance is " + std::to_string(tolerance) + ", but must be >= 0");
  const exp::ExperimentSpec spec = load_spec(experiment, filter.settings);
  if (results.empty()) results = default_results_dir(spec.name);
  const data::DatasetRegistry registry = common.load_registry();
  if (!compare.empty() && !publish.empty()) throw po::error("--compare and --publish: give one of them");
  const exp::ReportSelection selection = report_selection(spec, registry, filter.plan_options(""));
  if (!compare.empty()) return compare_with_published(spec, registry, results, selection, compare, tolerance);
  if (!publish.empty()) {
    if (!output.empty() || common.given.count("format")) throw po::error("--publish writes every format: drop --format and -o");
    // Every file is made before any is written: a failure leaves the directory as it was.
    std::vector<std::pair<std::filesystem::path, std::string>> files;
    for (const auto& [name, file_format] : published_files(spec))
      files.emplace_back(std::filesystem::path(publish) / name, report_text(file_format, spec, registry, results, selection, common));
    std::error_code error;
    std::filesystem::create_directories(publish, error);
    if (error) throw std::invalid_argument("--publish: cannot create the directory " + publish + ": " + error.message());
    for (const auto& [path, text] : files) {
      write_text_file(path.string(), text, "--publish");
      std::cerr << "wrote " << path.string() << "\n";
    }
    return 0;
  }
  const std::string text = report_text(format, spec, registry, results, selection, common);
  if (output.empty()) {
    std::cout << text;
  } else {
    write_text_file(output, text, "-o");
  }
  return 0;
}

}  // namespace bnn::cli
