#include "bound_gradient.hpp"

#include <cmath>

#include "methods/core/normal.hpp"
#include "methods/core/vector_math.hpp"

namespace bnn::vi {
namespace {

void ensure_shape(RowMatrix& m, const RowMatrix& like) { m.resize(like.rows(), like.cols()); }

// Local reparameterization (Kingma, Salimans & Welling 2015): given the layer input z, unit i's
// pre-activation is a_i = mu_a,i + sqrt(var_a,i) eps_i with mu_a = s M z and
// var_a = s^2 (sd^2) (z^2), s = 1/sqrt(inputs + 1). Returns the network output.
double local_forward(const Posterior& q, const StepTerms& step, const Eigen::Ref<const Eigen::VectorXd>& x, Rng& rng,
                     PointBuffers& b) {
  const std::size_t L = q.mean.size();
  for (auto* layers : {&b.z, &b.z_squared, &b.sd_a, &b.eps, &b.a}) layers->resize(L);
  b.z[0].resize(x.size() + 1);
  b.z[0] << x, 1.0;
  for (std::size_t l = 0; l < L; ++l) {
    const double s = 1.0 / std::sqrt(static_cast<double>(q.mean[l].cols()));
    b.z_squared[l] = b.z[l].array().square();
    b.mean_a.noalias() = s * (q.mean[l] * b.z[l]);
    b.sd_a[l].noalias() = (s * s) * (step.variance[l] * b.z_squared[l]);
    b.sd_a[l] = b.sd_a[l].cwiseSqrt();
    const Eigen::Index units = b.mean_a.size();
    b.eps[l].resize(units);
    standard_normals(rng, b.eps[l].data(), static_cast<std::size_t>(units));
    b.a[l] = b.mean_a.array() + b.sd_a[l].array() * b.eps[l].array();
    if (l + 1 == L) break;
    b.z[l + 1].resize(units + 1);
    b.z[l + 1] << b.a[l].cwiseMax(0.0), 1.0;
  }
  return b.a[L - 1][0];
}

// The local estimator's gradient, the KL term's included. With var = sd^2 and delta = d loss /
// d a: d/d mean_ij = s delta_i z_j + (mean_ij - prior mean) / (prior variance n), and
// d/d rho_ij = sd_ij d/d sd_ij = 2 s^2 var_ij z_j^2 d loss/d var_a,i + (var_ij / prior variance - 1) / n.
void local_backward(const Posterior& q, const StepTerms& step, double d_output, double n, PointBuffers& b,
                    BoundGradient& g) {
  const double kl_scale = 1.0 / (step.prior.variance * n);
  const double inverse_n = 1.0 / n;
  b.delta.setConstant(1, d_output);
  for (std::size_t l = q.mean.size(); l-- > 0;) {
    const RowMatrix& M = q.mean[l];
    const RowMatrix& V = step.variance[l];
    const double s = 1.0 / std::sqrt(static_cast<double>(M.cols()));
    // d loss / d var_a
    b.d_var_a = (b.delta.array() * b.eps[l].array() / (2.0 * b.sd_a[l].array().max(1e-300))).matrix();
    g.d_mean[l].noalias() = (s * b.delta) * b.z[l].transpose();
    g.d_mean[l].array() += (M.array() - step.prior.mean) * kl_scale;
    g.d_rho[l].noalias() = (2.0 * s * s * b.d_var_a) * b.z_squared[l].transpose();
    g.d_rho[l].array() = g.d_rho[l].array() * V.array() + V.array() * kl_scale - inverse_n;
    if (l == 0) break;
    // d loss / d z_j = sum_i s delta_i M_ij + 2 s^2 d_var_a,i var_ij z_j
    b.d_z.noalias() = M.transpose() * (s * b.delta);
    b.variance_back.noalias() = V.transpose() * (2.0 * s * s * b.d_var_a);
    b.d_z.array() += b.z[l].array() * b.variance_back.array();
    const Eigen::Index units = b.a[l - 1].size();
    b.delta = (b.a[l - 1].array() > 0.0).select(b.d_z.head(units), 0.0);
  }
}

// The weights and graves estimators: one draw w = mean + sd eps of every weight (Graves 2011).
void weights_gradient(const Posterior& q, const StepTerms& step, const Eigen::Ref<const Eigen::VectorXd>& x, double y,
                      double n, bool graves, Rng& rng, PointBuffers& b, BoundGradient& g, double& output) {
  const std::size_t L = q.mean.size();
  b.eps_w.resize(L);
  b.w.resize(L);
  b.g_w.resize(L);
  for (std::size_t l = 0; l < L; ++l) {
    ensure_shape(b.eps_w[l], q.mean[l]);
    standard_normals(rng, b.eps_w[l].data(), static_cast<std::size_t>(b.eps_w[l].size()));
    b.w[l] = q.mean[l].array() + step.sd[l].array() * b.eps_w[l].array();
    b.g_w[l].setZero(q.mean[l].rows(), q.mean[l].cols());
  }
  output = relu_forward(b.w, x, b.cache);
  relu_backward(b.w, b.cache, (output - y) / step.noise_variance, b.g_w, b.backward);
  const double kl_scale = 1.0 / (step.prior.variance * n);
  for (std::size_t l = 0; l < L; ++l) {
    const auto sd = step.sd[l].array();
    g.d_mean[l] = b.g_w[l].array() + (q.mean[l].array() - step.prior.mean) * kl_scale;
    // The data term's d/d sd: Graves (2011), sec. 5, takes d E[L]/d sd^2 ~ 1/2 (dL/dw)^2 (the
    // diagonal Fisher in place of the Hessian), so sd (dL/dw)^2; the reparameterized draw gives
    // dL/dw eps. Then d/d rho = sd d/d sd, the KL term's sd (-1/sd + sd / prior variance) / n.
    if (graves)
      g.d_rho[l] = sd * sd * b.g_w[l].array().square();
    else
      g.d_rho[l] = sd * b.g_w[l].array() * b.eps_w[l].array();
    g.d_rho[l].array() += step.variance[l].array() * kl_scale - 1.0 / n;
  }
}

}  // namespace

void StepTerms::update(const Posterior& q, const Options& options) {
  const std::size_t L = q.mean.size();
  sd.resize(L);
  variance.resize(L);
  for (std::size_t l = 0; l < L; ++l) {
    sd[l].resize(q.rho[l].rows(), q.rho[l].cols());
    vector_math::exp(q.rho[l].data(), sd[l].data(), static_cast<std::size_t>(sd[l].size()));
    variance[l] = sd[l].array().square();
  }
  prior = options.prior == PriorKind::adaptive ? adaptive_prior(q.mean, variance)
                                               : GaussianPrior{0.0, options.prior_variance};
  noise_variance = std::exp(q.log_noise_variance);
}

double point_gradient(const Posterior& q, const StepTerms& step, const Eigen::Ref<const Eigen::VectorXd>& x, double y,
                      double n, const Options& options, Rng& rng, PointBuffers& buffers, BoundGradient& g) {
  const std::size_t L = q.mean.size();
  g.d_mean.resize(L);
  g.d_rho.resize(L);
  for (std::size_t l = 0; l < L; ++l) {
    ensure_shape(g.d_mean[l], q.mean[l]);
    ensure_shape(g.d_rho[l], q.mean[l]);
  }
  double output = 0.0;
  if (options.estimator == Estimator::local) {
    output = local_forward(q, step, x, rng, buffers);
    local_backward(q, step, (output - y) / step.noise_variance, n, buffers, g);
  } else {
    weights_gradient(q, step, x, y, n, options.estimator == Estimator::graves, rng, buffers, g, output);
  }
  const double r = output - y;
  g.d_log_noise = 0.5 - 0.5 * r * r / step.noise_variance;
  // The data term of the per-point loss (the KL term's value is not needed for the updates).
  return -normal_log_pdf(y, output, step.noise_variance);
}

}  // namespace bnn::vi
