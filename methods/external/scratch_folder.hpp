#pragma once
// A job's private folder for the external-method protocol: made with mode 0700 under $TMPDIR
// (else /tmp) as bnnbench-external-<pid>-XXXXXX, removed with everything in it when the object
// goes. Folders left by a bnnbench that was killed (its pid no longer alive) are removed when
// the next one is made, so none accumulate and none is ever reused.
#include <string>

namespace bnn::external {

class ScratchFolder {
 public:
  ScratchFolder();  // throws std::runtime_error if it cannot be made
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The folder scratch folders are made in.
std::string scratch_parent();

}  // namespace bnn::external
