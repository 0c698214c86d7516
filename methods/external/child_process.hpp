#pragma once
// Runs a program to completion as the external method needs it: without a shell, in its own
// process group (killed whole on a timeout and after it exits, so no helper it started
// outlives it), killed if this process dies, with standard input from /dev/null and its
// standard output and error written to files.
#include <string>
#include <vector>

namespace bnn::external {

struct ChildRun {
  std::vector<std::string> argv;                   // argv[0] is an absolute path or a name looked up on PATH
  std::vector<std::string> environment_overrides;  // "NAME=value", added to this process's environment
  std::string working_folder;
  std::string stdout_file, stderr_file;
  double timeout_seconds = 3600.0;
};

struct ChildResult {
  bool timed_out = false;
  int exit_status = 0;  // the exit code, or 128 + the signal that ended it
  bool signalled = false;
  int signal = 0;
  double cpu_seconds = 0.0;  // user + system time of the program and the children it waited for
  double wall_seconds = 0.0;
};

// Throws std::runtime_error if the program cannot be started (its name in the message).
ChildResult run_child(const ChildRun& run);

// The absolute path of `program` (a path with '/' is taken as it is; a bare name is looked up
// on PATH), or empty if there is no executable file there.
std::string resolve_program(const std::string& program);

// The last `lines` non-empty lines of a text file, joined with " | " (empty if unreadable).
std::string last_lines(const std::string& path, int lines);

}  // namespace bnn::external
