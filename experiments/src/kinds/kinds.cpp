#include "experiments/src/kinds/kinds.hpp"

namespace bnn::exp {

const ExperimentKind& experiment_kind(const ExperimentSpec& spec) {
  if (spec.active_learning) return active_learning_kind();
  if (spec.grid) return figure_kind();
  return table_kind();
}

}  // namespace bnn::exp
