#pragma once
// Text quoted in an error message, kept to one line: control characters (a newline in a value
// read from a spec, the byte a parser stopped at) are shown escaped: \n, \r, \t, \xNN.
#include <string>
#include <string_view>

namespace bnn {

std::string one_line(std::string_view text);

}  // namespace bnn
