#include "job_filter.hpp"

#include <stdexcept>

#include "common.hpp"

namespace bnn::cli {

void JobFilterOptions::add_to(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("methods", po::value(&methods)->composing(), "only these method labels (comma-separated)")
      ("datasets", po::value(&datasets)->composing(), "only these data sets (comma-separated names or aliases)")
      ("splits", po::value(&splits)->notifier([this](const std::string&) { splits_given = true; }),
       "only these splits, e.g. 0-4 or 0,3,7")
      ("set", po::value(&settings)->composing(),
       "override: seed=N, LABEL.OPTION=VALUE, LABEL.DATASET.OPTION=VALUE, OPTION=VALUE (every method having it) or "
       "per_dataset.NAME.target_transform=none|sqrt|log1p; repeatable");
  // clang-format on
}

exp::PlanOptions JobFilterOptions::plan_options(const std::string& data_dir) const {
  exp::PlanOptions out;
  out.data_dir = data_dir;
  out.only_methods = split_list(methods);
  out.only_datasets = split_list(datasets);
  if (!methods.empty() && out.only_methods.empty()) throw std::invalid_argument("--methods is empty");
  if (!datasets.empty() && out.only_datasets.empty()) throw std::invalid_argument("--datasets is empty");
  if (splits_given && splits.find_first_not_of(" ,") == std::string::npos)
    throw std::invalid_argument("--splits is empty");
  if (!splits.empty()) out.only_splits = exp::parse_split_list(splits);
  return out;
}

}  // namespace bnn::cli
