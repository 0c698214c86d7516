#include "experiments/src/report/latex_text.hpp"

namespace bnn::exp {

std::string latex_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '%' || c == '&' || c == '#' || c == '$') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace bnn::exp
