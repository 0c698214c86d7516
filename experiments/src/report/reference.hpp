#pragma once
// The papers' published numbers (results/reference/*.csv), looked up by data set, method
// configuration and metric as the experiment spec's [reference] table describes.
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "datasets/src/registry.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

struct PaperValue {
  double value = std::numeric_limits<double>::quiet_NaN();
  double se = std::numeric_limits<double>::quiet_NaN();
  double resolution = 0.0;  // one unit in the printed value's last digit (0: not known)
};

// One unit in the last digit of a number as printed: "0.006" -> 0.001, "8373" -> 1; 0 for
// exponent notation or text that is not a plain decimal.
double printed_resolution(std::string_view text);

// How far our value lies from the paper's beyond the paper's rounding: the paper's value is
// only known to within half a unit of its last printed digit.
double distance_beyond_rounding(double ours, const PaperValue& paper);

// (canonical data-set name, method label, metric) -> published value.
using ReferenceValues = std::map<std::tuple<std::string, std::string, std::string>, PaperValue>;

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
// Comma-separated with a header row; lines starting with '#' are comments; "quoted, cells".
CsvTable read_csv(const std::string& path);

std::string reference_dir();  // <source>/results/reference
// A [reference] file is looked up beside the spec first (a user's spec with its own table), then
// in `directory`.
ReferenceValues load_reference(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                               const std::string& directory = reference_dir());

}  // namespace bnn::exp
