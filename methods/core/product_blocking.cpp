#include "product_blocking.hpp"

#include <Eigen/Core>

namespace bnn::product_blocking {

void pin() { Eigen::setCpuCacheSizes(kL1Bytes, Eigen::l2CacheSize(), Eigen::l3CacheSize()); }

}  // namespace bnn::product_blocking
