#pragma once
// Shared pieces of the bnnbench command line: options every command takes, and parsing.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "datasets/src/registry.hpp"

namespace bnn::cli {

namespace po = boost::program_options;

// --data-dir and --registry (repeatable) and --help, on every command.
struct CommonOptions {
  std::string data_dir;
  std::vector<std::string> registries;
  bool help = false;
  po::variables_map given;  // what parse_or_help parsed (given.count("x"): was --x given?)
  void add_to(po::options_description& options);
  // Adds these options to `options`, parses `args` with one positional argument of the given
  // name (none if empty; several if `repeatable`) and, when --help was given, prints `usage`
  // with the options. Returns true if it printed the help (the command is then done).
  bool parse_or_help(const std::vector<std::string>& args, po::options_description& options,
                     const std::string& positional_name, const std::string& usage, bool repeatable = false);
  std::string resolved_data_dir() const;
  data::DatasetRegistry load_registry() const;
};

// Parses `args` (without the command words) against `options` and positional names;
// throws po::error on unknown or malformed options.
po::variables_map parse(const std::vector<std::string>& args, const po::options_description& options,
                        const po::positional_options_description& positional);

// "a,b , c" -> {"a", "b", "c"} (also accepts repeated flags already split).
std::vector<std::string> split_list(const std::vector<std::string>& items);

// Prints usage text for a command.
void print_help(const std::string& usage, const po::options_description& options);

bool stderr_is_terminal();

int cmd_run(const std::vector<std::string>& args, const std::string& command_line);
int cmd_report(const std::vector<std::string>& args);
int cmd_datasets(const std::vector<std::string>& args);
int cmd_list(const std::vector<std::string>& args);
int cmd_fit(const std::vector<std::string>& args);
int cmd_merge(const std::vector<std::string>& args);
int cmd_verify(const std::vector<std::string>& args);
int cmd_slurm(const std::vector<std::string>& args);

}  // namespace bnn::cli
