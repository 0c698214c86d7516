#pragma once
// Reading a fitted model's report in tests: the value of one named diagnostic.
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

}  // namespace bnn::test
