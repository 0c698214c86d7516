#include "pbp.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#if BNN_PBP_AVX2
#include <immintrin.h>
#endif

#include "methods/core/normal.hpp"
#include "methods/core/options.hpp"
#include "methods/core/training_loop.hpp"
#include "relu_moments.hpp"

namespace bnn::pbp {
namespace {

constexpr const char* kName = "pbp";

using PassState = PassWorkspace;

#if BNN_PBP_AVX2
// The forward pass's sums over a row j = 0..cols-1 in the order GCC's AVX2 code for the plain
// `omp simd reduction` loops (the #else branch) adds them, which the committed results were
// computed with: four lane sums over the first 4 floor(cols / 4) columns (lane k: j = k mod 4),
// the remaining columns added to lane 0 in turn, then (((0 + lane 0) + lane 1) + lane 2) + lane 3.
// Four rows at once, each with its own lane sums.

// Lane k of rows r0..r3 into rk (a 4 x 4 transpose).
inline void transpose(__m256d& r0, __m256d& r1, __m256d& r2, __m256d& r3) {
  const __m256d lo01 = _mm256_unpacklo_pd(r0, r1), hi01 = _mm256_unpackhi_pd(r0, r1);
  const __m256d lo23 = _mm256_unpacklo_pd(r2, r3), hi23 = _mm256_unpackhi_pd(r2, r3);
  r0 = _mm256_permute2f128_pd(lo01, lo23, 0x20);
  r1 = _mm256_permute2f128_pd(hi01, hi23, 0x20);
  r2 = _mm256_permute2f128_pd(lo01, lo23, 0x31);
  r3 = _mm256_permute2f128_pd(hi01, hi23, 0x31);
}

// eqs. (13)-(14) for one layer: ma = scale M zm, va = scale^2 (V second + M^2 zv), the zv term
// only for random inputs (layers above the first).
template <bool kRandomInputs>
void pre_activation_moments(const Layer& layer, const double* zm, const double* zv, const double* second, double* ma,
                            double* va) {
  const Eigen::Index rows = layer.mean.rows(), cols = layer.mean.cols(), body = cols & ~Eigen::Index{3};
  const double scale = 1.0 / std::sqrt(static_cast<double>(cols));  // 1/sqrt(V_{l-1}+1)
  const double scale2 = scale * scale;
  const __m256d zero = _mm256_setzero_pd();
  const auto variance_term = [&](__m256d m, __m256d v, Eigen::Index j) {  // V second + M^2 zv
    return _mm256_fmadd_pd(v, _mm256_loadu_pd(second + j), _mm256_mul_pd(_mm256_mul_pd(m, m), _mm256_loadu_pd(zv + j)));
  };
  Eigen::Index i = 0;
  for (; i + 4 <= rows; i += 4) {
    const double* M[4];
    const double* V[4];
    for (int r = 0; r < 4; ++r) {
      M[r] = layer.mean.data() + (i + r) * cols;
      V[r] = layer.variance.data() + (i + r) * cols;
    }
    __m256d sm[4] = {zero, zero, zero, zero}, sv[4] = {zero, zero, zero, zero};
    for (Eigen::Index j = 0; j < body; j += 4) {
      const __m256d z = _mm256_loadu_pd(zm + j);
      for (int r = 0; r < 4; ++r) {
        const __m256d m = _mm256_loadu_pd(M[r] + j), v = _mm256_loadu_pd(V[r] + j);
        sm[r] = _mm256_fmadd_pd(m, z, sm[r]);
        if constexpr (kRandomInputs)
          sv[r] = _mm256_add_pd(sv[r], variance_term(m, v, j));
        else
          sv[r] = _mm256_fmadd_pd(v, _mm256_loadu_pd(second + j), sv[r]);
      }
    }
    transpose(sm[0], sm[1], sm[2], sm[3]);
    transpose(sv[0], sv[1], sv[2], sv[3]);
    for (Eigen::Index j = body; j < cols; ++j) {  // into lane 0 of each row
      const __m256d m = _mm256_set_pd(M[3][j], M[2][j], M[1][j], M[0][j]);
      const __m256d v = _mm256_set_pd(V[3][j], V[2][j], V[1][j], V[0][j]);
      sm[0] = _mm256_fmadd_pd(m, _mm256_set1_pd(zm[j]), sm[0]);
      if constexpr (kRandomInputs)
        sv[0] = _mm256_add_pd(sv[0], _mm256_fmadd_pd(v, _mm256_set1_pd(second[j]),
                                                     _mm256_mul_pd(_mm256_mul_pd(m, m), _mm256_set1_pd(zv[j]))));
      else
        sv[0] = _mm256_fmadd_pd(v, _mm256_set1_pd(second[j]), sv[0]);
    }
    const __m256d mean = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_add_pd(zero, sm[0]), sm[1]), sm[2]), sm[3]);
    const __m256d variance =
        _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_add_pd(zero, sv[0]), sv[1]), sv[2]), sv[3]);
    _mm256_storeu_pd(ma + i, _mm256_mul_pd(_mm256_set1_pd(scale), mean));
    _mm256_storeu_pd(va + i, _mm256_mul_pd(_mm256_set1_pd(scale2), variance));
  }
  for (; i < rows; ++i) {  // the last rows % 4 rows one at a time, in the same order
    const double* M = layer.mean.data() + i * cols;
    const double* V = layer.variance.data() + i * cols;
    __m256d sm = zero, sv = zero;
    for (Eigen::Index j = 0; j < body; j += 4) {
      const __m256d m = _mm256_loadu_pd(M + j), v = _mm256_loadu_pd(V + j);
      sm = _mm256_fmadd_pd(m, _mm256_loadu_pd(zm + j), sm);
      if constexpr (kRandomInputs)
        sv = _mm256_add_pd(sv, variance_term(m, v, j));
      else
        sv = _mm256_fmadd_pd(v, _mm256_loadu_pd(second + j), sv);
    }
    alignas(32) double lane_mean[4], lane_variance[4];
    _mm256_store_pd(lane_mean, sm);
    _mm256_store_pd(lane_variance, sv);
    for (Eigen::Index j = body; j < cols; ++j) {
      lane_mean[0] = std::fma(M[j], zm[j], lane_mean[0]);
      if constexpr (kRandomInputs)
        lane_variance[0] = std::fma(V[j], second[j], (M[j] * M[j]) * zv[j]) + lane_variance[0];
      else
        lane_variance[0] = std::fma(V[j], second[j], lane_variance[0]);
    }
    const double mean = (((0.0 + lane_mean[0]) + lane_mean[1]) + lane_mean[2]) + lane_mean[3];
    const double variance = (((0.0 + lane_variance[0]) + lane_variance[1]) + lane_variance[2]) + lane_variance[3];
    ma[i] = scale * mean;
    va[i] = scale2 * variance;
  }
}
#else
template <bool kRandomInputs>
void pre_activation_moments(const Layer& layer, const double* zm, const double* zv, const double* second, double* ma,
                            double* va) {
  const Eigen::Index cols = layer.mean.cols();
  const double scale = 1.0 / std::sqrt(static_cast<double>(cols));  // 1/sqrt(V_{l-1}+1)
  for (Eigen::Index i = 0; i < layer.mean.rows(); ++i) {
    const double* M = layer.mean.row(i).data();
    const double* V = layer.variance.row(i).data();
    double mean = 0.0, variance = 0.0;
    if constexpr (!kRandomInputs) {  // deterministic inputs: zv = 0
#pragma omp simd reduction(+ : mean, variance)
      for (Eigen::Index j = 0; j < cols; ++j) {
        mean += M[j] * zm[j];
        variance += V[j] * second[j];
      }
    } else {
#pragma omp simd reduction(+ : mean, variance)
      for (Eigen::Index j = 0; j < cols; ++j) {
        mean += M[j] * zm[j];
        variance += V[j] * second[j] + M[j] * M[j] * zv[j];
      }
    }
    ma[i] = scale * mean;
    va[i] = scale * scale * variance;
  }
}
#endif

