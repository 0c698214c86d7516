#pragma once
// Gauss-Hermite rule for E f(z), z ~ N(0, 1) (probabilists' weight), by Golub-Welsch.
#include <Eigen/Core>

namespace bnn::nnep {

struct HermiteRule {
  Eigen::VectorXd nodes, weights;  // weights sum to one
};
HermiteRule hermite_rule(int size);

}  // namespace bnn::nnep
