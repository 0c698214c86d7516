#pragma once
// A Slurm run's scripts on disk and in the queue: `bnnbench slurm` writes the scripts of
// slurm_script.hpp into the results folder and, with --submit, hands them to sbatch.
#include <string>

#include "experiments/src/cluster/slurm_script.hpp"

namespace bnn::exp {

struct SlurmFiles {
  std::string main;   // script_dir/NAME.sbatch
  std::string merge;  // script_dir/NAME-merge.sbatch (array form), else empty
};

// Writes the scripts into request.script_dir, each through a temporary file and a rename (a
// failed write leaves the old script), executable by owner and group.
SlurmFiles write_slurm_scripts(const SlurmRequest& request, const SlurmScripts& scripts);

// Runs `sbatch --parsable [extra] SCRIPT` and returns the job id it prints; std::runtime_error
// saying so when sbatch is not there (not a login node) or refuses the script.
std::string submit_sbatch(const std::string& extra, const std::string& script);

}  // namespace bnn::exp
