#pragma once
// The options that select jobs of an experiment: --methods, --datasets, --splits, --set.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "experiments/src/plan/plan.hpp"

namespace bnn::cli {

struct JobFilterOptions {
  std::vector<std::string> methods, datasets, settings;
  std::string splits;
  bool splits_given = false;
  void add_to(boost::program_options::options_description& options);
  // Throws std::invalid_argument for an empty list (which would otherwise select everything).
  exp::PlanOptions plan_options(const std::string& data_dir) const;
};

}  // namespace bnn::cli
