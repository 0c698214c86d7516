#pragma once
// Small helpers shared by the unit tests.
#include <stdexcept>
#include <string>

namespace bnn::test {

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

}  // namespace bnn::test
