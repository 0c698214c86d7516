#include "rng.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>
#include <numeric>

#include "vector_math.hpp"

namespace bnn {
namespace {
// Eight 32-bit lanes (GCC's vector extension: AVX2 registers where the target has them).
using Lanes = std::uint32_t __attribute__((vector_size(4 * kUniform32Lanes)));
static_assert(sizeof(Lanes) == 4 * kUniform32Lanes);

inline Lanes rotl_lanes(Lanes x, int k) { return (x << k) | (x >> (32 - k)); }
}  // namespace

void fill_uniform32(std::uint32_t* out, std::size_t count, std::uint64_t seed) {
  constexpr int L = kUniform32Lanes;
  Lanes s0{}, s1{}, s2{}, s3{};
  for (int j = 0; j < L; ++j) {
    const std::uint64_t a = splitmix64(seed + static_cast<std::uint64_t>(2 * j) * 0x9E3779B97F4A7C15ULL);
    const std::uint64_t b = splitmix64(seed + static_cast<std::uint64_t>(2 * j + 1) * 0x9E3779B97F4A7C15ULL);
    s0[j] = static_cast<std::uint32_t>(a);
    s1[j] = static_cast<std::uint32_t>(a >> 32);
    s2[j] = static_cast<std::uint32_t>(b);
    s3[j] = static_cast<std::uint32_t>(b >> 32);
    if ((a | b) == 0) s0[j] = 1;  // the one state xoshiro cannot leave
  }
  // xoshiro128ss_next on all lanes at once.
  const auto step = [&]() {
    const Lanes result = rotl_lanes(s1 * 5U, 7) * 9U;
    const Lanes t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl_lanes(s3, 11);
    return result;
  };
  std::size_t k = 0;
  for (; k + L <= count; k += L) {
    const Lanes r = step();
    std::memcpy(out + k, &r, sizeof r);
  }
  if (k < count) {
    const Lanes r = step();
    std::memcpy(out + k, &r, (count - k) * sizeof(std::uint32_t));
  }
}

double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double uniform_open01(Rng& rng) { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; }

double uniform(Rng& rng, double lo, double hi) { return lo + (hi - lo) * uniform01(rng); }

double standard_normal(Rng& rng) {
  const double u1 = uniform_open01(rng);
  const double u2 = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

void standard_normals(Rng& rng, double* out, std::size_t n) {
  constexpr std::size_t kChunk = 64;
  double radius[kChunk], angle[kChunk];
  for (std::size_t start = 0; start < n; start += kChunk) {
    const std::size_t count = std::min(kChunk, n - start);
    for (std::size_t i = 0; i < count; ++i) {
      radius[i] = uniform_open01(rng);
      angle[i] = 2.0 * std::numbers::pi * uniform01(rng);
    }
    vector_math::log(radius, radius, count);
    vector_math::cos(angle, angle, count);
    for (std::size_t i = 0; i < count; ++i) out[start + i] = std::sqrt(-2.0 * radius[i]) * angle[i];
  }
}

double gamma_draw(Rng& rng, double shape) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a).
    const double u = uniform_open01(rng);
    return gamma_draw(rng, shape + 1.0) * std::pow(u, 1.0 / shape);
  }
  // Marsaglia & Tsang (2000), "A simple method for generating gamma variables".
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = standard_normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform_open01(rng);
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

std::uint64_t uniform_index(Rng& rng, std::uint64_t n) {
  if (n == 0) return 0;
  const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
  std::uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % n;
}

std::vector<std::size_t> random_permutation(Rng& rng, std::size_t n) {
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  for (std::size_t i = n; i > 1; --i) {
    const std::size_t j = uniform_index(rng, i);
    std::swap(perm[i - 1], perm[j]);
  }
  return perm;
}

std::uint64_t hash_bytes(std::string_view bytes, std::uint64_t seed) {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ splitmix64(seed);
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return splitmix64(h);
}

std::uint64_t derive_seed(std::uint64_t parent, std::string_view label) { return hash_bytes(label, parent); }

std::uint64_t derive_seed(std::uint64_t parent, std::uint64_t index) {
  return splitmix64(splitmix64(parent) ^ (index + 0x632BE59BD9B4E019ULL));
}

}  // namespace bnn
