#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "common.hpp"
#include "datasets/src/load.hpp"
#include "experiments/src/selection.hpp"
#include "shared.hpp"

namespace bnn::cli {
namespace {
// The points of every data set of the spec (original units), for plotting beside the grid.
std::string observations_csv(const exp::ExperimentSpec& spec, const data::DatasetRegistry& registry,
                             const std::string& data_dir) {
  std::vector<data::Dataset> sets;
  Eigen::Index inputs = 0;
  for (const auto& d : spec.datasets) {
    sets.push_back(data::load_dataset(registry.find(d.name), data_dir));
    inputs = std::max(inputs, sets.back().X.cols());
  }
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
}  // namespace

int cmd_report(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string experiment, results, format = "md", output;
  std::vector<std::string> settings;
  po::options_description options("bnnbench report options");
  options.add_options()
      ("experiment", po::value(&experiment), "experiment name or spec file")
      ("results", po::value(&results), "results directory (default: results/EXPERIMENT)")
      ("format", po::value(&format),
       "md (Markdown), csv (tidy: one row per data set x method x metric), latex (booktabs), splits (every "
       "job's per-split metrics), grid (figure predictions on the spec's grid), observations (the data sets' points)")
      ("output,o", po::value(&output), "write to this file instead of standard output")
      ("set", po::value(&settings)->composing(), "the --set overrides the run used (to select its results)");
  common.add_to(options);
  po::positional_options_description positional;
  positional.add("experiment", 1);
  parse(args, options, positional);
  if (common.help) {
    print_help("usage: bnnbench report EXPERIMENT [--results DIR] [--format md|csv|latex] [-o FILE]\n\n"
               "Aggregates finished jobs over splits in the paper's layout, with the paper's numbers\n"
               "beside ours; '*' marks a difference of more than two combined standard errors.",
               options);
    return 0;
  }
  if (experiment.empty()) throw po::error("missing EXPERIMENT");
  check_format(format);
  const exp::ExperimentSpec spec = load_spec(experiment, settings);
  if (results.empty()) results = default_results_dir(spec.name);
  const data::DatasetRegistry registry = common.load_registry();
  std::string text;
  if (format == "observations") {
    text = observations_csv(spec, registry, common.resolved_data_dir());
  } else {
    exp::ResultsStore store(results, /*create=*/false);
    if (format == "splits") text = exp::render_split_csv(store.jobs(spec.name, false));
    else if (format == "grid") {
      // Only the grids of the jobs the table would show (the spec's current configuration).
      const std::set<exp::JobKey> current = exp::selected_job_keys(spec, registry, store.jobs(spec.name, false));
      auto grids = store.grids(spec.name);
      std::erase_if(grids, [&](const auto& g) { return !current.count(g.first); });
      text = exp::render_grid_csv(grids);
    }
    else text = render(exp::build_report(spec, registry, store, exp::load_reference(spec, registry)), format);
  }
  if (output.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(output);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + output);
  }
  return 0;
}

}  // namespace bnn::cli
