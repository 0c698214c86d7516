#pragma once
// Moments of b = max(0, a) for a ~ N(m, v), and their derivatives with respect to (m, v):
// PBP's forward pass through a rectifier (eqs. (15)-(16) of Hernández-Lobato & Adams 2015)
// and the factors its backward pass needs (supplement eqs. (11)-(14), in a simpler
// equivalent form: dE[b]/dm = Phi(alpha), dE[b]/dv = phi(alpha) / (2 sqrt v),
// dVar[b]/dm = 2 E[b] Phi(-alpha), dVar[b]/dv = Phi(alpha) - E[b] phi(alpha) / sqrt v).

#include <cstddef>
#include <vector>

// AVX2 + FMA builds (the default, x86-64-v3) run PBP's inner loops hand-vectorized, with each
// unit's and weight's floating-point operations the same, in the same order, as the plain loops
// they replace, so results keep their bits; other builds run the plain loops.
#if defined(__AVX2__) && defined(__FMA__)
#define BNN_PBP_AVX2 1
#else
#define BNN_PBP_AVX2 0
#endif

namespace bnn::pbp {

struct ReluMoments {
  double mean = 0.0;
  double variance = 0.0;
  double dmean_dm = 0.0, dmean_dv = 0.0;
  double dvariance_dm = 0.0, dvariance_dv = 0.0;
};

// gamma = phi(alpha) / Phi(alpha); for alpha < -30 the asymptotic series
// -alpha - 1/alpha + 2/alpha^3 (Paquet et al. 2012), as the paper does.
double inverse_mills(double alpha);

ReluMoments relu_moments(double m, double v);

// The same for n units at once (structure of arrays), erfc and exp from glibc's vector library
// (within 4 ulp; the scalar form above uses std::erfc and std::exp; both taken as 0 beyond
// |alpha| = 37.5, where they are below 4e-306), the rest four units at a time in AVX2 builds;
// the forward pass of PBP spends most of its rectifier time here.
struct ReluBatch {
  std::vector<double> mean, variance, dmean_dm, dmean_dv, dvariance_dm, dvariance_dv;
  std::vector<double> sd, alpha, tail, pdf;  // scratch
  void resize(std::size_t n);
};
void relu_moments(const double* m, const double* v, std::size_t n, ReluBatch& out);

}  // namespace bnn::pbp