void forward_pass(const Network& net, const Eigen::Ref<const Eigen::VectorXd>& x, PassState& st) {
  st.size_for(net);
  const std::size_t L = net.layers.size();
  const Eigen::Index d = x.size();
  st.in[0].zm.head(d) = x;
  st.in[0].zm[d] = 1.0;
  st.in[0].zv.setZero();
  for (std::size_t l = 0; l < L; ++l) {
    const Layer& layer = net.layers[l];
    auto& s = st.in[l];
    const Eigen::Index cols = layer.mean.cols();
    const double* zm = s.zm.data();
    const double* zv = s.zv.data();
    double* second = s.second.data();
    for (Eigen::Index j = 0; j < cols; ++j) second[j] = zm[j] * zm[j] + zv[j];
    // eqs. (13)-(14): means and variances of a_l = W_l z_{l-1} / sqrt(V_{l-1} + 1).
    if (l == 0)
      pre_activation_moments<false>(layer, zm, zv, second, s.ma.data(), s.va.data());
    else
      pre_activation_moments<true>(layer, zm, zv, second, s.ma.data(), s.va.data());
    if (l + 1 == L) break;
    auto& next = st.in[l + 1];
    const Eigen::Index units = s.ma.size();
    relu_moments(s.ma.data(), s.va.data(), static_cast<std::size_t>(units), s.relu);  // eqs. (15)-(17)
    for (Eigen::Index i = 0; i < units; ++i) {
      next.zm[i] = s.relu.mean[static_cast<std::size_t>(i)];
      next.zv[i] = s.relu.variance[static_cast<std::size_t>(i)];
    }
    next.zm[units] = 1.0;
    next.zv[units] = 0.0;
  }
}

