#pragma once
// Random numbers for bnnbench. Every random draw goes through an explicit Rng passed by
// reference; there is no global state. The engine (mt19937_64) is fully specified by the C++
// standard and the transforms below are our own, so a seed gives the same stream with any
// standard library.
#include <bit>
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

namespace bnn {

using Rng = std::mt19937_64;

// Uniform on [0, 1) with 53 random bits.
double uniform01(Rng& rng);
// Uniform on (0, 1): never returns 0, safe for log().
double uniform_open01(Rng& rng);
double uniform(Rng& rng, double lo, double hi);
// Standard normal by the Box-Muller transform (one draw per call, no cached state).
double standard_normal(Rng& rng);
// n standard normals from the uniforms n calls of standard_normal would take, their log and cos
// four at a time (vector_math.hpp): within a few ulp of those calls' values, not the same bits.
void standard_normals(Rng& rng, double* out, std::size_t n);
// Gamma(shape, rate 1) (Marsaglia-Tsang); divide by a rate to get Gamma(shape, rate).
double gamma_draw(Rng& rng, double shape);
// Uniform integer in [0, n), rejection-sampled so it is exactly uniform.
std::uint64_t uniform_index(Rng& rng, std::uint64_t n);
// Fisher-Yates permutation of 0..n-1.
std::vector<std::size_t> random_permutation(Rng& rng, std::size_t n);

// SplitMix64's output for state x (Steele, Lea & Flood 2014): the state advanced by its gamma, then
// mixed.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
// One step of xoshiro128** (Blackman & Vigna 2018) on state s: returns the output, advances s.
inline std::uint32_t xoshiro128ss_next(std::uint32_t s[4]) {
  const std::uint32_t result = std::rotl(s[1] * 5U, 7) * 9U;
  const std::uint32_t t = s[1] << 9;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = std::rotl(s[3], 11);
  return result;
}
// Lanes of fill_uniform32: independent streams run side by side, which vectorizes.
inline constexpr int kUniform32Lanes = 8;
// `count` uniform 32-bit integers, out[8 k + j] being output k of lane j: lane j a xoshiro128**
// stream whose state is the next two SplitMix64 outputs from state `seed` (low half first). A
// fast stream for many cheap decisions (dropout masks), seeded by one draw of an Rng.
void fill_uniform32(std::uint32_t* out, std::size_t count, std::uint64_t seed);

// Stable 64-bit hashing used to derive seeds: FNV-1a over bytes, finished with SplitMix64.
std::uint64_t hash_bytes(std::string_view bytes, std::uint64_t seed = 0);
// Seed of a child stream from a parent seed and a label, e.g. derive_seed(s, "boston").
std::uint64_t derive_seed(std::uint64_t parent, std::string_view label);
std::uint64_t derive_seed(std::uint64_t parent, std::uint64_t index);

}  // namespace bnn
