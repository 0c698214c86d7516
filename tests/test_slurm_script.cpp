// The sbatch scripts of `bnnbench slurm` (cluster/slurm_script.hpp): what each form runs, the
// quoting of what the user gave, and one clear error per bad option. (tests/slurm/slurm.sh
// submits them to a real Slurm.)
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "experiments/src/cluster/slurm_script.hpp"

using namespace bnn::exp;

namespace {

SlurmRequest request() {
  SlurmRequest r;
  r.program = "/opt/bnnbench/bin/bnnbench";
  r.experiment = "pbp-table1";
  r.name = "pbp-table1";
  r.run_options = {"--methods", "pbp", "--set", "pbp.epochs=3", "--data-dir", "/shared/data"};
  r.results_dir = "/shared/results/pbp table1";
  r.script_dir = "/shared/results/pbp table1/slurm";
  r.nodes = 4;
  r.tasks_per_node = 32;
  r.cpus_per_task = 2;
  r.time = "12:00:00";
  return r;
}

}  // namespace

TEST_CASE("slurm script, mpi form: srun starts nodes x tasks processes of cpus-per-task threads", "[cluster]") {
  SlurmRequest r = request();
  r.partition = "short";
  const SlurmScripts s = slurm_scripts(r);
  CHECK(s.merge.empty());
  CHECK_THAT(s.main, Catch::StartsWith("#!/bin/bash\n#SBATCH --job-name=bnnbench-pbp-table1\n"));
  for (const char* line : {"#SBATCH --partition=short\n", "#SBATCH --time=12:00:00\n", "#SBATCH --nodes=4\n",
                           "#SBATCH --ntasks-per-node=32\n", "#SBATCH --cpus-per-task=2\n",
                           "#SBATCH --output=/shared/results/pbp table1/slurm/%x-%j.out\n", "set -euo pipefail\n"})
    CHECK_THAT(s.main, Catch::Contains(line));
  CHECK_THAT(s.main, Catch::Contains("\nsrun --mpi=pmix --cpus-per-task=2 /opt/bnnbench/bin/bnnbench run pbp-table1 "
                                     "--methods pbp --set pbp.epochs=3 --data-dir /shared/data --threads 2 "
                                     "--results '/shared/results/pbp table1'\n"));
  CHECK_THAT(s.main, !Catch::Contains("--account"));
  r.mpi_plugin = "";  // the site's MpiDefault
  CHECK_THAT(slurm_scripts(r).main, Catch::Contains("\nsrun --cpus-per-task=2 /opt"));
}

TEST_CASE("slurm script, --cores: cores / cpus-per-task processes that Slurm places", "[cluster]") {
  SlurmRequest r = request();
  r.cores = 64;
  r.cpus_per_task = threads_for_cores(*r.cores, 16);
  CHECK(slurm_processes(r) == 4);
  const SlurmScripts s = slurm_scripts(r);
  CHECK_THAT(s.main,
             Catch::Contains("#SBATCH --ntasks=4\n#SBATCH --cpus-per-task=16\n# 4 MPI processes of 16 threads"));
  CHECK_THAT(s.main, !Catch::Contains("--nodes") && !Catch::Contains("--ntasks-per-node"));
  CHECK_THAT(s.main, Catch::Contains("--cpus-per-task=16 /opt/bnnbench/bin/bnnbench run pbp-table1 "));
  CHECK_THAT(s.main, Catch::Contains(" --threads 16 --results "));
  // A spec asking more threads than the cores gets all the cores in one process; 65 cores of
  // 16-thread processes: 4 processes (one core unused).
  CHECK(threads_for_cores(8, 16) == 8);
  CHECK(threads_for_cores(2, 1) == 1);
  r.cores = 65;
  CHECK(slurm_processes(r) == 4);
  r.form = "array";
  CHECK(slurm_scripts(r).shards == 4);
}

