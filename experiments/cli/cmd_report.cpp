#include <filesystem>
#include <fstream>
#include <iostream>

#include "common.hpp"
#include "shared.hpp"

namespace bnn::cli {

int cmd_report(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string experiment, results, format = "md", output;
  std::vector<std::string> settings;
  po::options_description options("bnnbench report options");
  options.add_options()
      ("experiment", po::value(&experiment), "experiment name or spec file")
      ("results", po::value(&results), "results directory (default: results/EXPERIMENT)")
      ("format", po::value(&format), "md (Markdown), csv (tidy: one row per data set x method x metric), latex (booktabs), or splits (every job's per-split metrics)")
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
  exp::ResultsStore store(results, /*create=*/false);
  const std::string text =
      format == "splits" ? exp::render_split_csv(store.jobs(spec.name, false))
                         : render(exp::build_report(spec, registry, store, exp::load_reference(spec, registry)), format);
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
