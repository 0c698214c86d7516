#include "experiments/src/store/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "experiments/src/store/store.hpp"

namespace bnn::exp {

RunLock::RunLock(const std::string& results_dir, const std::string& command) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(results_dir, ec);
  const std::string path = (fs::path(results_dir) / "bnnbench.lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open the lock file " + path + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    std::string holder(512, '\0');
    const ssize_t got = ::pread(fd_, holder.data(), holder.size(), 0);
    holder.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
    ::close(fd_);
    fd_ = -1;
    if (error != EWOULDBLOCK) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(error));
    throw std::runtime_error("the results store in " + results_dir + " is being written by another bnnbench (" +
                             (holder.empty() ? std::string("holder unknown") : holder) +
                             "); wait for it to finish, or give this one another --results");
  }
  const std::string me =
      "pid " + std::to_string(::getpid()) + " on " + host_name() + " since " + utc_now() + ": " + command + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
    // the lock holds without its description
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace bnn::exp
