// NN-MC with the precisions integrated out of the HMC potential (the default): with a
// Gamma(a, b) prior on a precision, integrating it out of the Gaussian terms leaves
// (b + E)^-(a + n/2) for the noise and (b_g + S_g/2)^-(a_g + m_g/2) for each prior group. The
// potential itself is private to chain.cpp; it is checked through run_chain: the initial L-BFGS
// must end at the mode of the closed-form marginal posterior of a linear model's weights, and
// the sampler with its default hyperparameter handling must reproduce that posterior's moments
// (weights, noise variance, group precisions), computed by quadrature.
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "methods/core/mlp.hpp"
#include "methods/core/rng.hpp"
#include "methods/hmc/diagnostics.hpp"
#include "methods/hmc/hmc.hpp"

using namespace bnn;
using namespace bnn::hmc;

namespace {

// A linear model f(x) = w'x + c with every precision integrated out:
// U(theta) = (a + n/2) log(b + E) + sum_g (a_g + m_g/2) log(b_g + S_g/2) = -log p(theta | y) + const,
// E half the sum of squared errors, S_g the group's sum of multiplier x weight^2.
struct IntegratedLinear {
  Eigen::MatrixXd design;  // the inputs and a column of ones: theta = (w, c), as in MlpShape{d, {}}
  Eigen::VectorXd y;
  PriorGroups groups;
  double noise_shape = 0.0, noise_rate = 0.0;

  IntegratedLinear(const RegressionData& data, const Options& o)
      : design(data.X.rows(), data.X.cols() + 1),
        y(data.y),
        groups(make_prior_groups(MlpShape{data.X.cols(), {}, Activation::tanh}, o)),
        noise_shape(o.noise_prior_shape),
        noise_rate(o.noise_prior_shape * o.noise_prior_scale * o.noise_prior_scale) {
    design << data.X, Eigen::VectorXd::Ones(data.X.rows());
  }
  double n() const { return static_cast<double>(y.size()); }
  double error(const Eigen::VectorXd& theta) const { return 0.5 * (design * theta - y).squaredNorm(); }
  // Per group: shape a_g + m_g/2 and rate b_g + S_g/2 of the conditional of its precision.
  void group_conditionals(const Eigen::VectorXd& theta, Eigen::VectorXd& shape, Eigen::VectorXd& rate) const {
    shape = groups.shape;
    rate = groups.rate;
    for (Eigen::Index i = 0; i < theta.size(); ++i) {
      shape[groups.group[i]] += 0.5;
      rate[groups.group[i]] += 0.5 * groups.multiplier[i] * theta[i] * theta[i];
    }
  }
  double potential(const Eigen::VectorXd& theta) const {
    Eigen::VectorXd shape, rate;
    group_conditionals(theta, shape, rate);
    return (noise_shape + 0.5 * n()) * std::log(noise_rate + error(theta)) + shape.dot(rate.array().log().matrix());
  }
  // Gradient and Hessian of U.
  void derivatives(const Eigen::VectorXd& theta, Eigen::VectorXd& gradient, Eigen::MatrixXd& hessian) const {
    const double A = noise_shape + 0.5 * n(), B = noise_rate + error(theta);
    const Eigen::VectorXd de = design.transpose() * (design * theta - y);
    gradient = (A / B) * de;
    hessian = (A / B) * design.transpose() * design - (A / (B * B)) * de * de.transpose();
    Eigen::VectorXd shape, rate;
    group_conditionals(theta, shape, rate);
    for (Eigen::Index i = 0; i < theta.size(); ++i) {
      const int g = groups.group[i];
      const double ci = groups.multiplier[i];
      gradient[i] += shape[g] / rate[g] * ci * theta[i];
      hessian(i, i) += shape[g] / rate[g] * ci;
      for (Eigen::Index j = 0; j < theta.size(); ++j)
        if (groups.group[j] == g)
          hessian(i, j) -= shape[g] / (rate[g] * rate[g]) * ci * theta[i] * groups.multiplier[j] * theta[j];
    }
  }
  // A mode of p(theta | y) by Newton's method with backtracking, by default from the least-squares fit.
  Eigen::VectorXd mode() const { return mode((design.transpose() * design).ldlt().solve(design.transpose() * y)); }
  Eigen::VectorXd mode(Eigen::VectorXd theta) const {
    Eigen::VectorXd gradient;
    Eigen::MatrixXd hessian;
    for (int it = 0; it < 100; ++it) {
      derivatives(theta, gradient, hessian);
      if (gradient.norm() < 1e-13) break;
      Eigen::VectorXd step = -hessian.ldlt().solve(gradient);
      if (step.dot(gradient) >= 0.0) step = -gradient;  // not convex here: steepest descent
      // Within U's rounding of the mode a Newton step changes U by less than an ulp, up or down
      // (which, the compiler's rounding decides): such a step is taken whole, not backtracked to 0.
      const double slack = 1e-12 * std::abs(potential(theta));
      double t = 1.0;
      while (t > 1e-10 && potential(theta + t * step) > potential(theta) + slack) t *= 0.5;
      theta += t * step;
    }
    return theta;
  }
};

RegressionData linear_data(Eigen::Index n, Eigen::Index d, const Eigen::VectorXd& w, double c, double noise_sd,
                           Rng& rng) {
  RegressionData data{Eigen::MatrixXd(n, d), Eigen::VectorXd(n)};
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) data.X(i, j) = standard_normal(rng);
    data.y[i] = data.X.row(i).dot(w) + c + noise_sd * standard_normal(rng);
  }
  return data;
}

}  // namespace

