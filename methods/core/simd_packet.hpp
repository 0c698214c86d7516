#pragma once
// Eigen's SIMD packet of doubles (4 with AVX2), for the kernels written with packets by hand
// (mlp.cpp, activation.cpp). Loads and stores are unaligned, so results do not depend on where
// the data happen to sit in memory.

#include <Eigen/Core>

namespace bnn::simd_packet {

namespace simd = Eigen::internal;
using Packet = simd::packet_traits<double>::type;
inline constexpr Eigen::Index kLanes = simd::packet_traits<double>::size;

}  // namespace bnn::simd_packet
