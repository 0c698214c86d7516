#include "vector_math.hpp"

#include <cmath>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

// glibc's vector ABI names: 'd' = AVX2, 'N4' = four lanes, unmasked, 'v' = one vector argument.
extern "C" __m256d _ZGVdN4v_erf(__m256d);
extern "C" __m256d _ZGVdN4v_exp(__m256d);
extern "C" __m256d _ZGVdN4v_sin(__m256d);

namespace bnn::vector_math {
namespace {

template <__m256d (*Routine)(__m256d)>
void apply(const double* in, double* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(out + i, Routine(_mm256_loadu_pd(in + i)));
  if (i == n) return;
  double lanes[4] = {0.0, 0.0, 0.0, 0.0};
  for (std::size_t j = i; j < n; ++j) lanes[j - i] = in[j];
  _mm256_storeu_pd(lanes, Routine(_mm256_loadu_pd(lanes)));
  for (std::size_t j = i; j < n; ++j) out[j] = lanes[j - i];
}

}  // namespace

void erf(const double* in, double* out, std::size_t n) { apply<_ZGVdN4v_erf>(in, out, n); }
void exp(const double* in, double* out, std::size_t n) { apply<_ZGVdN4v_exp>(in, out, n); }
void sin(const double* in, double* out, std::size_t n) { apply<_ZGVdN4v_sin>(in, out, n); }
bool vectorized() { return true; }

}  // namespace bnn::vector_math

#else

namespace bnn::vector_math {

void erf(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::erf(in[i]);
}
void exp(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
}
void sin(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::sin(in[i]);
}
bool vectorized() { return false; }

}  // namespace bnn::vector_math

#endif
