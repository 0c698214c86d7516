#include "shared.hpp"

#include <filesystem>
#include <stdexcept>

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

}  // namespace bnn::cli
