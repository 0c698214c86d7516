#pragma once
// Checking the messages of rejected inputs: the text of the std::invalid_argument that a call
// throws, to compare with the exact message users see.
#include <stdexcept>
#include <string>

namespace bnn::test {

// The message of the std::invalid_argument that f() throws, or a marker if it throws none
// (other exceptions propagate).
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
