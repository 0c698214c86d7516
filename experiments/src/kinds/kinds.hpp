#pragma once
// The experiment kinds (spec/experiment_kind.hpp), one file each.
#include "experiments/src/spec/experiment_kind.hpp"

namespace bnn::exp {

const ExperimentKind& table_kind();            // table.cpp
const ExperimentKind& figure_kind();           // figure.cpp
const ExperimentKind& active_learning_kind();  // active_learning.cpp

}  // namespace bnn::exp
