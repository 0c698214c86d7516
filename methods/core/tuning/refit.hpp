#pragma once
// The refit after a validation search: on the whole training part a configuration can diverge
// where its validation run did not (more data, another start), so the search's configurations
// are refit in order of validation score until one trains.
#include <cstddef>
#include <functional>
#include <string>

#include "methods/core/model.hpp"

namespace bnn::tuning {

// Calls refit(0), refit(1), ... (refit(c) trains with configuration c and returns false when
// it diverged) until one succeeds, and returns its index; each divergence followed by another
// try is a warning in `report` naming learning_rate(c). When all `count` diverge, the last is
// returned and the report's status says "<what> diverged with learning rate ...".
std::size_t refit_until_stable(std::size_t count, const std::function<bool(std::size_t)>& refit,
                               const std::function<double(std::size_t)>& learning_rate, const std::string& what,
                               FitReport& report);

}  // namespace bnn::tuning
