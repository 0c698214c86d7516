#include "expected_abs_normal.hpp"

#include <cmath>

#include "normal.hpp"

namespace bnn {
namespace {

constexpr int kStepsPerUnit = 256;
constexpr int kNodes = 9 * kStepsPerUnit + 1;

struct PsiTable {
  double value[kNodes] = {}, slope[kNodes] = {};  // psi and psi' = -Phi(-t) at t = k / 256
  PsiTable() {
    for (int k = 0; k < kNodes; ++k) {
      const double t = static_cast<double>(k) / kStepsPerUnit;
      const double upper_tail = normal_cdf(-t);
      value[k] = normal_pdf(t) - t * upper_tail;
      slope[k] = -upper_tail;
    }
  }
};

const PsiTable& psi_table() {
  static const PsiTable table;
  return table;
}

// psi(t) for t >= 0 (t = +inf or NaN give psi(9) < 2e-20, i.e. 0 at double precision).
inline double psi(const PsiTable& table, double t) {
  constexpr double last = kNodes - 1 - 1e-9;
  double position = t * kStepsPerUnit;
  position = position < last ? position : last;
  const int k = static_cast<int>(position);
  const double u = position - static_cast<double>(k), h = 1.0 / kStepsPerUnit;
  // Cubic Hermite on [t_k, t_k+1] from values and slopes at both ends.
  const double u2 = u * u, u3 = u2 * u;
  return (2 * u3 - 3 * u2 + 1) * table.value[k] + (u3 - 2 * u2 + u) * h * table.slope[k] +
         (-2 * u3 + 3 * u2) * table.value[k + 1] + (u3 - u2) * h * table.slope[k + 1];
}

}  // namespace

double expected_abs_normal_exact(double m, double v) {
  const double s = std::sqrt(v);
  const double z = m / s;
  return 2.0 * s * normal_pdf(z) + m * (2.0 * normal_cdf(z) - 1.0);
}

double expected_abs_normal(double m, double v) {
  const double s = std::sqrt(v);
  return std::abs(m) + 2.0 * s * psi(psi_table(), std::abs(m) / s);
}

double weighted_expected_abs_normal_sum(double m, double v, const double* means, const double* variances,
                                        const double* weights, long count) {
  const PsiTable& table = psi_table();
  double sum = 0.0;
  for (long d = 0; d < count; ++d) {
    const double distance = std::abs(m - means[d]);
    const double s = std::sqrt(v + variances[d]);
    sum += weights[d] * (distance + 2.0 * s * psi(table, distance / s));
  }
  return sum;
}

}  // namespace bnn
