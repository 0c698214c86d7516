#include "scratch_folder.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace bnn::external {
namespace {

constexpr std::string_view kPrefix = "bnnbench-external-";

// Removes the scratch folders whose owner process is gone.
void remove_stale(const std::string& parent) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::size_t dash = name.find('-', kPrefix.size());
    if (dash == std::string::npos) continue;
    const long pid = std::strtol(name.substr(kPrefix.size(), dash - kPrefix.size()).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code ignored;
    std::filesystem::remove_all(entry.path(), ignored);
  }
}

}  // namespace

std::string scratch_parent() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

ScratchFolder::ScratchFolder() {
  const std::string parent = scratch_parent();
  remove_stale(parent);
  std::string name = parent + "/" + std::string(kPrefix) + std::to_string(::getpid()) + "-XXXXXX";
  if (!::mkdtemp(name.data()))  // mode 0700
    throw std::runtime_error("external: cannot make a scratch folder in " + parent + ": " + std::strerror(errno));
  path_ = name;
}

ScratchFolder::~ScratchFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace bnn::external