// Row i's contribution to d log Z / d(zm, zv) of the layer's inputs (supplement eqs. (15)-(22)):
// d m^a_i / d zm_j = M_ij s; d v^a_i / d zm_j = 2 zm_j V_ij s^2; d v^a_i / d zv_j = (M_ij^2 + V_ij) s^2.
void add_input_gradients(const double* M, const double* V, const double* zm, double gm, double gv, Eigen::Index cols,
                         double* dzm, double* dzv) {
#pragma omp simd
  for (Eigen::Index j = 0; j < cols; ++j) {
    dzm[j] += gm * M[j] + 2.0 * gv * zm[j] * V[j];
    dzv[j] += gv * (M[j] * M[j] + V[j]);
  }
}

// Backward pass from d log Z / d(m, v) of the output (supplement eqs. (15)-(22)), top layer
// down. For each row i of weights, `visit(layer, i, M, V, zm, zv, second, gm, gv, cols, dzm, dzv)`
// gets gm = s d log Z / d m^a_i and gv = s^2 d log Z / d v^a_i; unless dzm is null (first layer),
// it must add the row's input gradients (add_input_gradients) to dzm, dzv from the old M, V
// before it may change them (ADF updates at once; log_z records the gradients).
template <class Visitor>
void backward_pass(Network& net, PassState& st, double d_out_mean, double d_out_variance, Visitor&& visit) {
  double* dm = st.dm.data();
  double* dv = st.dv.data();
  dm[0] = d_out_mean;
  dv[0] = d_out_variance;
  for (std::size_t l = net.layers.size(); l-- > 0;) {
    Layer& layer = net.layers[l];
    auto& s = st.in[l];
    const Eigen::Index cols = layer.mean.cols();
    const double scale = 1.0 / std::sqrt(static_cast<double>(cols));
    const double scale2 = scale * scale;
    const bool has_below = l > 0;
    if (has_below) {
      s.dzm.setZero();
      s.dzv.setZero();
    }
    const double* zm = s.zm.data();
    const double* zv = s.zv.data();
    const double* second = s.second.data();
    double* dzm = has_below ? s.dzm.data() : nullptr;
    double* dzv = has_below ? s.dzv.data() : nullptr;
    for (Eigen::Index i = 0; i < layer.mean.rows(); ++i) {
      // d m^a_i / d M_ij = zm_j s; d v^a_i / d M_ij = 2 M_ij zv_j s^2; d v^a_i / d V_ij = second_j s^2.
      const double gm = scale * dm[i];
      const double gv = scale2 * dv[i];
      visit(layer, i, layer.mean.row(i).data(), layer.variance.row(i).data(), zm, zv, second, gm, gv, cols, dzm, dzv);
    }
    if (!has_below) break;
    // Through the rectifiers of the layer below (the bias unit has no gradient path).
    const auto& below = st.in[l - 1];
    const Eigen::Index units = below.ma.size();
    const ReluBatch& r = below.relu;
#pragma omp simd
    for (Eigen::Index i = 0; i < units; ++i) {
      const auto k = static_cast<std::size_t>(i);
      dm[i] = dzm[i] * r.dmean_dm[k] + dzv[i] * r.dvariance_dm[k];
      dv[i] = dzm[i] * r.dmean_dv[k] + dzv[i] * r.dvariance_dv[k];
    }
  }
}

