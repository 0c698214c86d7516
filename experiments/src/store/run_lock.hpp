#pragma once
// One writer at a time per results store: `run` and `merge` hold an exclusive lock on
// DIR/bnnbench.lock while they write. A second one stops at once, naming the first (process,
// host, command, start); the lock goes with the process that holds it, however it ends.
#include <string>

namespace bnn::exp {

class RunLock {
 public:
  // Throws std::runtime_error naming the holder when another process holds the lock.
  RunLock(const std::string& results_dir, const std::string& command);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace bnn::exp
