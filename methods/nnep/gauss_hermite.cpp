#include "gauss_hermite.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

namespace bnn::nnep {

HermiteRule hermite_rule(int size) {
  // The Jacobi matrix of the monic Hermite recursion He_{n+1} = x He_n - n He_{n-1}.
  Eigen::MatrixXd jacobi = Eigen::MatrixXd::Zero(size, size);
  for (int i = 1; i < size; ++i) jacobi(i, i - 1) = jacobi(i - 1, i) = std::sqrt(static_cast<double>(i));
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(jacobi);
  HermiteRule rule;
  rule.nodes = eigen.eigenvalues();
  rule.weights = eigen.eigenvectors().row(0).transpose().array().square();
  return rule;
}

}  // namespace bnn::nnep
