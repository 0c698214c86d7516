#include "experiments/src/cluster/slurm_script.hpp"

#include <algorithm>
#include <regex>
#include <stdexcept>

namespace bnn::exp {
namespace {

void check_count(const char* option, int value, int most) {
  if (value < 1 || value > most)
    throw std::invalid_argument(std::string("--") + option + " is " + std::to_string(value) +
                                ", but must be between 1 and " + std::to_string(most));
}

void check_word(const char* option, const std::string& value) {
  static const std::regex word("[A-Za-z0-9_.,:+-]*");
  if (!std::regex_match(value, word))
    throw std::invalid_argument(std::string("--") + option + " '" + value +
                                "' may hold only letters, digits and _ . , : + -");
}

std::string command(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

std::string header(const SlurmRequest& r, const std::string& name, const std::string& output) {
  std::string h = "#!/bin/bash\n";
  h += "#SBATCH --job-name=" + name + "\n";
  if (!r.partition.empty()) h += "#SBATCH --partition=" + r.partition + "\n";
  if (!r.account.empty()) h += "#SBATCH --account=" + r.account + "\n";
  h += "#SBATCH --time=" + r.time + "\n";
  h += "#SBATCH --output=" + r.script_dir + "/" + output + "\n";
  return h;
}

}  // namespace

std::string shell_quote(const std::string& word) {
  static const std::regex safe("[A-Za-z0-9_@%+=:,./-]+");
  if (std::regex_match(word, safe)) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int slurm_processes(const SlurmRequest& r) { return r.cores ? *r.cores / r.cpus_per_task : r.nodes * r.tasks_per_node; }

int threads_for_cores(int cores, int spec_threads) { return std::min(cores, spec_threads); }

void check_slurm_request(const SlurmRequest& r) {
  if (r.cores) {
    check_count("cores", *r.cores, 10'000'000);
    if (r.cpus_per_task > *r.cores)
      throw std::invalid_argument("--cpus-per-task " + std::to_string(r.cpus_per_task) + " is more than --cores " +
                                  std::to_string(*r.cores) + ": not one process would fit");
  }
  check_count("nodes", r.nodes, 100000);
  check_count("ntasks-per-node", r.tasks_per_node, 4096);
  check_count("cpus-per-task", r.cpus_per_task, 4096);
  static const std::regex time("(([0-9]+)-)?([0-9]{1,2}):([0-5][0-9]):([0-5][0-9])");
  std::smatch parts;
  if (!std::regex_match(r.time, parts, time))
    throw std::invalid_argument("--time '" + r.time + "' must look like HH:MM:SS or D-HH:MM:SS, e.g. 12:00:00");
  const long seconds = (parts[2].matched ? std::stol(parts[2].str()) * 86400 : 0) + std::stol(parts[3].str()) * 3600 +
                       std::stol(parts[4].str()) * 60 + std::stol(parts[5].str());
  if (seconds < 60)
    throw std::invalid_argument("--time '" + r.time + "' is under a minute: Slurm would end the job before it runs");
  check_word("partition", r.partition);
  check_word("account", r.account);
  check_word("mpi-plugin", r.mpi_plugin);
  if (r.form != "mpi" && r.form != "array") throw std::invalid_argument("--form '" + r.form + "' must be mpi or array");
  if (r.shards < 0) throw std::invalid_argument("--shards is " + std::to_string(r.shards) + ", but must be >= 1");
  if (r.shards > 0 && r.form != "array")
    throw std::invalid_argument("--shards " + std::to_string(r.shards) +
                                " is for --form array (the mpi form hands jobs out to its processes as they finish)");
}

SlurmScripts slurm_scripts(const SlurmRequest& r) {
  check_slurm_request(r);
  for (const auto* path : {&r.program, &r.results_dir, &r.script_dir})
    if (path->empty() || path->front() != '/')
      throw std::logic_error("slurm_scripts: paths must be absolute, not '" + *path + "'");

  const std::string name = "bnnbench-" + std::regex_replace(r.name, std::regex("[^A-Za-z0-9_.-]"), "_");
  const std::string threads = std::to_string(r.cpus_per_task);
  std::vector<std::string> run = {r.program, "run", r.experiment};
  run.insert(run.end(), r.run_options.begin(), r.run_options.end());

  SlurmScripts s;
  if (r.form == "mpi") {
    s.main = header(r, name, "%x-%j.out");
    if (r.cores) {
      s.main += "#SBATCH --ntasks=" + std::to_string(slurm_processes(r)) + "\n";
    } else {
      s.main += "#SBATCH --nodes=" + std::to_string(r.nodes) + "\n";
      s.main += "#SBATCH --ntasks-per-node=" + std::to_string(r.tasks_per_node) + "\n";
    }
    s.main += "#SBATCH --cpus-per-task=" + threads + "\n";
    s.main += "# " + std::to_string(slurm_processes(r)) + " MPI processes of " + threads +
              " threads: rank 0 owns the results store and hands the jobs out, largest first.\n"
              "# Submitting this script again after a time limit or a failure resumes the run.\n"
              "set -euo pipefail\n";
    std::vector<std::string> srun = {"srun"};
    if (!r.mpi_plugin.empty()) srun.push_back("--mpi=" + r.mpi_plugin);
    srun.push_back("--cpus-per-task=" + threads);
    srun.insert(srun.end(), run.begin(), run.end());
    for (const std::string& w : {std::string("--threads"), threads, std::string("--results"), r.results_dir})
      srun.push_back(w);
    s.main += command(srun) + "\n";
    return s;
  }

  s.shards = r.shards > 0 ? r.shards : slurm_processes(r);
  const std::string shards = std::to_string(s.shards);
  const std::string shard_dir = r.results_dir + "/shards";
  s.main = header(r, name, "%x-%A_%a.out");
  s.main += "#SBATCH --array=1-" + shards + "\n";
  s.main += "#SBATCH --ntasks=1\n";
  s.main += "#SBATCH --cpus-per-task=" + threads + "\n";
  s.main += "# Shard K of " + shards +
            " of the jobs into a store of its own; the job of the -merge.sbatch\n"
            "# script beside this one (--dependency=afterok on this array) merges them.\n"
            "set -euo pipefail\n";
  s.main += command(run) + " --threads " + threads + " --no-report --shard \"${SLURM_ARRAY_TASK_ID}/" + shards +
            "\" --results " + shell_quote(shard_dir) + "/\"${SLURM_ARRAY_TASK_ID}\"\n";

  s.merge = header(r, name + "-merge", "%x-%j.out");
  s.merge += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  s.merge +=
      "# After every shard succeeded: merge their stores into the results store, then print the\n"
      "# report (a run that finds every job finished runs none and reports).\n"
      "set -euo pipefail\n";
  std::string inputs;
  for (int k = 1; k <= s.shards; ++k) inputs += " " + shell_quote(shard_dir + "/" + std::to_string(k));
  s.merge += command({r.program, "merge", "--results", r.results_dir}) + inputs + "\n";
  s.merge += command(run) + " --threads 1 --results " + shell_quote(r.results_dir) + "\n";
  return s;
}

}  // namespace bnn::exp
