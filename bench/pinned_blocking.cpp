// Linked into every benchmark: Eigen's product blocking pinned before main, as bnnbench pins it
// (methods/core/product_blocking.hpp), so that a benchmark times the kernels the harness runs.
#include "methods/core/product_blocking.hpp"

namespace {
const bool pinned = [] {
  bnn::product_blocking::pin();
  return true;
}();
}  // namespace
