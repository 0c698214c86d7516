// Eigen's product blocking is pinned (product_blocking.hpp): the bits of a long product do not
// depend on the L1 size of the machine. tests/main.cpp pins it before any test runs. And float
// square roots are exact on any CPU (CMakeLists.txt: EIGEN_FAST_MATH=0).
#include <Eigen/Core>
#include <catch2/catch.hpp>
#include <cmath>

#include "methods/core/product_blocking.hpp"
#include "methods/core/rng.hpp"
#include "tests/support/tolerance.hpp"

using namespace bnn;

namespace {

// X' D X with X 5000 x 12, the shape of NN-EP's q(w_k) recomputation on kin40k-sized data
// (the inner dimension n is what Eigen splits into blocks).
Eigen::MatrixXd weighted_gram() {
  Rng rng(7);
  Eigen::MatrixXd X(5000, 12);
  Eigen::VectorXd weights(5000);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    for (Eigen::Index j = 0; j < X.cols(); ++j) X(i, j) = standard_normal(rng);
    weights[i] = uniform01(rng);
  }
  return X.transpose() * weights.asDiagonal() * X;
}

void set_l1(std::ptrdiff_t bytes) { Eigen::setCpuCacheSizes(bytes, Eigen::l2CacheSize(), Eigen::l3CacheSize()); }

}  // namespace

TEST_CASE("product blocking: pinned to a 32 KiB L1, the machine's L2 and L3 kept", "[core]") {
  const std::ptrdiff_t l2 = Eigen::l2CacheSize(), l3 = Eigen::l3CacheSize();
  set_l1(48 * 1024);
  product_blocking::pin();
  CHECK(Eigen::l1CacheSize() == product_blocking::kL1Bytes);
  CHECK(Eigen::l2CacheSize() == l2);
  CHECK(Eigen::l3CacheSize() == l3);
}

TEST_CASE("product blocking: a long product's bits depend on the L1 size, and the pin fixes them", "[core]") {
  set_l1(32 * 1024);
  const Eigen::MatrixXd small_l1 = weighted_gram();  // kc = 240 for k = 5000
  set_l1(48 * 1024);
  const Eigen::MatrixXd large_l1 = weighted_gram();  // kc = 360
  // The dependence the pin exists for (if a later Eigen drops it, this says so) ...
  CHECK((small_l1 - large_l1).cwiseAbs().maxCoeff() > 0.0);
  CHECK(test::close_in_max_norm(large_l1, small_l1, 1e-12));
  // ... and whatever the machine reported, the pinned product is the 32 KiB one, bit for bit.
  product_blocking::pin();
  CHECK((weighted_gram().array() == small_l1.array()).all());
}

TEST_CASE("float square roots are exact, not the CPU's rsqrtps estimate", "[core]") {
  // Eigen's fast math (EIGEN_FAST_MATH, on by default) takes a float square root from rsqrtps
  // and one Newton step; Intel and AMD compute that estimate differently, and MC dropout's
  // float32 Adam (sqrt of its second moments) gave other bits on each. The build turns it off.
  Eigen::ArrayXf v(1000);
  for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = 1e-8f * static_cast<float>((i + 1) * (i + 3));
  const Eigen::ArrayXf roots = v.sqrt();
  for (Eigen::Index i = 0; i < v.size(); ++i) REQUIRE(roots[i] == std::sqrt(v[i]));
}
