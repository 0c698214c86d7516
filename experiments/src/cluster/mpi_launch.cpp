#include <cstdio>
#include <cstdlib>
#include <string>

#include "experiments/src/cluster/mpi_run.hpp"

namespace bnn::exp {
namespace {

int integer_variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::atoi(value) : 0;
}

}  // namespace

MpiLaunch mpi_launch_from_environment() {
  MpiLaunch launch;
  if (std::getenv("OMPI_COMM_WORLD_SIZE")) {
    launch = {true, integer_variable("OMPI_COMM_WORLD_SIZE"), "mpirun"};
  } else if (std::getenv("PMIX_RANK") || std::getenv("PMI_RANK") || std::getenv("PMI_SIZE")) {
    launch = {true, integer_variable("PMI_SIZE"), std::getenv("SLURM_STEP_ID") ? "srun" : "an MPI launcher"};
  } else if (std::getenv("SLURM_STEP_ID") && integer_variable("SLURM_STEP_NUM_TASKS") > 1) {
    // srun without an MPI plugin: SLURM_STEP_NUM_TASKS copies of this program, each of which
    // would run every job unless they find each other through MPI.
    launch = {true, integer_variable("SLURM_STEP_NUM_TASKS"), "srun"};
  }
  return launch;
}

void print_line(const std::string& line) {
  const std::string text = line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

std::string process_name(int rank) { return "bnnbench run (rank " + std::to_string(rank) + " on " + host_name() + ")"; }

}  // namespace bnn::exp
