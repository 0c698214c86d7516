// libFuzzer target for the .npy reader of external methods (methods/external/npy.cpp): the
// input bytes are parsed as an answer's array. std::runtime_error (one line naming the file) is
// the only accepted failure; any other exception, a crash, a sanitizer report or a parsed array
// whose size disagrees with its shape is a finding. An array it accepts is written back and
// must parse to the same values.
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "methods/external/npy.hpp"

namespace {

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "FINDING: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  bnn::external::NpyArray array;
  try {
    array = bnn::external::parse_npy(bytes, "fuzz.npy");
  } catch (const std::runtime_error& e) {
    if (std::strncmp(e.what(), "fuzz.npy: ", 10) != 0) finding("a message that does not name the file");
    if (std::strchr(e.what(), '\n')) finding("a message of more than one line");
    return 0;
  }
  if (array.shape.empty() || array.shape.size() > 2) finding("an accepted array of 0 or more than 2 dimensions");
  const long cols = array.shape.size() == 2 ? array.shape[1] : 1;
  if (array.values.rows() != array.shape[0] || array.values.cols() != cols) finding("values disagree with the shape");
  // Written back (as float64) and read again: the same values.
  static const std::string path = "/tmp/fuzz_npy_" + std::to_string(::getpid()) + ".npy";
  bnn::external::write_npy(path, array.values, array.shape.size() == 1);
  const bnn::external::NpyArray again = bnn::external::read_npy(path, "again.npy");
  if (again.shape != array.shape) finding("the shape changed on a round trip");
  for (Eigen::Index i = 0; i < array.values.size(); ++i) {
    const double a = array.values.data()[i], b = again.values.data()[i];
    if (std::memcmp(&a, &b, sizeof a) != 0) finding("a value changed on a round trip");
  }
  return 0;
}