TEST_CASE("NN-MC's initial optimization ends at the mode of the integrated-out marginal posterior", "[hmc]") {
  // The L-BFGS start minimizes the integrated potential; it can only reach the closed form's mode
  // if both the potential's value and its gradient are right.
  Rng data_rng(31);
  const RegressionData data = linear_data(10, 2, Eigen::Vector2d(1.2, -0.8), 0.5, 0.6, data_rng);
  Options o;  // hyperparameters integrated, as by default
  // Priors that pull the mode well away from least squares; with shape 0.5 the weights' marginal
  // prior is a Cauchy whose spike at zero makes a second mode, which the random start may reach.
  o.weight_prior_shape = 4.0;
  o.output_prior_scale = 0.4;
  o.bias_prior_scale = 0.2;
  o.warmup = 20;
  o.hyper_delay = 10;
  o.samples = 4;
  o.chains = 1;
  o.thin = 1;
  const MlpShape shape{2, {}, Activation::tanh};
  const IntegratedLinear posterior(data, o);
  REQUIRE(posterior.groups.names.size() == 2);  // the output weights (m_g = 2) and the output bias
  const Eigen::VectorXd mode = posterior.mode();
  Eigen::VectorXd gradient;
  Eigen::MatrixXd hessian;
  posterior.derivatives(mode, gradient, hessian);
  REQUIRE(gradient.norm() < 1e-10);
  REQUIRE(hessian.llt().info() == Eigen::Success);                           // a minimum
  REQUIRE((posterior.mode(Eigen::VectorXd::Zero(3)) - mode).norm() < 1e-8);  // and the only one near the start
  const double mode_rmse = std::sqrt(2.0 * posterior.error(mode) / posterior.n());
  const Eigen::VectorXd least_squares =
      (posterior.design.transpose() * posterior.design).ldlt().solve(posterior.design.transpose() * data.y);
  const double least_squares_rmse = std::sqrt(2.0 * posterior.error(least_squares) / posterior.n());
  INFO("mode " << mode.transpose() << ", rmse " << mode_rmse << "; least squares " << least_squares.transpose()
               << ", rmse " << least_squares_rmse);
  REQUIRE(mode_rmse / least_squares_rmse - 1.0 > 1e-3);  // far beyond the tolerance below
  for (const std::uint64_t seed : {1u, 2u}) {
    const ChainResult chain = run_chain(shape, posterior.groups, data, o, data.X.topRows(1), seed);
    REQUIRE(chain.error.empty());
    CHECK(chain.initial_rmse == Approx(mode_rmse).epsilon(1e-6));
  }
}