// eqs. (6)-(7) for row i's weights, after adding its input gradients to dzm, dzv unless null; a
// weight whose new variance is not positive keeps its old values. Returns how many kept them.
long update_row(double* M, double* V, const double* zm, const double* zv, const double* second, double gm, double gv,
                Eigen::Index cols, double* dzm, double* dzv) {
  long kept = 0;
  Eigen::Index j = 0;
#if BNN_PBP_AVX2
  // Four weights at a time, then one at a time; each weight's operations are those of the plain
  // loops below.
  const __m256d gm4 = _mm256_set1_pd(gm), gv4 = _mm256_set1_pd(gv), two_gv4 = _mm256_set1_pd(gv + gv);
  const __m256d zero = _mm256_setzero_pd(), infinity = _mm256_set1_pd(std::numeric_limits<double>::infinity());
  for (; j + 4 <= cols; j += 4) {
    const __m256d m = _mm256_loadu_pd(M + j), v = _mm256_loadu_pd(V + j);
    if (dzm) {
      const __m256d to_mean =
          _mm256_fmadd_pd(gm4, m, _mm256_mul_pd(_mm256_mul_pd(two_gv4, _mm256_loadu_pd(zm + j)), v));
      _mm256_storeu_pd(dzm + j, _mm256_add_pd(to_mean, _mm256_loadu_pd(dzm + j)));
      _mm256_storeu_pd(dzv + j, _mm256_fmadd_pd(gv4, _mm256_fmadd_pd(m, m, v), _mm256_loadu_pd(dzv + j)));
    }
    const __m256d g_mean = _mm256_fmadd_pd(_mm256_loadu_pd(zm + j), gm4,
                                           _mm256_mul_pd(_mm256_mul_pd(two_gv4, m), _mm256_loadu_pd(zv + j)));
    const __m256d g_variance = _mm256_mul_pd(gv4, _mm256_loadu_pd(second + j));
    const __m256d v_new = _mm256_fnmadd_pd(_mm256_mul_pd(v, v),
                                           _mm256_fmsub_pd(g_mean, g_mean, _mm256_add_pd(g_variance, g_variance)), v);
    const __m256d ok =
        _mm256_and_pd(_mm256_cmp_pd(v_new, zero, _CMP_GT_OQ), _mm256_cmp_pd(v_new, infinity, _CMP_LT_OQ));
    _mm256_storeu_pd(M + j, _mm256_blendv_pd(m, _mm256_fmadd_pd(g_mean, v, m), ok));
    _mm256_storeu_pd(V + j, _mm256_blendv_pd(v, v_new, ok));
    kept += 4 - std::popcount(static_cast<unsigned>(_mm256_movemask_pd(ok)));
  }
  const double two_gv = gv + gv;
  for (; j < cols; ++j) {
    const double m = M[j], v = V[j];
    if (dzm) {
      dzm[j] = std::fma(gm, m, (two_gv * zm[j]) * v) + dzm[j];
      dzv[j] = std::fma(gv, std::fma(m, m, v), dzv[j]);
    }
    const double g_mean = std::fma(zm[j], gm, (two_gv * m) * zv[j]);
    const double g_variance = gv * second[j];
    const double v_new = std::fma(-(v * v), std::fma(g_mean, g_mean, -(g_variance + g_variance)), v);
    if (v_new > 0.0 && v_new < std::numeric_limits<double>::infinity()) {
      M[j] = std::fma(g_mean, v, m);
      V[j] = v_new;
    } else {
      ++kept;
    }
  }
#else
  if (dzm) add_input_gradients(M, V, zm, gm, gv, cols, dzm, dzv);
#pragma omp simd reduction(+ : kept)
  for (; j < cols; ++j) {
    const double g_mean = gm * zm[j] + 2.0 * gv * M[j] * zv[j];
    const double g_variance = gv * second[j];
    const double v_new = V[j] - V[j] * V[j] * (g_mean * g_mean - 2.0 * g_variance);
    const bool ok = v_new > 0.0 && v_new < std::numeric_limits<double>::infinity();
    M[j] = ok ? M[j] + V[j] * g_mean : M[j];
    V[j] = ok ? v_new : V[j];
    kept += ok ? 0 : 1;
  }
#endif
  return kept;
}

