// The report's warning lines: one per kind of warning, numbers as ranges.
#include <catch2/catch.hpp>

#include "experiments/src/report/warning_groups.hpp"

using bnn::exp::grouped_warnings;

TEST_CASE("report warnings: texts that differ only in numbers are one line with their ranges", "[report]") {
  const std::map<std::pair<std::string, std::string>, std::vector<int>> warned = {
      {{"naval/la-a", "the final mode search stopped with objective gradient norm 5.3851659"}, {3}},
      {{"naval/la-a", "the final mode search stopped with objective gradient norm 5.38515"}, {0, 7}},
      {{"naval/la-a", "the final mode search stopped with objective gradient norm 5.3852"}, {1}},
      {{"naval/la-a", "gamma reached the number of points in 5 re-estimations"}, {0, 1}},
      {{"naval/la-a", "gamma reached the number of points in 11 re-estimations"}, {9}},
      {{"naval/hmc-a", "R-hat of predictions at training points is above 1.1"}, {2, 4}},
      {{"naval/ep-a", "every output weight within 1.96 sd of zero: -0.5 to +2e-3."}, {5}},
  };
  const std::vector<std::string> lines = grouped_warnings(warned);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "naval/ep-a: every output weight within 1.96 sd of zero: -0.5 to +2e-3. (1 split: 5)");
  CHECK(lines[1] == "naval/hmc-a: R-hat of predictions at training points is above 1.1 (2 splits: 2, 4)");
  CHECK(lines[2] == "naval/la-a: gamma reached the number of points in 5 to 11 re-estimations (3 splits: 0, 1, 9)");
  CHECK(lines[3] ==
        "naval/la-a: the final mode search stopped with objective gradient norm 5.38515 to 5.3852 (4 splits: 0, 1, 3, "
        "7)");
}