TEST_CASE("slurm script, array form: one task per shard, then a merge job that reports", "[cluster]") {
  SlurmRequest r = request();
  r.form = "array";
  r.account = "proj-42";
  const SlurmScripts s = slurm_scripts(r);
  CHECK(s.shards == 128);  // nodes x tasks-per-node when --shards is not given
  CHECK_THAT(s.main, Catch::Contains("#SBATCH --array=1-128\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=2\n"));
  CHECK_THAT(s.main, Catch::Contains("#SBATCH --account=proj-42\n"));
  CHECK_THAT(s.main, Catch::Contains("%x-%A_%a.out"));
  CHECK_THAT(s.main, Catch::Contains(" --threads 2 --no-report --shard \"${SLURM_ARRAY_TASK_ID}/128\" --results "
                                     "'/shared/results/pbp table1/shards'/\"${SLURM_ARRAY_TASK_ID}\"\n"));
  CHECK_THAT(s.merge, Catch::Contains("#SBATCH --job-name=bnnbench-pbp-table1-merge\n"));
  CHECK_THAT(s.merge, Catch::Contains("bnnbench merge --results '/shared/results/pbp table1' "
                                      "'/shared/results/pbp table1/shards/1' "));
  CHECK_THAT(s.merge, Catch::Contains("'/shared/results/pbp table1/shards/128'\n"));
  CHECK_THAT(s.merge, Catch::EndsWith("run pbp-table1 --methods pbp --set pbp.epochs=3 --data-dir /shared/data "
                                      "--threads 1 --results '/shared/results/pbp table1'\n"));
  r.shards = 3;
  CHECK(slurm_scripts(r).shards == 3);
}

TEST_CASE("slurm script: each bad option is named", "[cluster]") {
  const auto error = [](auto change) {
    SlurmRequest r = request();
    change(r);
    try {
      slurm_scripts(r);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error([](SlurmRequest& r) { r.nodes = 0; }) == "--nodes is 0, but must be between 1 and 100000");
  CHECK(error([](SlurmRequest& r) { r.cpus_per_task = 5000; }) ==
        "--cpus-per-task is 5000, but must be between 1 and 4096");
  CHECK(error([](SlurmRequest& r) { r.time = "25:99:00"; }) ==
        "--time '25:99:00' must look like HH:MM:SS or D-HH:MM:SS, e.g. 12:00:00");
  CHECK(error([](SlurmRequest& r) { r.time = ""; }) ==
        "--time '' must look like HH:MM:SS or D-HH:MM:SS, e.g. 12:00:00");
  CHECK(error([](SlurmRequest& r) { r.time = "2-04:00:00"; }) == "no error");
  CHECK(error([](SlurmRequest& r) { r.partition = "a;rm -rf /"; }) ==
        "--partition 'a;rm -rf /' may hold only letters, digits and _ . , : + -");
  CHECK(error([](SlurmRequest& r) { r.form = "mpirun"; }) == "--form 'mpirun' must be mpi or array");
  CHECK(error([](SlurmRequest& r) { r.shards = -1; }) == "--shards is -1, but must be >= 1");
  CHECK(error([](SlurmRequest& r) { r.time = "00:00:00"; }) ==
        "--time '00:00:00' is under a minute: Slurm would end the job before it runs");
  CHECK(error([](SlurmRequest& r) { r.time = "00:01:00"; }) == "no error");
  CHECK(error([](SlurmRequest& r) { r.shards = 4; }) ==
        "--shards 4 is for --form array (the mpi form hands jobs out to its processes as they finish)");
  CHECK(error([](SlurmRequest& r) {
          r.form = "array";
          r.shards = 4;
        }) == "no error");
  CHECK(error([](SlurmRequest& r) { r.cpus_per_task = 0; }) == "--cpus-per-task is 0, but must be between 1 and 4096");
  CHECK(error([](SlurmRequest& r) { r.cores = -2; }) == "--cores is -2, but must be between 1 and 10000000");
  CHECK(error([](SlurmRequest& r) { r.cores = 0; }) == "--cores is 0, but must be between 1 and 10000000");
  CHECK(error([](SlurmRequest& r) {
          r.cores = 8;
          r.cpus_per_task = 16;
        }) == "--cpus-per-task 16 is more than --cores 8: not one process would fit");
}

TEST_CASE("shell quoting: words stay words", "[cluster]") {
  CHECK(shell_quote("pbp.epochs=3") == "pbp.epochs=3");
  CHECK(shell_quote("/a b/c") == "'/a b/c'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("$HOME") == "'$HOME'");
  CHECK(shell_quote("") == "''");
}
