#include "derive.hpp"

#include <stdexcept>
#include <vector>

#include "data_error.hpp"
#include "text_table.hpp"

namespace bnn::data {

std::string derive_crime_n1993_d102(std::string_view original, const std::string& file) {
  constexpr std::size_t kColumns = 147;
  constexpr std::size_t kTarget = 146;  // 1-based
  std::vector<std::size_t> inputs;      // 1-based
  for (std::size_t c = 6; c <= 129; ++c) {
    const bool police = (c >= 104 && c <= 120) || (c >= 124 && c <= 127) || c == 129;
    if (!police) inputs.push_back(c);
  }
  std::string out;
  long kept = 0;
  for_each_row(original, file, Delimiter::comma, [&](long line, const std::vector<std::string_view>& f) {
    if (f.size() != kColumns)
      throw DataError(
          file, line, static_cast<long>(std::min(f.size(), kColumns) + 1),
          "expected " + std::to_string(kColumns) + " comma-separated columns, found " + std::to_string(f.size()));
    if (f[kTarget - 1] == "?") return;
    for (std::size_t c : inputs)
      if (f[c - 1] == "?") return;
    for (std::size_t c : inputs) {
      out.append(f[c - 1]);
      out.push_back(' ');
    }
    out.append(f[kTarget - 1]);
    out.push_back('\n');
    ++kept;
  });
  if (kept == 0) throw DataError(file, 0, 0, "no complete rows: cannot derive the crime table");
  return out;
}

std::string run_derivation(const std::string& recipe, std::string_view input, const std::string& file) {
  if (recipe == "crime-n1993-d102") return derive_crime_n1993_d102(input, file);
  throw std::invalid_argument("unknown derivation recipe '" + recipe + "' (known: crime-n1993-d102)");
}

}  // namespace bnn::data
