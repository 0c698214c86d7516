#pragma once
// The report's warning lines: a method's warnings on one data set, one line per kind. Texts that
// differ only in their numbers (a gradient norm, a count of re-estimations) are one kind, each
// number shown as the range it took over the splits.
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bnn::exp {

// (dataset/label, warning text) -> splits  =>  "dataset/label: text (n splits: a, b, ...)"
std::vector<std::string> grouped_warnings(
    const std::map<std::pair<std::string, std::string>, std::vector<int>>& warned);

}  // namespace bnn::exp
