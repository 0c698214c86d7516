// The stand-in for a build without MPI (CMake found no MPI when configuring).
#include <stdexcept>

#include "experiments/src/cluster/mpi_run.hpp"

namespace bnn::exp {

bool built_with_mpi() { return false; }

MpiSession::MpiSession() {
  const MpiLaunch launch = mpi_launch_from_environment();
  throw std::runtime_error("this bnnbench was built without MPI, but " + launch.launcher + " started it as one of " +
                           (launch.processes > 0 ? std::to_string(launch.processes) : std::string("several")) +
                           " processes, each of which would run every job: install libopenmpi-dev "
                           "(scripts/install-deps.sh) and rebuild, or run it without " +
                           launch.launcher);
}
MpiSession::~MpiSession() = default;
bool MpiSession::all_true(bool mine) const { return mine; }
std::string MpiSession::describe() const { return "1 process"; }
void MpiSession::abort(int code) const { std::exit(code); }

bool same_jobs_everywhere(const MpiSession&, const Plan&, const RunOptions&) { return true; }

RunSummary run_plan_mpi(const MpiSession&, const ExperimentSpec& spec, const Plan& plan, ResultsStore* store,
                        const RunOptions& options) {
  return run_plan(spec, plan, *store, options);
}

}  // namespace bnn::exp