namespace {

// Posterior moments of a linear model with one input, theta = (w, c), by the trapezoidal rule
// on a grid of +-20 sd (Laplace) about the mode: means and second and fourth central moments of
// w, c and the noise variance, and of each group precision its mean E[(a_g + m_g/2) / (b_g + S_g/2)],
// the variance of that conditional mean and the mean conditional variance.
struct Moments {
  double mean = 0.0, variance = 0.0, fourth = 0.0;
};
struct PosteriorMoments {
  Moments w, c, noise_variance;
  Eigen::VectorXd precision_mean, precision_mean_variance, precision_conditional_variance;
};

PosteriorMoments quadrature(const IntegratedLinear& p) {
  const Eigen::VectorXd mode = p.mode();
  Eigen::VectorXd gradient;
  Eigen::MatrixXd hessian;
  p.derivatives(mode, gradient, hessian);
  const Eigen::Vector2d sd = hessian.inverse().diagonal().cwiseSqrt();
  const int nodes = 1601;
  const double u_mode = p.potential(mode);
  // sigma^2 | theta ~ InvGamma(A, b + E): E[sigma^(2k)] = (b + E)^k / ((A - 1) ... (A - k)).
  const double A = p.noise_shape + 0.5 * p.n();
  const int G = static_cast<int>(p.groups.shape.size());
  PosteriorMoments m;
  // Pass 0: normalizer and means; pass 1: central moments about them.
  double z = 0.0;
  Eigen::VectorXd precision_sq(G), shape, rate;
  for (int pass = 0; pass < 2; ++pass) {
    z = 0.0;
    Moments w, c, s;
    Eigen::VectorXd pm = Eigen::VectorXd::Zero(G), pm2 = Eigen::VectorXd::Zero(G), pv = Eigen::VectorXd::Zero(G);
    for (int i = 0; i < nodes; ++i)
      for (int j = 0; j < nodes; ++j) {
        const Eigen::Vector2d theta(mode[0] + sd[0] * (-20.0 + 40.0 * i / (nodes - 1)),
                                    mode[1] + sd[1] * (-20.0 + 40.0 * j / (nodes - 1)));
        const double density = std::exp(u_mode - p.potential(theta));
        z += density;
        const double B = p.noise_rate + p.error(theta);
        const double m1 = B / (A - 1.0), m2 = m1 * B / (A - 2.0), m3 = m2 * B / (A - 3.0), m4 = m3 * B / (A - 4.0);
        p.group_conditionals(theta, shape, rate);
        if (pass == 0) {
          w.mean += density * theta[0];
          c.mean += density * theta[1];
          s.mean += density * m1;
          pm += density * shape.cwiseQuotient(rate);
          pm2 += density * shape.cwiseQuotient(rate).cwiseAbs2();
          pv += density * shape.cwiseQuotient(rate.cwiseAbs2());
        } else {
          const double dw = theta[0] - m.w.mean, dc = theta[1] - m.c.mean, mu = m.noise_variance.mean;
          w.variance += density * dw * dw;
          w.fourth += density * dw * dw * dw * dw;
          c.variance += density * dc * dc;
          c.fourth += density * dc * dc * dc * dc;
          s.variance += density * (m2 - 2.0 * mu * m1 + mu * mu);
          s.fourth += density * (m4 - 4.0 * mu * m3 + 6.0 * mu * mu * m2 - 4.0 * mu * mu * mu * m1 + mu * mu * mu * mu);
        }
      }
    if (pass == 0) {
      m.w.mean = w.mean / z;
      m.c.mean = c.mean / z;
      m.noise_variance.mean = s.mean / z;
      m.precision_mean = pm / z;
      m.precision_mean_variance = pm2 / z - m.precision_mean.cwiseAbs2();
      m.precision_conditional_variance = pv / z;
    } else {
      m.w.variance = w.variance / z;
      m.w.fourth = w.fourth / z;
      m.c.variance = c.variance / z;
      m.c.fourth = c.fourth / z;
      m.noise_variance.variance = s.variance / z;
      m.noise_variance.fourth = s.fourth / z;
    }
  }
  return m;
}

}  // namespace