// log Z of eq. (12) and its gradient with respect to the output mean and variance.
struct OutputTerms {
  double log_z, d_mean, d_variance;
};
OutputTerms output_terms(double y, double mean, double variance, double noise_variance) {
  const double total = variance + noise_variance;
  const double r = y - mean;
  return {normal_log_pdf(y, mean, total), r / total, -0.5 / total + 0.5 * r * r / (total * total)};
}

}  // namespace

void PassWorkspace::size_for(const Network& net) {
  const auto sized = [&] {
    if (in.size() != net.layers.size()) return false;
    for (std::size_t l = 0; l < in.size(); ++l)
      if (in[l].zm.size() != net.layers[l].mean.cols() || in[l].ma.size() != net.layers[l].mean.rows()) return false;
    return !in.empty();
  };
  if (sized()) return;
  in.resize(net.layers.size());
  Eigen::Index most_outputs = 1;
  for (std::size_t l = 0; l < net.layers.size(); ++l) {
    const Eigen::Index inputs = net.layers[l].mean.cols(), outputs = net.layers[l].mean.rows();
    auto& s = in[l];
    s.zm.resize(inputs);
    s.zv.resize(inputs);
    s.second.resize(inputs);
    s.dzm.resize(inputs);
    s.dzv.resize(inputs);
    s.ma.resize(outputs);
    s.va.resize(outputs);
    s.relu.resize(static_cast<std::size_t>(outputs));
    most_outputs = std::max(most_outputs, outputs);
  }
  dm.resize(most_outputs);
  dv.resize(most_outputs);
}

void Options::validate() const {
  require_hidden_layers(kName, hidden_layers);
  require_at_least(kName, "epochs", epochs, 1);
  require_positive(kName, "prior_rate", prior_rate);
  require_positive(kName, "noise_rate", noise_rate);
  if (!(prior_shape > 1.0))
    throw std::invalid_argument("pbp: prior_shape is " + option_detail::format_double(prior_shape) +
                                ", but must be > 1");
  if (!(noise_shape > 1.0))
    throw std::invalid_argument("pbp: noise_shape is " + option_detail::format_double(noise_shape) +
                                ", but must be > 1");
  require_at_least(kName, "min_cavity_precision_fraction", min_cavity_precision_fraction, 0.0);
}

Network initial_network(Eigen::Index inputs, const Options& options, Rng& rng) {
  Network net;
  net.noise_shape = options.noise_shape;
  net.noise_rate = options.noise_rate;
  net.prior_shape = options.prior_shape;
  net.prior_rate = options.prior_rate;
  std::vector<Eigen::Index> sizes = {inputs};
  for (int units : options.hidden_layers) sizes.push_back(units);
  sizes.push_back(1);
  // The prior factors enter q first: variance E[1/lambda] = rate / (shape - 1) for every
  // weight; then the means are perturbed to N(0, 1/(inputs + 1)) to break the symmetry.
  const double prior_precision = (options.prior_shape - 1.0) / options.prior_rate;
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
    const Eigen::Index out = sizes[l + 1], in = sizes[l] + 1;
    Layer layer;
    layer.mean.resize(out, in);
    const double sd = 1.0 / std::sqrt(static_cast<double>(in));
    for (Eigen::Index i = 0; i < out; ++i)
      for (Eigen::Index j = 0; j < in; ++j) layer.mean(i, j) = sd * standard_normal(rng);
    layer.variance = RowMatrix::Constant(out, in, 1.0 / prior_precision);
    layer.site_precision = RowMatrix::Constant(out, in, prior_precision);
    layer.site_precision_mean = RowMatrix::Zero(out, in);
    layer.site_shape = RowMatrix::Zero(out, in);
    layer.site_rate = RowMatrix::Zero(out, in);
    net.layers.push_back(std::move(layer));
  }
  return net;
}

OutputMoments forward(const Network& net, const Eigen::Ref<const Eigen::VectorXd>& x) {
  PassState st;
  forward_pass(net, x, st);
  return {st.in.back().ma[0], st.in.back().va[0]};
}

