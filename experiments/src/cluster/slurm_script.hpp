#pragma once
// The sbatch scripts of `bnnbench slurm`: an experiment run on a Slurm cluster.
//   mpi form:   one job of nodes x tasks-per-node MPI processes started by srun, each with
//               cpus-per-task threads (cluster/mpi_run.hpp: dynamic, largest job first); or,
//               with `cores`, cores / cpus-per-task processes that Slurm places (--ntasks);
//   array form: for sites without MPI, one array task per shard (`run --shard K/N`, each
//               into its own store), then a merge job that starts when all succeeded
//               (--dependency=afterok) and writes the report.
// Rerunning a script resumes: finished jobs are kept (a time limit hit is not a loss).
#include <optional>
#include <string>
#include <vector>

namespace bnn::exp {

struct SlurmRequest {
  std::string program;                   // absolute path of bnnbench
  std::string experiment;                // name or absolute spec path
  std::string name;                      // the spec's name: jobs are named bnnbench-NAME
  std::vector<std::string> run_options;  // passed to `bnnbench run` as they are (absolute paths)
  std::string results_dir;               // absolute
  std::string script_dir;                // absolute; the scripts and Slurm's output files
  int nodes = 1, tasks_per_node = 1, cpus_per_task = 1;
  std::optional<int> cores;         // given: cores / cpus_per_task processes wherever Slurm places them (nodes unused)
  std::string time;                 // [D-]HH:MM:SS
  std::string partition, account;   // empty: the site's default
  std::string form = "mpi";         // "mpi" or "array"
  int shards = 0;                   // array form: 0 means nodes x tasks-per-node
  std::string mpi_plugin = "pmix";  // srun --mpi=...; empty: the site's MpiDefault
};

struct SlurmScripts {
  std::string main;   // the run (mpi) or the array of shards
  std::string merge;  // array form: the merge and report job; empty otherwise
  int shards = 0;     // array form: array tasks
};

// MPI processes (mpi form) or array tasks (array form, unless --shards says otherwise).
int slurm_processes(const SlurmRequest& request);

// Threads of each process for `--cores` (both >= 1): the spec's [cluster] threads, at most the cores.
int threads_for_cores(int cores, int spec_threads);

// Checks the options a user gives (throws std::invalid_argument naming the option): counts,
// a time limit of at least a minute, --shards only with the array form.
void check_slurm_request(const SlurmRequest& request);
// Checks every field (check_slurm_request) and writes the scripts.
SlurmScripts slurm_scripts(const SlurmRequest& request);

// A word for a POSIX shell: as it is when it is safe, else in single quotes.
std::string shell_quote(const std::string& word);

}  // namespace bnn::exp
