#pragma once
// Small helpers shared by the unit tests.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "methods/core/model.hpp"

namespace bnn::test {

// The value of the named diagnostic of a fit report; throws if the report has none.
inline double diagnostic(const FitReport& report, const std::string& name) {
  for (const auto& [key, value] : report.diagnostics)
    if (key == name) return value;
  throw std::out_of_range("no diagnostic '" + name + "' in the fit report");
}

// The message of the std::invalid_argument that f() throws, or a marker if it throws none.
template <class F>
std::string invalid_argument_message(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no std::invalid_argument thrown>";
}

// A fresh, empty directory SCRATCH/group/name for one test (SCRATCH comes from CMake).
inline std::filesystem::path scratch_dir(const std::string& group, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(BNNBENCH_TEST_SCRATCH) / group / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace bnn::test
