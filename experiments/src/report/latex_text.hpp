#pragma once
// Text set in a LaTeX table: the characters LaTeX reads as commands escaped.

#include <string>

namespace bnn::exp {

// `_`, `%`, `&`, `#` and `$` with a backslash before them; everything else as it is.
std::string latex_escape(const std::string& s);

}  // namespace bnn::exp
