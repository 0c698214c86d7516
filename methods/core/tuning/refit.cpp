#include "refit.hpp"

#include <stdexcept>

#include "methods/core/options.hpp"

namespace bnn::tuning {

std::size_t refit_until_stable(std::size_t count, const std::function<bool(std::size_t)>& refit,
                               const std::function<double(std::size_t)>& learning_rate, const std::string& what,
                               FitReport& report) {
  if (count == 0) throw std::invalid_argument("refit_until_stable: no configuration to refit");
  for (std::size_t c = 0; c < count; ++c) {
    if (refit(c)) return c;
    if (c + 1 < count)
      report.warnings.push_back("the refit diverged with learning rate " +
                                option_detail::format_double(learning_rate(c)) +
                                ": refit with the validation search's next-best configuration");
  }
  report.status = FitStatus::numerical_error;
  report.message = what + " diverged with learning rate " + option_detail::format_double(learning_rate(count - 1));
  return count - 1;
}

}  // namespace bnn::tuning
