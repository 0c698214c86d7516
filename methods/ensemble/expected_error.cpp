#include "expected_error.hpp"

#include <algorithm>
#include <vector>

namespace bnn::ensemble {

Eigen::MatrixXd Layout::augment(const Eigen::MatrixXd& X) const {
  if (!input_bias) return X;
  Eigen::MatrixXd augmented(X.rows(), X.cols() + 1);
  augmented << X, Eigen::VectorXd::Ones(X.rows());
  return augmented;
}

namespace {

// Moments of one point's unit variables z = (v_1..v_H[, c], a_1..a_H), a_i = u_i' x~, and the
// gradient of e = 0.5 <(f - t)^2> with respect to them.
struct PointMoments {
  Eigen::VectorXd mean;  // z-space
  Eigen::MatrixXd cov;   // z-space (only the diagonal is used for independent units)
  double f_mean = 0.0, f_second = 0.0;
  Eigen::VectorXd d_mean;
  Eigen::MatrixXd d_cov;
};

struct ZIndex {
  int hidden;
  bool bias;
  int v(int i) const { return i; }  // i == hidden is the output bias c
  int a(int i) const { return hidden + (bias ? 1 : 0) + i; }
  int size() const { return 2 * hidden + (bias ? 1 : 0); }
};

// <f>, <f^2> and, optionally, the gradient of e = 0.5 (<f^2> - 2 t <f> + t^2) for one point.
// `independent`: Q factorizes over weights, so units i != j are independent and
// <v_i s_i v_j s_j> = <v_i s_i><v_j s_j>; only diagonal gradient entries are then filled.
void point_moments(const ZIndex& z, PointMoments& pm, double target, bool independent, bool with_gradient) {
  const int H = z.hidden;
  std::vector<UnitTable> units(H);
  std::vector<LinearTerm> linear(H);
  double f_mean = 0.0;
  for (int i = 0; i < H; ++i) {
    const int vi = z.v(i), ai = z.a(i);
    units[i] = unit_table(pm.mean[ai], pm.cov(ai, ai));
    Eigen::Vector2d m(pm.mean[vi], pm.mean[ai]);
    Eigen::Matrix2d c;
    c << pm.cov(vi, vi), pm.cov(vi, ai), pm.cov(ai, vi), pm.cov(ai, ai);
    linear[i] = linear_term(units[i], m, c, with_gradient);
    f_mean += linear[i].value;
  }
  const double bias_mean = z.bias ? pm.mean[z.v(H)] : 0.0;
  const double bias_var = z.bias ? pm.cov(z.v(H), z.v(H)) : 0.0;
  f_mean += bias_mean;

  if (with_gradient) {
    pm.d_mean.setZero(z.size());
    pm.d_cov.setZero(z.size(), z.size());
  }
  // Adds weight * (gradient of a term in unit variables) at the given z indices (-1: none).
  auto scatter = [&](double weight, const auto& d_mean, const auto& d_cov, const std::array<int, 4>& index, int n) {
    for (int r = 0; r < n; ++r) {
      if (index[r] < 0) continue;
      pm.d_mean[index[r]] += weight * d_mean[r];
      for (int s = 0; s < n; ++s)
        if (index[s] >= 0) pm.d_cov(index[r], index[s]) += weight * d_cov(r, s);
    }
  };

  double f_second = 0.0;
  if (independent) {
    double sum_linear = 0.0, sum_linear_sq = 0.0;
    for (int i = 0; i < H; ++i) {
      sum_linear += linear[i].value;
      sum_linear_sq += linear[i].value * linear[i].value;
    }
    for (int i = 0; i < H; ++i) {
      const int vi = z.v(i), ai = z.a(i);
      const double var_v = pm.cov(vi, vi), var_a = pm.cov(ai, ai);
      Eigen::Vector4d m(pm.mean[vi], pm.mean[vi], pm.mean[ai], pm.mean[ai]);
      Eigen::Matrix4d c = Eigen::Matrix4d::Zero();
      c.topLeftCorner<2, 2>().setConstant(var_v);
      c.bottomRightCorner<2, 2>().setConstant(var_a);
      const ProductTerm square = product_term(pair_table(m[2], m[2], var_a, var_a, var_a), m, c, with_gradient);
      f_second += square.value;
      if (with_gradient) {
        scatter(0.5, square.d_mean, square.d_cov, {vi, vi, ai, ai}, 4);
        // d<f^2>/dL_i = 2 (sum_j!=i L_j + c), and d<f>/dL_i = 1.
        const double weight = (sum_linear - linear[i].value + bias_mean) - target;
        scatter(weight, linear[i].d_mean, linear[i].d_cov, {vi, ai, -1, -1}, 2);
      }
    }
    f_second +=
        sum_linear * sum_linear - sum_linear_sq + 2.0 * bias_mean * sum_linear + bias_mean * bias_mean + bias_var;
    if (with_gradient && z.bias) {
      pm.d_mean[z.v(H)] += (sum_linear + bias_mean) - target;
      pm.d_cov(z.v(H), z.v(H)) += 0.5;
    }
  } else {
    const int units_with_bias = H + (z.bias ? 1 : 0);
    for (int i = 0; i < units_with_bias; ++i) {
      for (int j = i; j < units_with_bias; ++j) {
        const bool i_const = i == H, j_const = j == H;
        const int vi = z.v(i), vj = z.v(j);
        const int ai = i_const ? -1 : z.a(i), aj = j_const ? -1 : z.a(j);
        Eigen::Vector4d m(pm.mean[vi], pm.mean[vj], ai >= 0 ? pm.mean[ai] : 0.0, aj >= 0 ? pm.mean[aj] : 0.0);
        const std::array<int, 4> index{vi, vj, ai, aj};
        Eigen::Matrix4d c = Eigen::Matrix4d::Zero();
        for (int r = 0; r < 4; ++r)
          for (int s = 0; s < 4; ++s)
            if (index[r] >= 0 && index[s] >= 0) c(r, s) = pm.cov(index[r], index[s]);
        PairTable table;
        if (i_const)
          table = pair_table_constants();
        else if (j_const)
          table = pair_table_with_constant(units[i]);
        else
          table = pair_table(m[2], m[3], c(2, 2), c(3, 3), c(2, 3));
        const ProductTerm term = product_term(table, m, c, with_gradient);
        const double weight = i == j ? 1.0 : 2.0;
        f_second += weight * term.value;
        if (with_gradient) scatter(0.5 * weight, term.d_mean, term.d_cov, index, 4);
      }
    }
    if (with_gradient) {
      for (int i = 0; i < H; ++i) scatter(-target, linear[i].d_mean, linear[i].d_cov, {z.v(i), z.a(i), -1, -1}, 2);
      if (z.bias) pm.d_mean[z.v(H)] -= target;
    }
  }
  pm.f_mean = f_mean;
  pm.f_second = f_second;
}

// Fills the z-space mean and covariance of point x~ (a row of augmented X).
void unit_moments(const Layout& layout, const ZIndex& z, const GaussianQ& q, const Eigen::RowVectorXd& x,
                  Eigen::MatrixXd& cov_times_x, PointMoments& pm) {
  const int H = layout.hidden;
  const Eigen::Index D = layout.unit_inputs();
  pm.mean.resize(z.size());
  pm.cov.setZero(z.size(), z.size());
  for (int i = 0; i < H; ++i) {
    pm.mean[z.v(i)] = q.mean[layout.v_offset(i)];
    pm.mean[z.a(i)] = x.dot(q.mean.segment(layout.u_offset(i), D));
  }
  if (layout.output_bias) pm.mean[z.v(H)] = q.mean[layout.bias_offset()];
  if (q.diagonal()) {
    for (int i = 0; i < H; ++i) {
      pm.cov(z.v(i), z.v(i)) = q.variances[layout.v_offset(i)];
      pm.cov(z.a(i), z.a(i)) = x.cwiseAbs2().dot(q.variances.segment(layout.u_offset(i), D));
    }
    if (layout.output_bias) pm.cov(z.v(H), z.v(H)) = q.variances[layout.bias_offset()];
    return;
  }
  // C x~ for every hidden unit's block: column i is C[:, u_i] x~.
  cov_times_x.resize(layout.size(), H);
  for (int i = 0; i < H; ++i)
    cov_times_x.col(i).noalias() = q.covariance.middleCols(layout.u_offset(i), D) * x.transpose();
  const int V = H + (layout.output_bias ? 1 : 0);
  for (int i = 0; i < H; ++i) {
    for (int j = 0; j < H; ++j) pm.cov(z.a(i), z.a(j)) = x.dot(cov_times_x.col(i).segment(layout.u_offset(j), D));
    for (int j = 0; j < V; ++j) {
      const Eigen::Index vj = j < H ? layout.v_offset(j) : layout.bias_offset();
      pm.cov(z.a(i), z.v(j)) = pm.cov(z.v(j), z.a(i)) = cov_times_x(vj, i);
    }
  }
  for (int i = 0; i < V; ++i)
    for (int j = 0; j < V; ++j) {
      const Eigen::Index vi = i < H ? layout.v_offset(i) : layout.bias_offset();
      const Eigen::Index vj = j < H ? layout.v_offset(j) : layout.bias_offset();
      pm.cov(z.v(i), z.v(j)) = q.covariance(vi, vj);
    }
}

}  // namespace

ExpectedError expected_squared_error(const Layout& layout, const Eigen::MatrixXd& augmented_X,
                                     const Eigen::VectorXd& targets, const GaussianQ& q, bool with_gradient) {
  const int H = layout.hidden;
  const Eigen::Index D = layout.unit_inputs(), k = layout.size(), N = augmented_X.rows();
  const ZIndex z{H, layout.output_bias};
  const int V = H + (layout.output_bias ? 1 : 0);
  const bool diagonal = q.diagonal();
  ExpectedError result;
  if (with_gradient) {
    result.d_mean.setZero(k);
    if (diagonal)
      result.d_variances.setZero(k);
    else
      result.d_cov.setZero(k, k);
  }
  // Points are processed in chunks; the covariance gradient of a chunk is gathered per pair of
  // hidden units as X' diag(g) X products.
  constexpr Eigen::Index kChunk = 512;
  PointMoments pm;
  Eigen::MatrixXd cov_times_x;
  Eigen::MatrixXd g_aa, g_av;  // chunk points x (H*H), chunk points x (H*V)
  for (Eigen::Index start = 0; start < N; start += kChunk) {
    const Eigen::Index n = std::min(kChunk, N - start);
    if (with_gradient) {
      g_aa.setZero(n, diagonal ? H : H * H);
      g_av.setZero(n, diagonal ? 0 : H * V);
    }
    for (Eigen::Index r = 0; r < n; ++r) {
      const Eigen::RowVectorXd x = augmented_X.row(start + r);
      unit_moments(layout, z, q, x, cov_times_x, pm);
      const double t = targets[start + r];
      point_moments(z, pm, t, diagonal, with_gradient);
      result.value += 0.5 * (pm.f_second - 2.0 * t * pm.f_mean + t * t);
      if (!with_gradient) continue;
      for (int i = 0; i < H; ++i) {
        result.d_mean.segment(layout.u_offset(i), D) += pm.d_mean[z.a(i)] * x.transpose();
        result.d_mean[layout.v_offset(i)] += pm.d_mean[z.v(i)];
      }
      if (layout.output_bias) result.d_mean[layout.bias_offset()] += pm.d_mean[z.v(H)];
      if (diagonal) {
        for (int i = 0; i < H; ++i) {
          g_aa(r, i) = pm.d_cov(z.a(i), z.a(i));
          result.d_variances[layout.v_offset(i)] += pm.d_cov(z.v(i), z.v(i));
        }
        if (layout.output_bias) result.d_variances[layout.bias_offset()] += pm.d_cov(z.v(H), z.v(H));
        continue;
      }
      for (int i = 0; i < H; ++i) {
        for (int j = 0; j < H; ++j) g_aa(r, i * H + j) = pm.d_cov(z.a(i), z.a(j));
        for (int j = 0; j < V; ++j) g_av(r, i * V + j) = pm.d_cov(z.a(i), z.v(j));
      }
      for (int i = 0; i < V; ++i)
        for (int j = 0; j < V; ++j) {
          const Eigen::Index vi = i < H ? layout.v_offset(i) : layout.bias_offset();
          const Eigen::Index vj = j < H ? layout.v_offset(j) : layout.bias_offset();
          result.d_cov(vi, vj) += pm.d_cov(z.v(i), z.v(j));
        }
    }
    if (!with_gradient) continue;
    const auto X = augmented_X.middleRows(start, n);
    if (diagonal) {
      const Eigen::MatrixXd X2 = X.cwiseAbs2();
      for (int i = 0; i < H; ++i)
        result.d_variances.segment(layout.u_offset(i), D).noalias() += X2.transpose() * g_aa.col(i);
      continue;
    }
    for (int i = 0; i < H; ++i) {
      for (int j = 0; j < H; ++j)
        result.d_cov.block(layout.u_offset(i), layout.u_offset(j), D, D).noalias() +=
            X.transpose() * g_aa.col(i * H + j).asDiagonal() * X;
      for (int j = 0; j < V; ++j) {
        const Eigen::Index vj = j < H ? layout.v_offset(j) : layout.bias_offset();
        const Eigen::VectorXd column = X.transpose() * g_av.col(i * V + j);
        result.d_cov.block(layout.u_offset(i), vj, D, 1) += column;
        result.d_cov.block(vj, layout.u_offset(i), 1, D) += column.transpose();
      }
    }
  }
  return result;
}

void output_moments(const Layout& layout, const Eigen::MatrixXd& augmented_X, const GaussianQ& q, Eigen::VectorXd& mean,
                    Eigen::VectorXd& second_moment) {
  const ZIndex z{layout.hidden, layout.output_bias};
  PointMoments pm;
  Eigen::MatrixXd cov_times_x;
  mean.resize(augmented_X.rows());
  second_moment.resize(augmented_X.rows());
  for (Eigen::Index r = 0; r < augmented_X.rows(); ++r) {
    const Eigen::RowVectorXd x = augmented_X.row(r);
    unit_moments(layout, z, q, x, cov_times_x, pm);
    point_moments(z, pm, 0.0, q.diagonal(), false);
    mean[r] = pm.f_mean;
    second_moment[r] = pm.f_second;
  }
}

}  // namespace bnn::ensemble
