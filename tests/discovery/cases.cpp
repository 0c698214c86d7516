// Test cases for tests/discovery/discovery.sh. Each writes its own name to the folder
// $DISCOVERY_MARKS (proof that it ran); a case whose name is listed in $DISCOVERY_FAIL fails
// (proof that its failure reaches CTest).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

namespace {

void mark_and_maybe_fail(const std::string& name) {
  const char* marks = std::getenv("DISCOVERY_MARKS");
  REQUIRE(marks != nullptr);
  std::ofstream(std::string(marks) + "/" + std::to_string(std::hash<std::string>{}(name))) << name << "\n";
  const char* fail = std::getenv("DISCOVERY_FAIL");
  CHECK((fail == nullptr || std::string(fail) != name));
}

}  // namespace

TEST_CASE("a semicolon; then more") { mark_and_maybe_fail("a semicolon; then more"); }
TEST_CASE("a comma, then more") { mark_and_maybe_fail("a comma, then more"); }
TEST_CASE("a [bracket] in the name", "[tagged]") { mark_and_maybe_fail("a [bracket] in the name"); }
TEST_CASE("a tilde ~ and a backslash \\ and a quote \"") {
  mark_and_maybe_fail("a tilde ~ and a backslash \\ and a quote \"");
}
TEST_CASE("a star* and all; of, them [x]") { mark_and_maybe_fail("a star* and all; of, them [x]"); }
TEST_CASE("plain") { mark_and_maybe_fail("plain"); }
