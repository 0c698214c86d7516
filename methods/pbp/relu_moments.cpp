#include "relu_moments.hpp"

#include <cmath>
#include <numbers>
#if BNN_PBP_AVX2
#include <immintrin.h>
#endif

#include "methods/core/normal.hpp"
#include "methods/core/vector_math.hpp"

namespace bnn::pbp {
namespace {
constexpr double kInverseSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi), the nearest double
constexpr double kFlushAlpha = 37.5;
double std_normal_pdf(double x) { return std::exp(-0.5 * x * x) * kInverseSqrt2Pi; }
}  // namespace

double inverse_mills(double alpha) {
  if (alpha < -30.0) {
    const double inv = 1.0 / alpha;
    return -alpha - inv + 2.0 * inv * inv * inv;
  }
  return std_normal_pdf(alpha) / normal_cdf(alpha);
}

ReluMoments relu_moments(double m, double v) {
  ReluMoments r;
  const double s = std::sqrt(v);
  const double alpha = m / s;
  // One erfc: the smaller of Phi(alpha), Phi(-alpha) accurately, the other as its complement.
  double cdf, cdf_minus;
  if (alpha > 0.0) {
    cdf_minus = 0.5 * std::erfc(alpha / std::numbers::sqrt2);
    cdf = 1.0 - cdf_minus;
  } else {
    cdf = 0.5 * std::erfc(-alpha / std::numbers::sqrt2);
    cdf_minus = 1.0 - cdf;
  }
  const double gamma = alpha < -30.0 ? inverse_mills(alpha) : std_normal_pdf(alpha) / cdf;
  const double shifted = m + s * gamma;  // E[a | a > 0], eq. (15)'s v'
  r.mean = cdf * shifted;
  r.variance = r.mean * shifted * cdf_minus + cdf * v * (1.0 - gamma * (gamma + alpha));  // eq. (16)
  if (r.variance < 0.0) r.variance = 0.0;     // round-off when the unit is almost surely off
  const double pdf_over_s = cdf * gamma / s;  // phi(alpha) / sqrt v, stable for alpha << 0
  r.dmean_dm = cdf;
  r.dmean_dv = 0.5 * pdf_over_s;
  r.dvariance_dm = 2.0 * r.mean * cdf_minus;
  r.dvariance_dv = cdf - r.mean * pdf_over_s;
  return r;
}

void ReluBatch::resize(std::size_t n) {
  for (auto* a : {&mean, &variance, &dmean_dm, &dmean_dv, &dvariance_dm, &dvariance_dv, &sd, &alpha, &tail, &pdf})
    a->resize(n);
}

