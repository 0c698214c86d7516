#include "relu_moments.hpp"

#include <cmath>
#include <numbers>

#include "methods/core/normal.hpp"

namespace bnn::pbp {
namespace {
double std_normal_pdf(double x) { return std::exp(-0.5 * x * x) * (1.0 / std::sqrt(2.0 * std::numbers::pi)); }
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
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    sd[i] = std::sqrt(v[i]);
    alpha[i] = m[i] / sd[i];
  }
  for (std::size_t i = 0; i < n; ++i) {  // Phi(-|alpha|) and phi(alpha): no vector forms
    tail[i] = 0.5 * std::erfc(std::abs(alpha[i]) / std::numbers::sqrt2);
    pdf[i] = std_normal_pdf(alpha[i]);
  }
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    const double a = alpha[i], s = sd[i];
    const double cdf = a > 0.0 ? 1.0 - tail[i] : tail[i];
    const double cdf_minus = a > 0.0 ? tail[i] : 1.0 - tail[i];
    const double inv = 1.0 / a;
    const double gamma = a < -30.0 ? -a - inv + 2.0 * inv * inv * inv : pdf[i] / cdf;
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