double log_z(const Network& net, const Eigen::Ref<const Eigen::VectorXd>& x, double y, Gradients* gradients) {
  PassState st;
  forward_pass(net, x, st);
  const OutputTerms out = output_terms(y, st.in.back().ma[0], st.in.back().va[0], net.noise_variance());
  if (gradients) {
    gradients->d_mean.assign(net.layers.size(), {});
    gradients->d_variance.assign(net.layers.size(), {});
    Network& unchanged = const_cast<Network&>(net);  // the visitor below does not modify it
    for (std::size_t l = 0; l < net.layers.size(); ++l) {
      gradients->d_mean[l].resize(net.layers[l].mean.rows(), net.layers[l].mean.cols());
      gradients->d_variance[l].resize(net.layers[l].mean.rows(), net.layers[l].mean.cols());
    }
    backward_pass(
        unchanged, st, out.d_mean, out.d_variance,
        [&](const Layer& layer, Eigen::Index i, const double* M, const double* V, const double* zm, const double* zv,
            const double* second, double gm, double gv, Eigen::Index cols, double* dzm, double* dzv) {
          if (dzm) add_input_gradients(M, V, zm, gm, gv, cols, dzm, dzv);
          const auto l = static_cast<std::size_t>(&layer - net.layers.data());
          for (Eigen::Index j = 0; j < cols; ++j) {
            gradients->d_mean[l](i, j) = gm * zm[j] + 2.0 * gv * M[j] * zv[j];
            gradients->d_variance[l](i, j) = gv * second[j];
          }
        });
  }
  return out.log_z;
}

namespace {

long adf_update_with(Network& net, const Eigen::Ref<const Eigen::VectorXd>& x, double y, PassState& st) {
  forward_pass(net, x, st);
  const double out_mean = st.in.back().ma[0], out_variance = st.in.back().va[0];
  const OutputTerms out = output_terms(y, out_mean, out_variance, net.noise_variance());
  long undone = 0;
  backward_pass(net, st, out.d_mean, out.d_variance,
                [&](Layer&, Eigen::Index, double* M, double* V, const double* zm, const double* zv,
                    const double* second, double gm, double gv, Eigen::Index cols, double* dzm,
                    double* dzv) { undone += update_row(M, V, zm, zv, second, gm, gv, cols, dzm, dzv); });
  // eqs. (9)-(10) for q(gamma): Z, Z1, Z2 are Z with the shape raised by 0, 1, 2.
  const double a = net.noise_shape, b = net.noise_rate;
  const double log_z0 = normal_log_pdf(y, out_mean, out_variance + b / (a - 1.0));
  const double log_z1 = normal_log_pdf(y, out_mean, out_variance + b / a);
  const double log_z2 = normal_log_pdf(y, out_mean, out_variance + b / (a + 1.0));
  const auto [a_new, b_new] = gamma_moment_match(a, b, log_z0, log_z1, log_z2);
  if (std::isfinite(a_new) && std::isfinite(b_new) && a_new > 1.0 && b_new > 0.0) {
    net.noise_shape = a_new;
    net.noise_rate = b_new;
  }
  return undone;
}

}  // namespace

long adf_update(Network& net, const Eigen::Ref<const Eigen::VectorXd>& x, double y, PassWorkspace& workspace) {
  return adf_update_with(net, x, y, workspace);
}

long adf_update(Network& net, const Eigen::Ref<const Eigen::VectorXd>& x, double y) {
  PassWorkspace workspace;
  return adf_update_with(net, x, y, workspace);
}

