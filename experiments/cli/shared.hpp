#pragma once
// Helpers used by several commands.
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "datasets/src/registry.hpp"
#include "experiments/src/plan.hpp"
#include "experiments/src/report.hpp"
#include "experiments/src/spec.hpp"

namespace bnn::cli {

// Loads a spec by name or path and applies --set overrides.
exp::ExperimentSpec load_spec(const std::string& name_or_path, const std::vector<std::string>& settings);
std::string default_results_dir(const std::string& experiment);
void check_format(const std::string& format);  // md, csv or latex
std::string render(const exp::ReportData& report, const std::string& format);

// Which jobs of an experiment a command works on: --methods, --datasets, --splits, --set.
struct JobFilterOptions {
  std::vector<std::string> methods, datasets, settings;
  std::string splits;
  void add_to(boost::program_options::options_description& options);
  exp::PlanOptions plan_options(const std::string& data_dir) const;
};

}  // namespace bnn::cli
