#pragma once
// E|m + sqrt(v) Z| for Z ~ N(0, 1): the kernel of a Gaussian mixture's CRPS, evaluated
// O(components^2) times per point, so it is made cheap.

namespace bnn {

// Exact form: 2 s phi(m/s) + m (2 Phi(m/s) - 1), s = sqrt(v).
double expected_abs_normal_exact(double m, double v);

// |m| + 2 s psi(|m|/s) with psi(t) = phi(t) - t Phi(-t) from a table on [0, 9] in steps of
// 1/256 with cubic Hermite interpolation (psi' = -Phi(-t) is tabulated too): absolute error
// below 1e-12 s; psi(9) < 2e-20, so beyond the table psi is taken as psi(9).
double expected_abs_normal(double m, double v);

// sum_d weights[d] * expected_abs_normal(m - means[d], v + variances[d]): the inner loop of
// a mixture's CRPS (the table looked up once).
double weighted_expected_abs_normal_sum(double m, double v, const double* means, const double* variances,
                                        const double* weights, long count);

}  // namespace bnn
