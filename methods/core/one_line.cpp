#include "one_line.hpp"

namespace bnn {

std::string one_line(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f)
      out += c;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else
      out += std::string("\\x") + "0123456789abcdef"[u >> 4] + "0123456789abcdef"[u & 15];
  }
  return out;
}

}  // namespace bnn
