#include "lower_update.hpp"

#include <cmath>

namespace bnn::nnep {
namespace {

// Element r of a column after the update (kUpdate) or as it is.
template <bool kUpdate>
double updated_element(double* column, Eigen::Index r, double a_scaled, double a_r) {
  if constexpr (!kUpdate) return column[r];
  const double updated = std::fma(-a_scaled, a_r, column[r]);
  column[r] = updated;
  return updated;
}

// One column c below the diagonal block: the update, its share of product[r] (r > c) and of
// product[c] (returned).
template <bool kUpdate>
double column_below(double* column, double a_scaled, double x_c, const double* a, const double* x, double* product,
                    Eigen::Index from, Eigen::Index to) {
  double sum = 0.0;
  for (Eigen::Index r = from; r < to; ++r) {
    const double updated = updated_element<kUpdate>(column, r, a_scaled, a[r]);
    product[r] = std::fma(updated, x_c, product[r]);
    sum = std::fma(updated, x[r], sum);
  }
  return sum;
}

// scale = 0 (kUpdate false) reads the matrix only: `a` is not touched, so that a site skipped
// for a non-finite product cannot spread it into the matrix.
template <bool kUpdate>
void update_times(Eigen::MatrixXd& cov, const double* a, double scale, const double* x, double* product) {
  const Eigen::Index d = cov.rows();
  double* base = cov.data();
  for (Eigen::Index r = 0; r < d; ++r) product[r] = 0.0;
  // Four columns at a time, so that each row of the product is loaded and stored once per
  // four columns.
  Eigen::Index c = 0;
  for (; c + 4 <= d; c += 4) {
    double* col[4] = {base + c * d, base + (c + 1) * d, base + (c + 2) * d, base + (c + 3) * d};
    double a_scaled[4], x_c[4], sum[4];
    for (int j = 0; j < 4; ++j) {
      a_scaled[j] = kUpdate ? scale * a[c + j] : 0.0;
      x_c[j] = x[c + j];
      const double diagonal = updated_element<kUpdate>(col[j], c + j, a_scaled[j], a[c + j]);
      sum[j] = diagonal * x_c[j] + column_below<kUpdate>(col[j], a_scaled[j], x_c[j], a, x, product, c + j + 1, c + 4);
    }
    // Unrolled by hand: with the four sums as an array reduction GCC's vector code is 1.6x slower.
    double sum0 = 0.0, sum1 = 0.0, sum2 = 0.0, sum3 = 0.0;
    double *col0 = col[0], *col1 = col[1], *col2 = col[2], *col3 = col[3];
#pragma omp simd reduction(+ : sum0, sum1, sum2, sum3)
    for (Eigen::Index r = c + 4; r < d; ++r) {
      const double a_r = a[r], x_r = x[r];
      double product_r = product[r];
      double updated = updated_element<kUpdate>(col0, r, a_scaled[0], a_r);
      product_r = std::fma(updated, x_c[0], product_r);
      sum0 = std::fma(updated, x_r, sum0);
      updated = updated_element<kUpdate>(col1, r, a_scaled[1], a_r);
      product_r = std::fma(updated, x_c[1], product_r);
      sum1 = std::fma(updated, x_r, sum1);
      updated = updated_element<kUpdate>(col2, r, a_scaled[2], a_r);
      product_r = std::fma(updated, x_c[2], product_r);
      sum2 = std::fma(updated, x_r, sum2);
      updated = updated_element<kUpdate>(col3, r, a_scaled[3], a_r);
      product_r = std::fma(updated, x_c[3], product_r);
      sum3 = std::fma(updated, x_r, sum3);
      product[r] = product_r;
    }
    product[c] += sum[0] + sum0;
    product[c + 1] += sum[1] + sum1;
    product[c + 2] += sum[2] + sum2;
    product[c + 3] += sum[3] + sum3;
  }
  for (; c < d; ++c) {
    double* column = base + c * d;
    const double a_scaled = kUpdate ? scale * a[c] : 0.0;
    const double diagonal = updated_element<kUpdate>(column, c, a_scaled, a[c]);
    product[c] += diagonal * x[c] + column_below<kUpdate>(column, a_scaled, x[c], a, x, product, c + 1, d);
  }
}

}  // namespace

void lower_update_times(Eigen::MatrixXd& cov, const double* a, double scale, const double* x, double* product) {
  if (scale == 0.0)
    update_times<false>(cov, a, scale, x, product);
  else
    update_times<true>(cov, a, scale, x, product);
}

void mirror_lower(Eigen::MatrixXd& cov) { cov.triangularView<Eigen::StrictlyUpper>() = cov.transpose(); }

}  // namespace bnn::nnep
