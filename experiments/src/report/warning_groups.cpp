#include "experiments/src/report/warning_groups.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

namespace bnn::exp {
namespace {

struct NumberToken {
  double value;
  std::string text;
};

// The text with every number replaced by a marker, and the numbers. A number starts with a
// digit (or a sign before one) that does not continue a word: "R-hat", "lpd_p01" stay text.
std::pair<std::string, std::vector<NumberToken>> take_numbers(const std::string& text) {
  std::string shape;
  std::vector<NumberToken> numbers;
  std::size_t i = 0;
  while (i < text.size()) {
    const char previous = i > 0 ? text[i - 1] : ' ';
    const bool word_before = std::isalnum(static_cast<unsigned char>(previous)) || previous == '_' || previous == '.';
    const bool sign = (text[i] == '-' || text[i] == '+') && i + 1 < text.size() &&
                      std::isdigit(static_cast<unsigned char>(text[i + 1]));
    if (!word_before && (std::isdigit(static_cast<unsigned char>(text[i])) || sign)) {
      const char* begin = text.c_str() + i;
      char* end = nullptr;
      const double value = std::strtod(begin, &end);
      std::size_t length = static_cast<std::size_t>(end - begin);
      if (length > 0 && begin[length - 1] == '.') --length;  // a sentence's full stop
      numbers.push_back({value, text.substr(i, length)});
      shape += '\x1f';
      i += length;
    } else {
      shape += text[i++];
    }
  }
  return {shape, numbers};
}

struct Group {
  std::set<int> splits;
  std::vector<NumberToken> low, high;
};

}  // namespace

std::vector<std::string> grouped_warnings(
    const std::map<std::pair<std::string, std::string>, std::vector<int>>& warned) {
  std::map<std::pair<std::string, std::string>, Group> groups;  // (dataset/label, shape)
  for (const auto& [key, splits] : warned) {
    auto [shape, numbers] = take_numbers(key.second);
    Group& g = groups[{key.first, shape}];
    g.splits.insert(splits.begin(), splits.end());
    if (g.low.empty()) {
      g.low = numbers;
      g.high = numbers;
    } else {
      for (std::size_t k = 0; k < numbers.size(); ++k) {
        if (numbers[k].value < g.low[k].value) g.low[k] = numbers[k];
        if (numbers[k].value > g.high[k].value) g.high[k] = numbers[k];
      }
    }
  }
  std::vector<std::string> lines;
  for (const auto& [key, g] : groups) {
    std::string text;
    std::size_t k = 0;
    for (const char c : key.second) {
      if (c != '\x1f') {
        text += c;
        continue;
      }
      text += g.low[k].value == g.high[k].value ? g.low[k].text : g.low[k].text + " to " + g.high[k].text;
      ++k;
    }
    std::string list;
    for (const int s : g.splits) list += (list.empty() ? "" : ", ") + std::to_string(s);
    lines.push_back(key.first + ": " + text + " (" + std::to_string(g.splits.size()) +
                    (g.splits.size() == 1 ? " split: " : " splits: ") + list + ")");
  }
  return lines;
}

}  // namespace bnn::exp
