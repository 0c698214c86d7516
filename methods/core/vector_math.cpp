#include "vector_math.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

namespace bnn::vector_math {
namespace {

// Eigen's SIMD packets (4 doubles with AVX2), loaded and stored unaligned.
namespace simd = Eigen::internal;
using Packet = simd::packet_traits<double>::type;
using PacketBits = std::int64_t __attribute__((vector_size(sizeof(Packet))));
constexpr std::size_t kLanes = simd::packet_traits<double>::size;

// out[i] = f(in[i]) in packets; a short tail is padded, so a value does not depend on its position.
template <Packet (*F)(const Packet&)>
void apply_packets(const double* in, double* out, std::size_t n) {
  const std::size_t full = n - n % kLanes;
  for (std::size_t i = 0; i < full; i += kLanes) simd::pstoreu(out + i, F(simd::ploadu<Packet>(in + i)));
  if (full == n) return;
  double tail[kLanes];
  std::fill(tail, tail + kLanes, 1.0);
  std::copy(in + full, in + n, tail);
  simd::pstoreu(tail, F(simd::ploadu<Packet>(tail)));
  std::copy(tail, tail + (n - full), out + full);
}

}  // namespace
}  // namespace bnn::vector_math

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

// glibc's vector ABI names: 'd' = AVX2, 'N4' = four lanes, unmasked, 'v' = one vector argument.
extern "C" __m256d _ZGVdN4v_erf(__m256d);
extern "C" __m256d _ZGVdN4v_erfc(__m256d);
extern "C" __m256d _ZGVdN4v_exp(__m256d);
extern "C" __m256d _ZGVdN4v_sin(__m256d);
extern "C" __m256d _ZGVdN4v_cos(__m256d);

namespace bnn::vector_math {
namespace {

// A libmvec routine as a packet function (Eigen's AVX packet of doubles is __m256d).
template <__m256d (*Routine)(__m256d)>
Packet libmvec(const Packet& x) {
  return Routine(x);
}

}  // namespace

void erf(const double* in, double* out, std::size_t n) { apply_packets<libmvec<_ZGVdN4v_erf>>(in, out, n); }
void erfc(const double* in, double* out, std::size_t n) { apply_packets<libmvec<_ZGVdN4v_erfc>>(in, out, n); }
void exp(const double* in, double* out, std::size_t n) { apply_packets<libmvec<_ZGVdN4v_exp>>(in, out, n); }
void sin(const double* in, double* out, std::size_t n) { apply_packets<libmvec<_ZGVdN4v_sin>>(in, out, n); }
void cos(const double* in, double* out, std::size_t n) { apply_packets<libmvec<_ZGVdN4v_cos>>(in, out, n); }
bool vectorized() { return true; }

}  // namespace bnn::vector_math

#else

namespace bnn::vector_math {

void erf(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::erf(in[i]);
}
void erfc(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::erfc(in[i]);
}
void exp(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
}
void sin(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::sin(in[i]);
}
void cos(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::cos(in[i]);
}
bool vectorized() { return false; }

}  // namespace bnn::vector_math

#endif

namespace bnn::vector_math {
namespace {

// Cephes' Pade form of exp on |r| <= ln2 / 2: e^r = (q + p) / (q - p), p = r P(r^2), q = Q(r^2).
constexpr std::array<double, 3> kExpNumerator = {1.26177193074810590878e-4, 3.02994407707441961300e-2,
                                                 9.99999999999999999910e-1};
constexpr std::array<double, 4> kExpDenominator = {3.00198505138664455042e-6, 2.52448340349684104192e-3,
                                                   2.27265548208155028766e-1, 2.00000000000000000009e0};

// c_0 x^(N-1) + ... + c_(N-1), by Horner's rule.
template <std::size_t N>
Packet polynomial(const Packet& x, const std::array<double, N>& c) {
  Packet sum = simd::pset1<Packet>(c[0]);
  for (std::size_t i = 1; i < N; ++i) sum = simd::pmadd(sum, x, simd::pset1<Packet>(c[i]));
  return sum;
}

// tanh(z) = (e^{2z} - 1) / (e^{2z} + 1) for z = |x| (tanh is odd). With 2z = n ln2 + r,
// |r| <= ln2 / 2, and the Pade form of e^r above (Eigen's exp uses it too), multiplying
// through by q - p leaves one division:
//   tanh(z) = ((2^n - 1) q + (2^n + 1) p) / ((2^n + 1) q + (2^n - 1) p),
// which is p / q for n = 0, so small |x| keep full relative accuracy. z is capped at 20: there
// 2^n +- 1 rounds to 2^n and the quotient to 1, as tanh does in double beyond 19.1.
Packet packet_tanh(const Packet& x) {
  const Packet z = simd::pmin(simd::pabs(x), simd::pset1<Packet>(20.0));  // std::min order: NaN stays
  // n = round(2z / ln2) by adding 2^52 (+ 1023, the exponent bias); the same sum shifted into
  // the exponent field is 2^n.
  const Packet shifter = simd::pset1<Packet>(0x1p52 + 1023.0);
  const Packet biased = simd::pmadd(z, simd::pset1<Packet>(2.0 * std::numbers::log2e), shifter);
  const Packet n = simd::psub(biased, shifter);
  const Packet power = std::bit_cast<Packet>(std::bit_cast<PacketBits>(biased) << 52);
  // r = 2z - n ln2, ln2 split in two so that n * ln2_high is exact
  Packet r = simd::pmadd(n, simd::pset1<Packet>(-0.693145751953125), simd::padd(z, z));
  r = simd::pmadd(n, simd::pset1<Packet>(-1.42860682030941723212e-6), r);
  const Packet r2 = simd::pmul(r, r);
  const Packet p = simd::pmul(r, polynomial(r2, kExpNumerator));
  const Packet q = polynomial(r2, kExpDenominator);
  const Packet one = simd::pset1<Packet>(1.0);
  const Packet minus = simd::psub(power, one), plus = simd::padd(power, one);
  const Packet numerator = simd::pmadd(minus, q, simd::pmul(plus, p));
  const Packet denominator = simd::pmadd(plus, q, simd::pmul(minus, p));
  const Packet sign = simd::pxor(x, simd::pabs(x));
  return simd::por(simd::pdiv(numerator, denominator), sign);
}

// log(x) by Eigen's plog (Cephes' reduction to [sqrt(1/2), sqrt 2) and a rational form, in
// plain arithmetic), which takes a subnormal x as the smallest normal number: those are scaled
// by 2^54 first and 54 ln 2 taken off.
Packet packet_log(const Packet& x) {
  const Packet subnormal = simd::pcmp_lt(x, simd::pset1<Packet>(std::numeric_limits<double>::min()));
  const Packet scaled = simd::pselect(subnormal, simd::pmul(x, simd::pset1<Packet>(0x1p54)), x);
  const Packet log = simd::plog(scaled);
  return simd::pselect(subnormal, simd::psub(log, simd::pset1<Packet>(54.0 * std::numbers::ln2)), log);
}

}  // namespace

void log(const double* in, double* out, std::size_t n) { apply_packets<packet_log>(in, out, n); }
void tanh(const double* in, double* out, std::size_t n) { apply_packets<packet_tanh>(in, out, n); }

}  // namespace bnn::vector_math
