#include "pbp.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "methods/core/normal.hpp"
#include "methods/core/options.hpp"
#include "methods/core/training_loop.hpp"
#include "relu_moments.hpp"

namespace bnn::pbp {
namespace {

constexpr const char* kName = "pbp";

using PassState = PassWorkspace;

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
    const double scale = 1.0 / std::sqrt(static_cast<double>(cols));  // 1/sqrt(V_{l-1}+1)
    const double* zm = s.zm.data();
    const double* zv = s.zv.data();
    double* second = s.second.data();
    for (Eigen::Index j = 0; j < cols; ++j) second[j] = zm[j] * zm[j] + zv[j];
    // eqs. (13)-(14): means and variances of a_l = W_l z_{l-1} / sqrt(V_{l-1} + 1).
    for (Eigen::Index i = 0; i < layer.mean.rows(); ++i) {
      const double* M = layer.mean.row(i).data();
      const double* V = layer.variance.row(i).data();
      double mean = 0.0, variance = 0.0;
      if (l == 0) {  // deterministic inputs: zv = 0
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
      s.ma[i] = scale * mean;
      s.va[i] = scale * scale * variance;
    }
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

// Backward pass from d log Z / d(m, v) of the output (supplement eqs. (15)-(22)), top layer
// down. For each weight, `visit(layer, i, j, d_mean, d_variance)` gets its gradient after the
// gradients flowing to the layer below were taken from its old value, so the visitor may
// update it at once (ADF) or just record the gradient.
template <class Visitor>
void backward_pass(Network& net, PassState& st, double d_out_mean, double d_out_variance, Visitor&& visit) {
  st.dm.resize(1);
  st.dv.resize(1);
  st.dm[0] = d_out_mean;
  st.dv[0] = d_out_variance;
  for (std::size_t l = net.layers.size(); l-- > 0;) {
    Layer& layer = net.layers[l];
    auto& s = st.in[l];
    const Eigen::Index cols = layer.mean.cols();
    const double scale = 1.0 / std::sqrt(static_cast<double>(cols));
    const double scale2 = scale * scale;
    const bool has_below = l > 0;
    s.dzm.setZero();
    s.dzv.setZero();
    const double* zm = s.zm.data();
    const double* zv = s.zv.data();
    const double* second = s.second.data();
    double* dzm = s.dzm.data();
    double* dzv = s.dzv.data();
    for (Eigen::Index i = 0; i < layer.mean.rows(); ++i) {
      // d m^a_i / d M_ij = zm_j s; d v^a_i / d M_ij = 2 M_ij zv_j s^2; d v^a_i / d V_ij = second_j s^2;
      // d m^a_i / d zm_j = M_ij s; d v^a_i / d zm_j = 2 zm_j V_ij s^2; d v^a_i / d zv_j = (M_ij^2 + V_ij) s^2.
      const double gm = scale * st.dm[i];
      const double gv = scale2 * st.dv[i];
      double* M = layer.mean.row(i).data();
      double* V = layer.variance.row(i).data();
      if (has_below) {
#pragma omp simd
        for (Eigen::Index j = 0; j < cols; ++j) {
          dzm[j] += gm * M[j] + 2.0 * gv * zm[j] * V[j];
          dzv[j] += gv * (M[j] * M[j] + V[j]);
        }
      }
      visit(layer, i, M, V, zm, zv, second, gm, gv, cols);
    }
    if (!has_below) break;
    // Through the rectifiers of the layer below (the bias unit has no gradient path).
    const auto& below = st.in[l - 1];
    const Eigen::Index units = below.ma.size();
    st.dm.resize(units);
    st.dv.resize(units);
    const ReluBatch& r = below.relu;
    for (Eigen::Index i = 0; i < units; ++i) {
      const auto k = static_cast<std::size_t>(i);
      st.dm[i] = dzm[i] * r.dmean_dm[k] + dzv[i] * r.dvariance_dm[k];
      st.dv[i] = dzm[i] * r.dmean_dv[k] + dzv[i] * r.dvariance_dv[k];
    }
  }
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
  if (in.size() == net.layers.size() && !in.empty() && in[0].zm.size() == net.layers[0].mean.cols()) return;
  in.resize(net.layers.size());
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
  }
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
    backward_pass(unchanged, st, out.d_mean, out.d_variance,
                  [&](const Layer& layer, Eigen::Index i, const double* M, const double*, const double* zm,
                      const double* zv, const double* second, double gm, double gv, Eigen::Index cols) {
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
                    const double* second, double gm, double gv, Eigen::Index cols) {
                  // eqs. (6)-(7); a weight whose new variance is not positive keeps its old values.
                  long kept = 0;
#pragma omp simd reduction(+ : kept)
                  for (Eigen::Index j = 0; j < cols; ++j) {
                    const double g_mean = gm * zm[j] + 2.0 * gv * M[j] * zv[j];
                    const double g_variance = gv * second[j];
                    const double v_new = V[j] - V[j] * V[j] * (g_mean * g_mean - 2.0 * g_variance);
                    const bool ok = v_new > 0.0 && v_new < std::numeric_limits<double>::infinity();
                    M[j] = ok ? M[j] + V[j] * g_mean : M[j];
                    V[j] = ok ? v_new : V[j];
                    kept += ok ? 0 : 1;
                  }
                  undone += kept;
                });
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
