#pragma once
// `mpirun -n N bnnbench run ...` (or `srun` in a Slurm job): rank 0 plans the jobs, owns the
// results store and hands the unfinished jobs out on demand, largest first; every rank (rank 0
// too) fits them on --threads threads, one job per thread, and the workers send each job's
// whole record back, which rank 0 stores at once. Results are those of `bnnbench run` with one
// process, bit for bit: a job's seed and data do not depend on where it runs.
//
// Built without MPI (no libopenmpi-dev when configuring), MpiSession's constructor throws
// saying so. cluster/mpi/ holds the implementation, cluster/no_mpi/ the stand-in.
#include <string>

#include "experiments/src/run/runner.hpp"

namespace bnn::exp {

// What the environment says about how this process was started: by an MPI launcher (mpirun's
// OMPI_COMM_WORLD_SIZE, PMIx or PMI variables, or a Slurm job step of several tasks), and with
// how many processes when it says (0: not said).
struct MpiLaunch {
  bool launched = false;
  int processes = 0;
  std::string launcher;  // "mpirun", "srun", ...
};
MpiLaunch mpi_launch_from_environment();
bool built_with_mpi();

// A message of one process of an MPI run to stderr, as one write (so that the lines of several
// processes do not interleave), and the name it goes by: "bnnbench run (rank R on HOST)".
void print_line(const std::string& line);
std::string process_name(int rank);

class MpiSession {
 public:
  MpiSession();  // MPI_Init_thread (funneled: only the main thread calls MPI)
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // True when every process passes true (a collective call: every process must make it).
  bool all_true(bool mine) const;
  // "3 processes on 2 hosts" (a collective call).
  std::string describe() const;
  // Ends every process of the run at once (after a rank's unrecoverable error).
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1;
};

// Whether every process plans the jobs rank 0 plans (same spec, data, registry, --threads and
// build): a process that does not says so on stderr, with its plan's notes (a collective call).
bool same_jobs_everywhere(const MpiSession& session, const Plan& plan, const RunOptions& options);

// Runs the plan over every process of `session` (which must plan the same jobs:
// same_jobs_everywhere): `store` on rank 0, nullptr on the others. The summary is rank 0's (the
// others' is empty).
RunSummary run_plan_mpi(const MpiSession& session, const ExperimentSpec& spec, const Plan& plan, ResultsStore* store,
                        const RunOptions& options);

}  // namespace bnn::exp
