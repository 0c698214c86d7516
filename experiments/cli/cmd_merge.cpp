#include <iostream>

#include "common.hpp"
#include "experiments/src/store/run_lock.hpp"
#include "experiments/src/store/store.hpp"

namespace bnn::cli {

int cmd_merge(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string results;
  std::vector<std::string> inputs;
  bool without_points = false;
  po::options_description options("bnnbench merge options");
  // clang-format off
  options.add_options()
      ("results", po::value(&results), "results directory to merge into (created if needed)")
      ("inputs", po::value(&inputs)->composing(), "results directories to merge from")
      ("without-points", po::bool_switch(&without_points),
       "copy jobs, per-split metrics and runs only, not the per-test-point predictions and grids: "
       "a store small enough to commit, from which tables without pooled metrics can be rebuilt");
  // clang-format on
  if (common.parse_or_help(args, options, "inputs",
                           "usage: bnnbench merge --results OUT IN [IN...]\n\n"
                           "Copies every job of the input stores into OUT (e.g. after `run --shard K/N` on several\n"
                           "machines). Finished jobs in OUT are kept; failed ones are replaced by finished ones.\n"
                           "Example: bnnbench merge --without-points --results results/pbp-table1/parts/NAME /tmp/run",
                           true))
    return 0;
  if (results.empty()) throw po::error("missing --results OUT");
  if (inputs.empty()) throw po::error("missing input results directories");
  for (const auto& in : inputs) exp::ResultsStore::prepare_merge_input(in);  // before OUT is created
  exp::ResultsStore::check_output_store(results);
  const exp::RunLock lock(results, "bnnbench merge");  // one writer per store
  exp::ResultsStore store(results);
  for (const auto& in : inputs) {
    const long copied = store.merge_from(in, !without_points);
    std::cerr << "merged " << copied << " job(s) from " << in << "\n";
  }
  return 0;
}

}  // namespace bnn::cli