void relu_moments(const double* m, const double* v, std::size_t n, ReluBatch& out) {
  out.resize(n);
  double* sd = out.sd.data();
  double* alpha = out.alpha.data();
  double* tail = out.tail.data();
  double* pdf = out.pdf.data();
  // Three passes: erfc's and exp's arguments, |alpha| / sqrt 2 and -alpha^2 / 2, into tail and
  // pdf; erfc and exp over the arrays (libmvec, vector_math.hpp); then the moments. AVX2 builds
  // run the first and last passes four units at a time by hand (GCC leaves the plain loops
  // unvectorized: sqrt's errno branch and the selects), the plain loops take the last n % 4.
  // Beyond |alpha| = kFlushAlpha Phi(-|alpha|) < 2e-307 and phi(alpha) < 4e-306 are taken as 0:
  // libmvec computes results that small lane by lane through the scalar routines, 5 to 50 times
  // slower, and saturated units are common. The arguments are set to 0 there (fast) and the
  // results to 0 after.
#if BNN_PBP_AVX2
  const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
  const __m256d half = _mm256_set1_pd(0.5), minus_half = _mm256_set1_pd(-0.5);
  const __m256d sqrt2 = _mm256_set1_pd(std::numbers::sqrt2), minus_30 = _mm256_set1_pd(-30.0);
  const __m256d inverse_sqrt_2pi = _mm256_set1_pd(kInverseSqrt2Pi), flush = _mm256_set1_pd(kFlushAlpha);
  const std::size_t n4 = n & ~std::size_t{3};
  for (std::size_t i = 0; i < n4; i += 4) {
    const __m256d s = _mm256_sqrt_pd(_mm256_loadu_pd(v + i));
    const __m256d a = _mm256_div_pd(_mm256_loadu_pd(m + i), s);
    const __m256d abs_a = _mm256_andnot_pd(sign, a);
    const __m256d kept = _mm256_cmp_pd(abs_a, flush, _CMP_LE_OQ);
    _mm256_storeu_pd(sd + i, s);
    _mm256_storeu_pd(alpha + i, a);
    _mm256_storeu_pd(tail + i, _mm256_and_pd(kept, _mm256_div_pd(abs_a, sqrt2)));
    _mm256_storeu_pd(pdf + i, _mm256_and_pd(kept, _mm256_mul_pd(_mm256_mul_pd(a, minus_half), a)));
  }
#else
  const std::size_t n4 = 0;
#endif
#pragma omp simd
  for (std::size_t i = n4; i < n; ++i) {
    sd[i] = std::sqrt(v[i]);
    alpha[i] = m[i] / sd[i];
    const bool kept = std::abs(alpha[i]) <= kFlushAlpha;
    tail[i] = kept ? std::abs(alpha[i]) / std::numbers::sqrt2 : 0.0;
    pdf[i] = kept ? -0.5 * alpha[i] * alpha[i] : 0.0;
  }
  vector_math::erfc(tail, tail, n);  // 2 Phi(-|alpha|)
  vector_math::exp(pdf, pdf, n);     // sqrt(2 pi) phi(alpha)
#if BNN_PBP_AVX2
  for (std::size_t i = 0; i < n4; i += 4) {
    const __m256d a = _mm256_loadu_pd(alpha + i), s = _mm256_loadu_pd(sd + i);
    const __m256d kept = _mm256_cmp_pd(_mm256_andnot_pd(sign, a), flush, _CMP_LE_OQ);
    const __m256d t = _mm256_and_pd(kept, _mm256_mul_pd(half, _mm256_loadu_pd(tail + i)));
    const __m256d mi = _mm256_loadu_pd(m + i), vi = _mm256_loadu_pd(v + i);
    const __m256d on = _mm256_cmp_pd(a, zero, _CMP_GT_OQ);
    const __m256d one_minus_tail = _mm256_sub_pd(one, t);
    const __m256d cdf = _mm256_blendv_pd(t, one_minus_tail, on);
    const __m256d cdf_minus = _mm256_blendv_pd(one_minus_tail, t, on);
    const __m256d p = _mm256_and_pd(kept, _mm256_mul_pd(_mm256_loadu_pd(pdf + i), inverse_sqrt_2pi));
    __m256d gamma = _mm256_div_pd(p, cdf);
    const __m256d far_off = _mm256_cmp_pd(a, minus_30, _CMP_LT_OQ);
    if (_mm256_movemask_pd(far_off)) {
      const __m256d inv = _mm256_div_pd(one, a);
      const __m256d series =
          _mm256_fmadd_pd(inv, _mm256_mul_pd(_mm256_add_pd(inv, inv), inv), _mm256_sub_pd(_mm256_xor_pd(a, sign), inv));
      gamma = _mm256_blendv_pd(gamma, series, far_off);
    }
    const __m256d shifted = _mm256_fmadd_pd(s, gamma, mi);
    const __m256d mean = _mm256_mul_pd(cdf, shifted);
    const __m256d spread = _mm256_mul_pd(_mm256_mul_pd(cdf, vi), _mm256_fnmadd_pd(_mm256_add_pd(gamma, a), gamma, one));
    const __m256d variance = _mm256_fmadd_pd(_mm256_mul_pd(shifted, mean), cdf_minus, spread);
    const __m256d pdf_over_s = _mm256_div_pd(_mm256_mul_pd(cdf, gamma), s);
    _mm256_storeu_pd(out.mean.data() + i, mean);
    _mm256_storeu_pd(out.variance.data() + i,
                     _mm256_blendv_pd(zero, variance, _mm256_cmp_pd(variance, zero, _CMP_NLT_UQ)));
    _mm256_storeu_pd(out.dmean_dm.data() + i, cdf);
    _mm256_storeu_pd(out.dmean_dv.data() + i, _mm256_mul_pd(pdf_over_s, half));
    _mm256_storeu_pd(out.dvariance_dm.data() + i, _mm256_mul_pd(_mm256_add_pd(mean, mean), cdf_minus));
    _mm256_storeu_pd(out.dvariance_dv.data() + i, _mm256_fnmadd_pd(pdf_over_s, mean, cdf));
  }
#endif
#pragma omp simd
  for (std::size_t i = n4; i < n; ++i) {
    const double a = alpha[i], s = sd[i];
    const bool kept = std::abs(a) <= kFlushAlpha;
    const double t = kept ? 0.5 * tail[i] : 0.0, p = kept ? pdf[i] * kInverseSqrt2Pi : 0.0;
    const double cdf = a > 0.0 ? 1.0 - t : t;
    const double cdf_minus = a > 0.0 ? t : 1.0 - t;
    const double inv = 1.0 / a;
    const double gamma = a < -30.0 ? -a - inv + 2.0 * inv * inv * inv : p / cdf;
    const double shifted = m[i] + s * gamma;
    const double mean = cdf * shifted;
    const double variance = mean * shifted * cdf_minus + cdf * v[i] * (1.0 - gamma * (gamma + a));
    const double pdf_over_s = cdf * gamma / s;
    out.mean[i] = mean;
    out.variance[i] = variance < 0.0 ? 0.0 : variance;
    out.dmean_dm[i] = cdf;
    out.dmean_dv[i] = 0.5 * pdf_over_s;
    out.dvariance_dm[i] = 2.0 * mean * cdf_minus;
    out.dvariance_dv[i] = cdf - mean * pdf_over_s;
  }
}

}  // namespace bnn::pbp