long refine_prior(Network& net, double min_cavity_precision_fraction) {
  long updated = 0;
  for (Layer& layer : net.layers) {
    for (Eigen::Index i = 0; i < layer.mean.rows(); ++i)
      for (Eigen::Index j = 0; j < layer.mean.cols(); ++j) {
        // Cavity: q without this weight's prior factor (natural parameters subtract).
        const double precision = 1.0 / layer.variance(i, j);
        const double cavity_precision = precision - layer.site_precision(i, j);
        const double cavity_precision_mean = precision * layer.mean(i, j) - layer.site_precision_mean(i, j);
        const double cavity_shape = net.prior_shape - layer.site_shape(i, j);
        const double cavity_rate = net.prior_rate - layer.site_rate(i, j);
        const bool informed =
            cavity_precision > 1e-6 && cavity_precision >= min_cavity_precision_fraction * layer.site_precision(i, j);
        if (!informed || !(cavity_rate > 0.0) || !(cavity_shape > 1.0)) continue;
        const double cavity_variance = 1.0 / cavity_precision;
        const double cavity_mean = cavity_precision_mean * cavity_variance;
        // Z = N(cavity_mean | 0, cavity_variance + E[1/lambda]) as in eq. (11); Z1, Z2 with
        // the Gamma shape raised by one and two.
        const double v0 = cavity_variance + cavity_rate / (cavity_shape - 1.0);
        const double v1 = cavity_variance + cavity_rate / cavity_shape;
        const double v2 = cavity_variance + cavity_rate / (cavity_shape + 1.0);
        const double m2 = cavity_mean * cavity_mean;
        const double log_z0 = -0.5 * std::log(v0) - 0.5 * m2 / v0;
        const double log_z1 = -0.5 * std::log(v1) - 0.5 * m2 / v1;
        const double log_z2 = -0.5 * std::log(v2) - 0.5 * m2 / v2;
        const double d_mean = -cavity_mean / v0;
        const double d_variance = -0.5 / v0 + 0.5 * m2 / (v0 * v0);
        const double mean_new = cavity_mean + cavity_variance * d_mean;
        const double variance_new =
            cavity_variance - cavity_variance * cavity_variance * (d_mean * d_mean - 2.0 * d_variance);
        const auto [shape_new, rate_new] = gamma_moment_match(cavity_shape, cavity_rate, log_z0, log_z1, log_z2);
        if (!(variance_new > 0.0) || !(shape_new > 1.0) || !(rate_new > 0.0) || !std::isfinite(shape_new) ||
            !std::isfinite(rate_new))
          continue;
        // New factor = new q / cavity.
        layer.site_precision(i, j) = 1.0 / variance_new - cavity_precision;
        layer.site_precision_mean(i, j) = mean_new / variance_new - cavity_precision_mean;
        layer.site_shape(i, j) = shape_new - cavity_shape;
        layer.site_rate(i, j) = rate_new - cavity_rate;
        layer.mean(i, j) = mean_new;
        layer.variance(i, j) = variance_new;
        net.prior_shape = shape_new;
        net.prior_rate = rate_new;
        ++updated;
      }
  }
  return updated;
}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  Eigen::VectorXd mean(X.rows()), variance(X.rows());
  PassState st;
  const double noise = net_.noise_variance();
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    forward_pass(net_, X.row(i).transpose(), st);
    mean[i] = st.in.back().ma[0];
    variance[i] = st.in.back().va[0] + noise;  // eq. (12): output variance plus E[1/gamma]
  }
  return std::make_unique<GaussianPredictive>(mean, variance);
}

Model fit(const RegressionData& train, const Validated<Options>& valid, Rng& rng) {
  const Options& options = *valid;
  check_training_data(train, kName);
  Network net = initial_network(train.X.cols(), options, rng);
  const Eigen::MatrixXd Xt = train.X.transpose();  // one column per point: contiguous
  PassState st;
  FitReport report;
  long undone = 0, prior_updates = 0;
  // One ADF pass per epoch over the points in random order, then the prior's EP refinement.
  run_epochs(
      {options.epochs, 1}, static_cast<std::size_t>(train.X.rows()), rng,
      [&](std::span<const std::size_t> rows) {
        const auto k = static_cast<Eigen::Index>(rows[0]);
        undone += adf_update_with(net, Xt.col(k), train.y[k], st);
        return true;
      },
      [&](int) {
        prior_updates += refine_prior(net, options.min_cavity_precision_fraction);
        return true;
      });
  for (const Layer& layer : net.layers)
    if (!layer.mean.allFinite() || !layer.variance.allFinite()) {
      report.status = FitStatus::numerical_error;
      report.message = "non-finite weight moments";
    }
  report.iterations = options.epochs;
  report.diagnostics = {{"noise_variance", net.noise_variance()},
                        {"noise_shape", net.noise_shape},
                        {"prior_variance", net.prior_rate / (net.prior_shape - 1.0)},
                        {"undone_weight_updates", static_cast<double>(undone)},
                        {"prior_factor_updates", static_cast<double>(prior_updates)}};
  return Model(std::move(net), std::move(report));
}

}  // namespace bnn::pbp
