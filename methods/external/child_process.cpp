#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace bnn::external {
namespace {

bool executable_file(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

// The environment the program gets: this process's with the overrides replacing their names.
std::vector<std::string> child_environment(const std::vector<std::string>& overrides) {
  std::vector<std::string> out;
  const auto overridden = [&](const char* entry) {
    for (const auto& o : overrides) {
      const std::size_t eq = o.find('=');
      if (std::strncmp(entry, o.c_str(), eq + 1) == 0) return true;
    }
    return false;
  };
  for (char** e = environ; e && *e; ++e)
    if (!overridden(*e)) out.emplace_back(*e);
  out.insert(out.end(), overrides.begin(), overrides.end());
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& texts) {
  std::vector<char*> out;
  for (auto& t : texts) out.push_back(t.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string resolve_program(const std::string& program) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) return executable_file(program) ? program : "";
  const char* path = std::getenv("PATH");
  std::string folders = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t from = 0;
  while (from <= folders.size()) {
    const std::size_t to = std::min(folders.find(':', from), folders.size());
    const std::string folder = to > from ? folders.substr(from, to - from) : ".";
    const std::string candidate = folder + "/" + program;
    if (executable_file(candidate)) return candidate;
    from = to + 1;
  }
  return "";
}

ChildResult run_child(const ChildRun& run) {
  if (run.argv.empty()) throw std::runtime_error("external: the command is empty");
  const std::string program = resolve_program(run.argv[0]);
  if (program.empty()) throw std::runtime_error("external: command '" + run.argv[0] + "' is not found");
  // Everything the child needs is made before fork: after it, a threaded parent's child may
  // only make async-signal-safe calls.
  std::vector<std::string> argv = run.argv, environment = child_environment(run.environment_overrides);
  std::vector<char*> argv_pointers = pointers(argv), environment_pointers = pointers(environment);
  const pid_t parent = ::getpid();
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("external: cannot start a process: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before the line above
    const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int out = ::open(run.stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int err = ::open(run.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
    if (::chdir(run.working_folder.c_str()) != 0) ::_exit(126);
    ::execve(program.c_str(), argv_pointers.data(), environment_pointers.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from this side, so the group exists before any kill below
  ChildResult result;
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  const auto deadline = start + std::chrono::duration<double>(run.timeout_seconds);
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000))) > 0) break;
    } else {  // a kernel without pidfd_open: look every 10 ms
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) break;
      ::usleep(10000);
    }
  }
  ::kill(-pid, SIGKILL);  // the whole group: on a timeout, and any helper the program left behind
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {}
  if (pidfd >= 0) ::close(pidfd);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  if (!result.timed_out) {
    result.signalled = WIFSIGNALED(status);
    result.signal = result.signalled ? WTERMSIG(status) : 0;
    result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + result.signal;
  }
  return result;
}

std::string last_lines(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> kept;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    kept.push_back(line);
    if (static_cast<int>(kept.size()) > lines) kept.pop_front();
  }
  std::string out;
  for (const auto& l : kept) out += (out.empty() ? "" : " | ") + l;
  return out;
}

}  // namespace bnn::external
