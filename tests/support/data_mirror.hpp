#pragma once
// The files tests read and write. Real data sets come from the local data mirror
// (BNNBENCH_TEST_MIRROR, set by CMake and laid out like a data directory), named as in the
// registry shipped with the sources; what tests write goes under the scratch root
// (BNNBENCH_TEST_SCRATCH in the build tree), one fresh folder per test.
#include <Eigen/Core>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/src/dataset.hpp"
#include "datasets/src/load.hpp"
#include "datasets/src/registry.hpp"

namespace bnn::test {

// The local data mirror.
inline const std::string& mirror_dir() {
  static const std::string dir = BNNBENCH_TEST_MIRROR;
  return dir;
}

// datasets/registry.toml of the source tree, and the registry it defines (loaded once).
inline const std::string& shipped_registry_file() {
  static const std::string file = BNNBENCH_SOURCE_DIR "/datasets/registry.toml";
  return file;
}
inline const data::DatasetRegistry& shipped_registry() {
  static const data::DatasetRegistry registry = data::DatasetRegistry::load({shipped_registry_file()});
  return registry;
}

// The registry's data set `name` loaded from the mirror, and its published splits.
inline data::Dataset load_from_mirror(const std::string& name) {
  return data::load_dataset(shipped_registry().find(name), mirror_dir());
}
inline std::vector<data::Split> published_splits_from_mirror(const std::string& name, Eigen::Index rows) {
  return data::read_published_splits(shipped_registry().find(name), mirror_dir(), rows);
}

// The folder under which tests write (it may not exist yet).
inline std::filesystem::path scratch_root() { return BNNBENCH_TEST_SCRATCH; }

// A fresh, empty directory SCRATCH/group/name/<test case> for one test. ctest runs test cases
// in parallel processes; keying the folder on the running test case keeps two cases that use
// the same group and name from removing each other's files.
inline std::filesystem::path scratch_dir(const std::string& group, const std::string& name) {
  const std::string test_case = Catch::getResultCapture().getCurrentTestName();
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a
  for (const unsigned char c : test_case) hash = (hash ^ c) * 1099511628211ull;
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(hash));
  const std::filesystem::path dir = scratch_root() / group / name / key;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace bnn::test
