#pragma once
// erf, erfc, exp, sin and cos over arrays, four at a time through glibc's vector math library
// (libmvec, the AVX2 variants _ZGVdN4v_*, at most 4 ulp from the correctly rounded value).
// NN-EP's quadrature of (49) and PBP's rectifiers spend most of their time in these calls; the
// vector routines are 5-9 times faster than the scalar ones. Every element goes through the
// same 4-wide routine (a short tail is padded), so a value does not depend on its position in
// the array or on the array's length.
// Built without AVX2 (BNNBENCH_ARCH below x86-64-v3) the scalar std:: functions are used.
// log and tanh are this project's own routines in Eigen's packets (below), on every
// architecture: libmvec's log starts from vrcpps, an approximate reciprocal whose bits differ
// between Intel's and AMD's processors, so its results (and VI's normal draws) were not the
// same on every machine; plain arithmetic is.
#include <cstddef>

namespace bnn::vector_math {

// out[i] = f(in[i]) for i < n; `in` and `out` may be the same array.
void erf(const double* in, double* out, std::size_t n);
void erfc(const double* in, double* out, std::size_t n);
void exp(const double* in, double* out, std::size_t n);
void log(const double* in, double* out, std::size_t n);
void sin(const double* in, double* out, std::size_t n);
void cos(const double* in, double* out, std::size_t n);
// tanh in Eigen's SIMD packets (any architecture), within a few ulp of the exact value: the
// hidden units' activation of NN-MC (std::tanh is not vectorized).
void tanh(const double* in, double* out, std::size_t n);

// Whether the libmvec routines are in use (false: the scalar fallback).
bool vectorized();

}  // namespace bnn::vector_math