TEST_CASE("NN-MC with the precisions integrated out samples the exact posterior of a linear model", "[hmc]") {
  Rng data_rng(23);
  const RegressionData data = linear_data(20, 1, Eigen::VectorXd::Constant(1, 0.7), 0.2, 0.4, data_rng);
  Options o;  // default priors and hyperparameter handling: integrated, Gibbs draws after each trajectory
  o.chains = 4;
  o.warmup = 500;
  o.samples = 16000;
  o.thin = 1;
  const MlpShape shape{1, {}, Activation::tanh};
  const IntegratedLinear posterior(data, o);
  const PosteriorMoments exact = quadrature(posterior);

  std::vector<ChainResult> chains;
  for (int c = 0; c < o.chains; ++c) {
    const std::uint64_t seed = derive_seed(77, static_cast<std::uint64_t>(c));
    chains.push_back(run_chain(shape, posterior.groups, data, o, data.X.topRows(1), seed));
    REQUIRE(chains.back().error.empty());
  }
  // z-tests of the mean and of the second central moment about the exact mean, each with the
  // effective sample size of its own sequence; se of the latter from the exact fourth moment.
  const auto check = [&](const char* name, const Moments& expected, auto value) {
    Chains draws, squares;
    for (const auto& chain : chains) {
      draws.emplace_back();
      squares.emplace_back();
      for (const Draw& d : chain.draws) {
        draws.back().push_back(value(d));
        squares.back().push_back(std::pow(value(d) - expected.mean, 2));
      }
    }
    double mean = 0.0, second = 0.0, count = 0.0;
    for (std::size_t c = 0; c < draws.size(); ++c)
      for (std::size_t t = 0; t < draws[c].size(); ++t) {
        mean += draws[c][t];
        second += squares[c][t];
        count += 1.0;
      }
    mean /= count;
    second /= count;
    const double ess = basic_ess(draws), ess_squares = basic_ess(squares);
    INFO(name << ": mean " << mean << " (exact " << expected.mean << "), variance " << second << " (exact "
              << expected.variance << "), ess " << ess << " and " << ess_squares);
    CHECK(split_rhat(draws) < 1.01);
    REQUIRE(ess > 1000.0);
    CHECK(std::abs(mean - expected.mean) < 4.0 * std::sqrt(expected.variance / ess));
    const double se = std::sqrt((expected.fourth - expected.variance * expected.variance) / ess_squares);
    CHECK(std::abs(second - expected.variance) < 4.0 * se);
    CHECK(4.0 * se < 0.15 * expected.variance);  // the test can tell a variance off by 15%
  };
  check("w", exact.w, [](const Draw& d) { return d.theta[0]; });
  check("c", exact.c, [](const Draw& d) { return d.theta[1]; });
  check("noise variance", exact.noise_variance, [](const Draw& d) { return d.noise_variance; });

  // The mean precisions after warm-up average one Gibbs draw per kept draw (thin = 1): their
  // variance is Var(E[lambda | theta]) / ESS + E[Var(lambda | theta)] / N.
  const Eigen::Index G = posterior.groups.shape.size();
  for (Eigen::Index g = 0; g < G; ++g) {
    Chains conditional_means;
    double mean = 0.0, count = 0.0;
    Eigen::VectorXd shape_g, rate_g;
    for (const auto& chain : chains) {
      conditional_means.emplace_back();
      for (const Draw& d : chain.draws) {
        posterior.group_conditionals(d.theta, shape_g, rate_g);
        conditional_means.back().push_back(shape_g[g] / rate_g[g]);
      }
      mean += chain.mean_precisions[g] / static_cast<double>(chains.size());
      count += static_cast<double>(chain.draws.size());
    }
    const double se = std::sqrt(exact.precision_mean_variance[g] / basic_ess(conditional_means) +
                                exact.precision_conditional_variance[g] / count);
    INFO(posterior.groups.names[g] << ": mean precision " << mean << " (exact " << exact.precision_mean[g] << " +- "
                                   << se << ")");
    CHECK(std::abs(mean - exact.precision_mean[g]) < 4.0 * se);
  }
}
