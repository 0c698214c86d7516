// bnnbench slurm: argument parsing over cluster/slurm_script.hpp (the sbatch scripts) and
// cluster/slurm_job.hpp (writing and submitting them); the run is planned here first.
#include <filesystem>
#include <iostream>
#include <set>

#include "common.hpp"
#include "experiments/src/cluster/slurm_job.hpp"
#include "experiments/src/cluster/slurm_script.hpp"
#include "experiments/src/spec/spec.hpp"
#include "run_request.hpp"

namespace bnn::cli {
namespace {

namespace fs = std::filesystem;

std::string absolute(const std::string& path) { return fs::absolute(path).lexically_normal().string(); }

}  // namespace

int cmd_slurm(const std::vector<std::string>& args) {
  exp::SlurmRequest request;
  int cores = 0;
  RunRequest given;  // run's options, parsed here only to pass them on
  bool submit = false;
  po::options_description options("bnnbench slurm options");
  // clang-format off
  options.add_options()
      ("cores", po::value(&cores), "cores of the run: cores / C processes of C threads (C: --cpus-per-task, "
       "else the spec's [cluster] threads), placed by Slurm; instead of --nodes and --ntasks-per-node")
      ("nodes", po::value(&request.nodes)->default_value(1), "nodes")
      ("ntasks-per-node", po::value(&request.tasks_per_node)->default_value(1), "MPI processes per node")
      ("cpus-per-task", po::value(&request.cpus_per_task)->default_value(1), "threads of each process (run --threads; with --cores default: the spec's)")
      ("time", po::value(&request.time), "time limit, HH:MM:SS or D-HH:MM:SS (required)")
      ("partition", po::value(&request.partition), "partition (default: the site's)")
      ("account", po::value(&request.account), "account to charge (default: yours)")
      ("form", po::value(&request.form)->default_value("mpi"),
       "mpi: one job of MPI processes started by srun; array: one array task per shard, then a merge job")
      ("shards", po::value(&request.shards)->default_value(0), "array form: array tasks (default: nodes x ntasks-per-node)")
      ("mpi-plugin", po::value(&request.mpi_plugin)->default_value("pmix"),
       "mpi form: srun --mpi=PLUGIN (pmix for OpenMPI 4; '' for the site's default)")
      ("submit", po::bool_switch(&submit), "submit the script(s) with sbatch and print the job id(s)");
  // clang-format on
  po::options_description run_options("options passed to bnnbench run");
  add_run_options(run_options, given);
  given.common.add_to(run_options);
  po::options_description all;
  all.add(options).add(run_options);
  po::positional_options_description positional;
  positional.add("experiment", 1);
  const po::parsed_options parsed = po::command_line_parser(args).options(all).positional(positional).run();
  po::variables_map vm;
  po::store(parsed, vm);
  po::notify(vm);
  if (given.common.help) {
    print_help(
        "usage: bnnbench slurm EXPERIMENT [run options] --time HH:MM:SS [--cores N | --nodes N --ntasks-per-node T]\n"
        "                      [--cpus-per-task C] [--partition P] [--form mpi|array] [--submit]\n\n"
        "Writes the sbatch script of a run of EXPERIMENT on a Slurm cluster into RESULTS/slurm/ (and\n"
        "with --submit submits it). The run is planned here first, so a bad option or spec fails now,\n"
        "not in the queue. The results directory, data directory and registries must be on a file\n"
        "system that every node sees. Submitting a script again resumes the run.",
        all);
    return 0;
  }
  if (given.experiment.empty()) throw po::error("missing EXPERIMENT");
  if (request.time.empty()) throw po::error("--time is required (the job's time limit, e.g. 12:00:00)");
  const auto given_here = [&](const char* name) { return vm.count(name) && !vm[name].defaulted(); };
  if (given_here("cores") && (given_here("nodes") || given_here("ntasks-per-node")))
    throw po::error("--cores lets Slurm place the processes: give it or --nodes/--ntasks-per-node, not both");
  if (given_here("cores")) request.cores = cores;
  exp::check_slurm_request(request);  // before the run's own checks, which name run's options

  // Run's options as given, each path made absolute (the nodes do not start where this runs).
  std::string experiment = given.experiment;
  if (fs::exists(experiment) || experiment.find('/') != std::string::npos ||
      experiment.find(".toml") != std::string::npos)
    experiment = absolute(experiment);
  const std::set<std::string> own = {"cores",   "nodes",   "ntasks-per-node", "cpus-per-task", "time",   "partition",
                                     "account", "form",    "shards",          "mpi-plugin",    "submit", "experiment",
                                     "results", "data-dir"};
  for (const po::option& option : parsed.options) {
    if (own.count(option.string_key)) continue;
    if (option.string_key == "threads" || option.string_key == "shard" || option.string_key == "format" ||
        option.string_key == "dry-run" || option.string_key == "no-report" || option.string_key == "quiet")
      throw po::error("--" + option.string_key +
                      " is set by bnnbench slurm (threads: --cpus-per-task; shards: --form array)");
    if (option.string_key == "registry") {
      for (const auto& file : option.value) {
        request.run_options.push_back("--registry");
        request.run_options.push_back(absolute(file));
      }
      continue;
    }
    request.run_options.insert(request.run_options.end(), option.original_tokens.begin(), option.original_tokens.end());
  }
  request.run_options.push_back("--data-dir");
  request.run_options.push_back(absolute(given.common.resolved_data_dir()));
  request.program = fs::canonical("/proc/self/exe").string();
  request.experiment = experiment;

  // The run as the nodes will do it, planned here: a bad option, spec or data set fails now.
  std::vector<std::string> run_args = {experiment};
  run_args.insert(run_args.end(), request.run_options.begin(), request.run_options.end());
  run_args.push_back("--threads");
  run_args.push_back(std::to_string(request.cpus_per_task));
  if (!given.results.empty()) {
    run_args.push_back("--results");
    run_args.push_back(given.results);
  }
  RunRequest run;
  prepare_run(run_args, "", run, true);
  request.name = run.spec->name;
  if (request.cores && !given_here("cpus-per-task"))
    request.cpus_per_task = exp::threads_for_cores(*request.cores, run.spec->cluster_threads);
  request.results_dir = absolute(run.results);
  request.script_dir = request.results_dir + "/slurm";
  const exp::SlurmScripts scripts = exp::slurm_scripts(request);
  const long jobs = static_cast<long>(run.plan->jobs.size());
  const long processes = request.form == "mpi" ? exp::slurm_processes(request) : scripts.shards;
  const long workers = processes * request.cpus_per_task, unused = request.cores.value_or(0) - workers;

  const exp::SlurmFiles files = exp::write_slurm_scripts(request, scripts);
  const fs::path main_script = files.main, merge_script = files.merge;
  std::cerr << run.spec->name << ": " << jobs << " job(s) on " << workers << " thread(s) (" << processes
            << (request.form == "mpi" ? " MPI processes" : " array tasks") << " x " << request.cpus_per_task
            << (unused > 0 ? ", " + std::to_string(unused) + " of the cores unused" : "") << "); results in "
            << request.results_dir << "\n";
  std::cout << "wrote " << main_script.string() << "\n";
  if (!scripts.merge.empty()) std::cout << "wrote " << merge_script.string() << "\n";
  if (!submit) {
    if (scripts.merge.empty()) {
      std::cout << "submit with: sbatch " << exp::shell_quote(main_script.string()) << "\n";
    } else {
      std::cout << "submit with: id=$(sbatch --parsable " << exp::shell_quote(main_script.string())
                << ") && sbatch --dependency=afterok:$id " << exp::shell_quote(merge_script.string()) << "\n";
    }
    return 0;
  }
  const std::string id = exp::submit_sbatch("", main_script.string());
  std::cout << "submitted job " << id << " (output in " << request.script_dir << ")\n";
  if (!scripts.merge.empty()) {
    const std::string merge_id = exp::submit_sbatch("--dependency=afterok:" + id + " ", merge_script.string());
    std::cout << "submitted merge job " << merge_id << " (starts when every array task of " << id << " succeeded)\n";
  }
  return 0;
}

}  // namespace bnn::cli
