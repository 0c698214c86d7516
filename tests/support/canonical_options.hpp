#pragma once
// A method's canonical option text ("a=1;b=2", as canonical_config writes it) read back into
// the name -> value map its options parser takes: the round trip the option tests check.

#include <catch2/catch.hpp>
#include <string>

#include "methods/core/options.hpp"

namespace bnn::test {

inline ParamMap parse_canonical(const std::string& text) {
  ParamMap out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    const std::string item = text.substr(start, end - start);
    const std::size_t eq = item.find('=');
    REQUIRE(eq != std::string::npos);
    out[item.substr(0, eq)] = item.substr(eq + 1);
    start = end + 1;
  }
  return out;
}

}  // namespace bnn::test
