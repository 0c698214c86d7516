#include "shared.hpp"

#include <filesystem>
#include <stdexcept>

#include "common.hpp"
#include "methods/registry.hpp"

namespace bnn::cli {

exp::ExperimentSpec load_spec(const std::string& name_or_path, const std::vector<std::string>& settings) {
  exp::ExperimentSpec spec = exp::load_experiment(exp::find_experiment_file(name_or_path));
  std::vector<std::string> flat;
  for (const auto& s : settings) flat.push_back(s);
  exp::apply_settings(spec, flat, [](const std::string& method, const std::string& option) {
    for (const auto& entry : method_registry())
      if (entry.name == method)
        for (const auto& o : entry.options)
          if (o.name == option) return true;
    return false;
  });
  return spec;
}

std::string default_results_dir(const std::string& experiment) {
  return (std::filesystem::path("results") / experiment).string();
}

void check_format(const std::string& format) {
  if (format != "md" && format != "csv" && format != "latex" && format != "splits" && format != "grid" &&
      format != "observations")
    throw std::invalid_argument("--format '" + format + "' must be md, csv, latex, splits, grid or observations");
}

std::string render(const exp::ReportData& report, const std::string& format) {
  if (format == "csv") return exp::render_csv(report);
  if (format == "latex") return exp::render_latex(report);
  return exp::render_markdown(report);
}

void JobFilterOptions::add_to(po::options_description& options) {
  options.add_options()
      ("methods", po::value(&methods)->composing(), "only these method labels (comma-separated)")
      ("datasets", po::value(&datasets)->composing(), "only these data sets (comma-separated names or aliases)")
      ("splits", po::value(&splits), "only these splits, e.g. 0-4 or 0,3,7")
      ("set", po::value(&settings)->composing(),
       "override: seed=N, LABEL.OPTION=VALUE, OPTION=VALUE (every method having it) or "
       "per_dataset.NAME.target_transform=none|sqrt|log1p; repeatable");
}

exp::PlanOptions JobFilterOptions::plan_options(const std::string& data_dir) const {
  exp::PlanOptions out;
  out.data_dir = data_dir;
  out.only_methods = split_list(methods);
  out.only_datasets = split_list(datasets);
  if (!splits.empty()) out.only_splits = exp::parse_split_list(splits);
  return out;
}

}  // namespace bnn::cli
