// NN-MC / HMC: network gradients against finite differences, leapfrog reversibility and its
// O(eps^2) energy error, the sampler against the exact posterior of Bayesian linear
// regression (z-test with the effective sample size), the Gibbs conditionals, Neal's
// curvature against the exact Hessian of a linear model, and R-hat / ESS on AR(1) chains
// whose effective sample size is known in closed form.
#include <Eigen/LU>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "methods/core/mlp.hpp"
#include "methods/core/options.hpp"
#include "methods/core/rng.hpp"
#include "methods/core/vector_math.hpp"
#include "methods/hmc/diagnostics.hpp"
#include "methods/hmc/hmc.hpp"
#include "methods/hmc/sampler.hpp"
#include "methods/registry.hpp"
#include "tests/support/finite_difference.hpp"
#include "tests/support/fit_report.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"

using namespace bnn;
using namespace bnn::hmc;
using bnn::test::random_vector;

namespace {

RegressionData toy_data(Eigen::Index n, Eigen::Index d, Rng& rng) {
  RegressionData data{Eigen::MatrixXd(n, d), Eigen::VectorXd(n)};
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) data.X(i, j) = standard_normal(rng);
    data.y[i] = std::sin(data.X(i, 0)) + 0.5 * data.X(i, d - 1) + 0.1 * standard_normal(rng);
  }
  return data;
}

}  // namespace

TEST_CASE("mlp gradient matches central finite differences", "[hmc]") {
  Rng rng(7);
  // 12 and 37 points: less and more than one block of the SIMD kernels (16 points with AVX2),
  // the last block partial
  for (const Eigen::Index n : {12, 37}) {
    const RegressionData data = toy_data(n, 3, rng);
    for (const auto& [activation, hidden] : std::vector<std::pair<std::string, std::vector<int>>>{
             {"tanh", {}}, {"tanh", {5}}, {"erf", {4}}, {"relu", {4}}, {"tanh", {4, 3}}, {"relu", {3, 3}}}) {
      const MlpShape shape{3, hidden, parse_activation(activation, "test")};
      const Eigen::VectorXd theta = random_vector(shape.parameter_count(), rng, 0.7);
      MlpWorkspace ws;
      Eigen::VectorXd gradient;
      mlp_squared_error(shape, theta, data.X, data.y, ws, &gradient);
      const Eigen::VectorXd fd = test::numeric_gradient(
          [&](const Eigen::VectorXd& at) { return mlp_squared_error(shape, at, data.X, data.y, ws, nullptr); }, theta,
          1e-6);
      INFO(activation << " layers " << hidden.size() << " points " << n);
      CHECK(test::close_to(gradient, fd, 1e-5, 1e-7));
    }
  }
}

TEST_CASE("mlp outputs agree with a direct evaluation", "[hmc]") {
  Rng rng(3);
  const MlpShape shape{2, {3}, Activation::tanh};
  const Eigen::VectorXd theta = random_vector(shape.parameter_count(), rng);
  Eigen::MatrixXd X(1, 2);
  X << 0.3, -1.2;
  MlpWorkspace ws;
  Eigen::VectorXd out;
  mlp_outputs(shape, theta, X, ws, out);
  // layout: W (3 x 2, row-major), b (3), v (3), c
  double f = theta[3 * 2 + 3 + 3];
  for (int k = 0; k < 3; ++k)
    f += theta[9 + k] * std::tanh(theta[2 * k] * 0.3 + theta[2 * k + 1] * -1.2 + theta[6 + k]);
  CHECK(out[0] == Approx(f).epsilon(1e-13));
}

TEST_CASE("mlp outputs of a point do not depend on the other points", "[hmc]") {
  Rng rng(9);
  const RegressionData data = toy_data(37, 4, rng);
  for (const Activation activation : {Activation::tanh, Activation::relu, Activation::erf}) {
    const MlpShape shape{4, {6, 3}, activation};
    const Eigen::VectorXd theta = random_vector(shape.parameter_count(), rng, 0.8);
    MlpWorkspace ws;
    Eigen::VectorXd all, one;
    mlp_outputs(shape, theta, data.X, ws, all);
    for (Eigen::Index i = 0; i < data.X.rows(); ++i) {
      mlp_outputs(shape, theta, data.X.row(i), ws, one);
      CHECK(one[0] == all[i]);  // same bits at any position in the SIMD blocks
    }
  }
}

TEST_CASE("vector_math::tanh is within 1e-15 relative of std::tanh", "[hmc]") {
  // |x| from subnormal to 1e3 on a log grid, a dense grid over [0, 25], both signs
  std::vector<double> values = {0.0, 4.9e-324, 1e-310, 0.1733, 0.5199, 18.5, 19.1, 20.0, 20.5};
  for (double e = -300.0; e < 3.0; e += 0.0137) values.push_back(std::pow(10.0, e));
  for (double x = 0.0; x < 25.0; x += 1.0 / 1024.0 + 1e-9) values.push_back(x);
  const Eigen::Index n = static_cast<Eigen::Index>(values.size());
  Eigen::ArrayXd x(2 * n + 1), y(2 * n + 1);  // odd size: the last SIMD packet is padded
  for (Eigen::Index i = 0; i < n; ++i) {
    x[2 * i] = values[static_cast<std::size_t>(i)];
    x[2 * i + 1] = -values[static_cast<std::size_t>(i)];
  }
  x[2 * n] = 0.3;
  vector_math::tanh(x.data(), y.data(), static_cast<std::size_t>(x.size()));
  double worst = 0.0;
  for (Eigen::Index i = 0; i <= 2 * n; ++i) {
    const double exact = std::tanh(x[i]);
    worst = std::max(worst, exact == 0.0 ? std::abs(y[i]) : std::abs(y[i] - exact) / std::abs(exact));
    CHECK(std::signbit(y[i]) == std::signbit(x[i]));
  }
  INFO("max relative error " << worst);
  CHECK(worst < 1e-15);  // measured 4.7e-16 here; 4.8e-16 (3.1 ulp) against tanhl on 8e6 points
  for (Eigen::Index i = 0; i < n; ++i) CHECK(y[2 * i + 1] == -y[2 * i]);

  const double inf = std::numeric_limits<double>::infinity();
  Eigen::ArrayXd special(3), result(3);
  special << inf, -inf, std::numeric_limits<double>::quiet_NaN();
  vector_math::tanh(special.data(), result.data(), 3);
  CHECK(result[0] == 1.0);
  CHECK(result[1] == -1.0);
  CHECK(std::isnan(result[2]));  // a NaN weight must stay visible to the sampler
}

TEST_CASE("hmc_transition draws fresh momenta whatever the size of the caller's p", "[hmc]") {
  const Potential gaussian = [](const Eigen::VectorXd& q, Eigen::VectorXd& gradient) {
    gradient = q;
    return 0.5 * q.squaredNorm();
  };
  PhasePoint state;
  state.q = Eigen::Vector2d(1.0, -0.5);
  state.potential = gaussian(state.q, state.gradient);  // p left empty
  Rng rng(2);
  const TransitionInfo info = hmc_transition(gaussian, Eigen::Vector2d::Ones(), 0.3, 5, 0.0, state, rng);
  CHECK(std::isfinite(info.accept_probability));
  CHECK(state.q != Eigen::Vector2d(1.0, -0.5));  // accepted: the energy error of 5 steps of 0.3 is small
}

TEST_CASE("leapfrog is reversible and its energy error shrinks as eps^2", "[hmc]") {
  Rng rng(11);
  const RegressionData data = toy_data(30, 2, rng);
  const MlpShape shape{2, {4}, Activation::tanh};
  MlpWorkspace ws;
  Eigen::VectorXd error_gradient;
  const Potential U = [&](const Eigen::VectorXd& q, Eigen::VectorXd& g) {
    const double E = mlp_squared_error(shape, q, data.X, data.y, ws, &error_gradient);
    g = 4.0 * error_gradient + q;
    return 4.0 * E + 0.5 * q.squaredNorm();
  };
  const Eigen::VectorXd inverse_metric = Eigen::VectorXd::Constant(shape.parameter_count(), 0.05);
  PhasePoint start;
  start.q = random_vector(shape.parameter_count(), rng, 0.5);
  start.p = random_vector(shape.parameter_count(), rng, 3.0);
  start.potential = U(start.q, start.gradient);

  PhasePoint s = start;
  REQUIRE(leapfrog(U, inverse_metric, 0.05, 40, s));
  s.p = -s.p;
  REQUIRE(leapfrog(U, inverse_metric, 0.05, 40, s));
  CHECK((s.q - start.q).cwiseAbs().maxCoeff() < 1e-10);
  CHECK((s.p + start.p).cwiseAbs().maxCoeff() < 1e-10);

  // Same trajectory length T = 1 with eps and eps / 2: the energy error falls about 4-fold.
  const auto energy_error = [&](double eps) {
    PhasePoint t = start;
    const double h0 = t.potential + kinetic_energy(t.p, inverse_metric);
    REQUIRE(leapfrog(U, inverse_metric, eps, static_cast<int>(std::lround(1.0 / eps)), t));
    return std::abs(t.potential + kinetic_energy(t.p, inverse_metric) - h0);
  };
  const double e1 = energy_error(0.02), e2 = energy_error(0.01), e3 = energy_error(0.005);
  CHECK(e1 / e2 == Approx(4.0).epsilon(0.25));
  CHECK(e2 / e3 == Approx(4.0).epsilon(0.25));
}

TEST_CASE("Neal's curvature is the exact Hessian diagonal of a linear model", "[hmc]") {
  Rng rng(5);
  const RegressionData data = toy_data(25, 3, rng);
  const MlpShape shape{3, {}, Activation::tanh};
  Options options;
  const PriorGroups groups = make_prior_groups(shape, options);
  const Eigen::VectorXd precision = Eigen::VectorXd::Constant(groups.shape.size(), 2.5);
  const double noise_precision = 7.0;
  const Eigen::VectorXd c =
      neal_curvature(shape, groups, precision, noise_precision, data.X.colwise().squaredNorm().transpose(), 25.0);
  Eigen::MatrixXd design(25, 4);
  design << data.X, Eigen::VectorXd::Ones(25);
  const Eigen::VectorXd exact = noise_precision * design.colwise().squaredNorm().transpose() + groups.multiplier * 2.5;
  CHECK(test::close_to(c, exact, 1e-12));
}

TEST_CASE("prior groups follow the ARD, layer and shared structures", "[hmc]") {
  const MlpShape shape{3, {4}, Activation::tanh};
  Options options;
  PriorGroups ard = make_prior_groups(shape, options);
  CHECK(ard.names.size() == 3 + 1 + 2);                  // 3 inputs, hidden biases, output weights, output bias
  CHECK(ard.group[0] == 0);                              // W[0][0]: input 1
  CHECK(ard.group[1] == 1);                              // W[0][1]: input 2
  CHECK(ard.group[3] == 0);                              // W[1][0]: input 1
  CHECK(ard.multiplier[shape.weight_offset(1)] == 4.0);  // output weights: variance / units
  options.prior = "layer";
  CHECK(make_prior_groups(shape, options).names.size() == 4);
  options.prior = "shared";
  const PriorGroups shared = make_prior_groups(shape, options);
  CHECK(shared.names.size() == 1);
  CHECK(shared.multiplier[0] == 4.0);                       // inputs + 1
  CHECK(shared.multiplier[shape.weight_offset(1)] == 5.0);  // units + 1
}

TEST_CASE("Gibbs precision draws follow their Gamma conditional", "[hmc]") {
  const MlpShape shape{2, {3}, Activation::tanh};
  Options options;
  options.prior = "layer";
  PriorGroups groups = make_prior_groups(shape, options);
  // the output bias is a group of one: prior shape 0.1 gives a conditional shape 0.6 < 1, the
  // branch of gamma_draw that boosts the shape by one
  groups.shape[groups.group.back()] = 0.1;
  Rng rng(21);
  const Eigen::VectorXd theta = random_vector(shape.parameter_count(), rng, 0.8);
  Eigen::VectorXd count = Eigen::VectorXd::Zero(groups.shape.size()), ss = count;
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    count[groups.group[i]] += 1;
    ss[groups.group[i]] += groups.multiplier[i] * theta[i] * theta[i];
  }
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(groups.shape.size()), sum_squares = sum;
  const int draws = 40000;
  for (int k = 0; k < draws; ++k) {
    const Eigen::VectorXd precision = gibbs_precisions(groups, theta, rng);
    sum += precision;
    sum_squares += precision.cwiseAbs2();
  }
  double smallest_shape = std::numeric_limits<double>::infinity();
  for (Eigen::Index g = 0; g < sum.size(); ++g) {
    const double shape_post = groups.shape[g] + 0.5 * count[g], rate_post = groups.rate[g] + 0.5 * ss[g];
    smallest_shape = std::min(smallest_shape, shape_post);
    const double mean = sum[g] / draws, variance = sum_squares[g] / draws - mean * mean;
    const double expected = shape_post / rate_post, expected_variance = shape_post / (rate_post * rate_post);
    INFO("group " << g << ", shape " << shape_post << ", rate " << rate_post);
    CHECK(std::abs(mean - expected) < 4.0 * std::sqrt(expected_variance / draws));
    // sd of the sample variance: sigma^2 sqrt((kurtosis - 1) / n), Gamma kurtosis 3 + 6 / shape
    const double variance_sd = expected_variance * std::sqrt((2.0 + 6.0 / shape_post) / draws);
    CHECK(std::abs(variance - expected_variance) < 4.0 * variance_sd);
  }
  CHECK(smallest_shape < 1.0);
}

TEST_CASE("two-level ARD: linked input groups and the common variance's conditional", "[hmc]") {
  const MlpShape shape{3, {4}, Activation::tanh};
  Options options;
  options.prior = "ard2";
  options.input_prior_scale = 0.05;
  options.input_individual_shape = 0.5;
  options.weight_prior_shape = 0.25;
  PriorGroups groups = make_prior_groups(shape, options);
  REQUIRE(groups.linked == std::vector<int>{0, 1, 2});  // the three input groups only
  CHECK(groups.names.size() == 3 + 1 + 2);
  CHECK(groups.shape[0] == 0.5);
  CHECK(groups.rate[0] == Approx(0.5 * 0.0025));  // mean precision 1 / scale^2 to start
  CHECK(groups.common_shape == 0.25);
  CHECK(groups.common_rate == Approx(0.25 * 0.0025));
  const double output_rate = groups.rate[4];
  groups.set_common_variance(0.01);
  CHECK(groups.rate[2] == Approx(0.005));
  CHECK(groups.rate[4] == output_rate);

  // The slice sampler's draws of v = log u against the conditional's mean by quadrature:
  // log p(v) = (sum a_j - a0) v - (sum a_j tau_j) e^v - r0 e^-v.
  Eigen::VectorXd precision = Eigen::VectorXd::Ones(groups.shape.size());
  precision.head(3) << 400.0, 9000.0, 2.0;  // one relevant input, two pruned ones
  const double a = 1.5, weighted = 0.5 * (400.0 + 9000.0 + 2.0), a0 = 0.25, r0 = 0.25 * 0.0025;
  const auto log_density = [&](double v) { return (a - a0) * v - weighted * std::exp(v) - r0 * std::exp(-v); };
  double z = 0.0, first = 0.0;
  for (double v = -30.0; v <= 10.0; v += 1e-3) {
    const double w = std::exp(log_density(v) - log_density(-8.0));
    z += w;
    first += w * v;
  }
  const double expected = first / z;
  Chains draws(4);
  for (std::size_t c = 0; c < draws.size(); ++c) {
    Rng rng(100 + c);
    double u = 1.0;  // far from the bulk: the stepping-out must find it
    for (int k = 0; k < 6000; ++k) {
      u = draw_common_variance(groups, precision, u, rng);
      if (k >= 1000) draws[c].push_back(std::log(u));
    }
  }
  double mean = 0.0, count = 0.0, sq = 0.0;
  for (const auto& chain : draws)
    for (const double v : chain) {
      mean += v;
      sq += v * v;
      count += 1.0;
    }
  mean /= count;
  const double sd = std::sqrt(sq / count - mean * mean);
  CHECK(split_rhat(draws) < 1.01);
  CHECK(std::abs(mean - expected) < 4.0 * sd / std::sqrt(ess_bulk(draws)));
}

TEST_CASE("HMC reproduces the exact posterior of Bayesian linear regression", "[hmc]") {
  Rng rng(1);
  const RegressionData data = toy_data(40, 3, rng);
  const MlpShape shape{3, {}, Activation::tanh};
  // With parallel tempering the beta = 1 replica must still sample the posterior: a wrong swap
  // rule would leak the hotter replicas' wider draws into it (at beta = 0.2 the variances are 5x).
  for (const auto& [metric, replicas] : {std::pair<std::string, int>{"neal", 1}, {"adapted", 1}, {"neal", 4}}) {
    Options o;
    o.metric = metric;
    o.tempering_replicas = replicas;
    o.tempering_min_beta = 0.2;
    o.update_hyperparameters = false;  // precisions stay at their prior means: a Gaussian posterior
    o.noise_prior_scale = 0.3;
    o.input_prior_scale = 2.0;
    o.chains = 4;
    o.warmup = 500;
    o.samples = 8000;
    o.thin = 1;
    o.leapfrog_steps = 10;
    const PriorGroups groups = make_prior_groups(shape, o);
    Eigen::VectorXd prior(4);
    for (Eigen::Index i = 0; i < 4; ++i)
      prior[i] = groups.multiplier[i] * groups.shape[groups.group[i]] / groups.rate[groups.group[i]];
    const double tau = 1.0 / (0.3 * 0.3);
    Eigen::MatrixXd design(40, 4);
    design << data.X, Eigen::VectorXd::Ones(40);
    const Eigen::MatrixXd precision = tau * design.transpose() * design + Eigen::MatrixXd(prior.asDiagonal());
    const Eigen::MatrixXd covariance = precision.inverse();
    const Eigen::VectorXd mean = covariance * (tau * design.transpose() * data.y);

    std::vector<ChainResult> chains;
    for (int c = 0; c < o.chains; ++c)
      chains.push_back(
          run_chain(shape, groups, data, o, data.X.topRows(2), derive_seed(99, static_cast<std::uint64_t>(c))));
    for (Eigen::Index i = 0; i < 4; ++i) {
      Chains draws;
      for (const auto& c : chains) {
        REQUIRE(c.error.empty());
        std::vector<double> v;
        for (const auto& d : c.draws) v.push_back(d.theta[i]);
        draws.push_back(v);
      }
      double m = 0.0, m2 = 0.0, count = 0.0;
      for (const auto& c : draws)
        for (double x : c) {
          m += x;
          m2 += x * x;
          count += 1.0;
        }
      m /= count;
      const double variance = m2 / count - m * m;
      const double ess = ess_bulk(draws);
      INFO(metric << " metric, " << replicas << " replica(s), parameter " << i << " ess " << ess);
      CHECK(split_rhat(draws) < 1.01);
      CHECK(std::abs(m - mean[i]) < 4.0 * std::sqrt(covariance(i, i) / ess));
      CHECK(variance == Approx(covariance(i, i)).epsilon(0.1));  // 10% at ESS in the thousands
    }
  }
}

TEST_CASE("R-hat and ESS reproduce AR(1) values", "[hmc]") {
  Rng rng(17);
  const double phi = 0.5;
  const auto ar1 = [&](double offset) {
    Chains chains(4);
    for (auto& c : chains) {
      double x = standard_normal(rng) / std::sqrt(1.0 - phi * phi);
      for (int t = 0; t < 5000; ++t) {
        x = phi * x + standard_normal(rng);
        c.push_back(x);
      }
    }
    chains[0] = std::vector<double>(chains[0]);
    for (double& x : chains[0]) x += offset;
    return chains;
  };
  const Chains good = ar1(0.0);
  const double expected = 20000.0 * (1.0 - phi) / (1.0 + phi);  // N / (1 + 2 sum phi^t)
  CHECK(ess_bulk(good) == Approx(expected).epsilon(0.12));
  CHECK(basic_ess(good) == Approx(expected).epsilon(0.12));
  CHECK(split_rhat(good) < 1.01);
  CHECK(split_rhat(ar1(1.5)) > 1.1);  // one chain off by ~1.3 sd
  Chains iid(4);
  for (auto& c : iid)
    for (int t = 0; t < 2000; ++t) c.push_back(standard_normal(rng));
  CHECK(ess_bulk(iid) == Approx(8000.0).epsilon(0.1));
}

TEST_CASE("nn-mc fits and predicts a mixture deterministically", "[hmc]") {
  Rng data_rng(4);
  const RegressionData data = toy_data(60, 2, data_rng);
  const MethodEntry& method = find_method("nn-mc");
  // the adapted metric mixes well here: two chains of 750 kept draws agree
  const ParamMap params{{"hidden_layers", "5"},   {"warmup", "500"}, {"samples", "3000"},  {"thin", "2"},
                        {"leapfrog_steps", "50"}, {"chains", "2"},   {"metric", "adapted"}};
  Rng rng1(8), rng2(8);
  const auto m1 = method.fit(data, params, rng1);
  const auto m2 = method.fit(data, params, rng2);
  const auto p1 = m1->predict(data.X);
  const auto p2 = m2->predict(data.X);
  CHECK(p1->kind() == "gaussian-mixture");
  double squared_error = 0.0;
  for (Eigen::Index i = 0; i < data.X.rows(); ++i) {
    CHECK(p1->mean(i) == p2->mean(i));
    CHECK(p1->log_density(i, data.y[i]) == p2->log_density(i, data.y[i]));
    squared_error += std::pow(p1->mean(i) - data.y[i], 2);
  }
  Eigen::MatrixXd design(60, 3);
  design << data.X, Eigen::VectorXd::Ones(60);
  const Eigen::VectorXd linear_fit = design * (design.transpose() * design).inverse() * design.transpose() * data.y;
  const double sd_y = std::sqrt((data.y.array() - data.y.mean()).square().mean());
  const double rmse = std::sqrt(squared_error / 60.0);
  const double linear_rmse = std::sqrt((linear_fit - data.y).squaredNorm() / 60.0);
  INFO("rmse " << rmse << ", least-squares plane " << linear_rmse << ", sd(y) " << sd_y);
  // noise sd 0.1; the best plane misses sin(x1) and leaves about 0.25; sd(y) is about 0.76
  CHECK(rmse < 0.25 * sd_y);
  CHECK(rmse < 0.7 * linear_rmse);
  const FitReport& report = m1->report();
  CHECK(report.status == FitStatus::ok);
  CHECK(report.warnings.empty());
  const double accept = test::diagnostic(report, "accept_rate");
  CHECK(accept > 0.6);
  CHECK(accept < 0.995);
  for (const char* name : {"rhat_loglik", "rhat_noise", "rhat_pred_max"}) {
    INFO(name);
    const double rhat = test::diagnostic(report, name);
    CHECK(std::isfinite(rhat));
    CHECK(rhat < 1.1);
  }
  CHECK(test::diagnostic(report, "ess_pred_min") > 20.0);
}

TEST_CASE("nn-mc with two-level ARD keeps the relevant inputs and shrinks the others", "[hmc]") {
  Rng data_rng(6);
  const RegressionData data = toy_data(120, 5, data_rng);  // y depends on inputs 1 and 5 only
  const ParamMap params{{"hidden_layers", "5"},   {"warmup", "300"}, {"samples", "400"}, {"thin", "2"},
                        {"leapfrog_steps", "10"}, {"chains", "2"},   {"prior", "ard2"},  {"input_prior_scale", "0.05"}};
  Rng rng(9);
  const auto model = find_method("nn-mc").fit(data, params, rng);
  const FitReport& report = model->report();
  REQUIRE(report.status == FitStatus::ok);
  const double common = test::diagnostic(report, "sd.inputs_common");
  CHECK(std::isfinite(common));
  CHECK(common > 0.0);
  CHECK(std::abs(common - 0.05) > 1e-3);  // sampled, not left at its prior scale
  for (const char* irrelevant : {"sd.input_2", "sd.input_3", "sd.input_4"}) {
    INFO(irrelevant);
    CHECK(test::diagnostic(report, irrelevant) < test::diagnostic(report, "sd.input_1"));
    CHECK(test::diagnostic(report, irrelevant) < test::diagnostic(report, "sd.input_5"));
  }
}

TEST_CASE("nn-mc rejects bad options with a clear message", "[hmc]") {
  const MethodEntry& method = find_method("nn-mc");
  CHECK_THROWS_WITH(method.canonical_config({{"leapfrog_steps", "0"}}),
                    Catch::Contains("nn-mc: leapfrog_steps is 0, but must be >= 1"));
  CHECK_THROWS_WITH(method.canonical_config({{"metric", "euclid"}}), Catch::Contains("metric is 'euclid'"));
  CHECK_THROWS_WITH(method.canonical_config({{"activation", "sigmoid"}}),
                    Catch::Contains("nn-mc: activation is 'sigmoid', but must be tanh, relu or erf"));
  CHECK_THROWS_WITH(method.canonical_config({{"samples", "10"}}), Catch::Contains("samples is 10"));
  CHECK_THROWS_WITH(method.canonical_config({{"prior", "ard3"}}),
                    Catch::Contains("prior is 'ard3', but must be ard, ard2, layer or shared"));
  CHECK_THROWS_WITH(method.canonical_config({{"input_individual_shape", "0"}}),
                    Catch::Contains("nn-mc: input_individual_shape is 0"));
  CHECK_THROWS_WITH(method.canonical_config({{"tempering_replicas", "0"}}),
                    Catch::Contains("nn-mc: tempering_replicas is 0, but must be >= 1"));
  CHECK_THROWS_WITH(method.canonical_config({{"tempering_min_beta", "1"}}),
                    Catch::Contains("nn-mc: tempering_min_beta is 1"));
}

TEST_CASE("dual averaging moves the step size against a constant acceptance error", "[hmc]") {
  // For a constant acceptance a, h_bar_t = (target - a) t / (t + 10) (the weights 1/(t + 10)
  // telescope), so log step_t = log(10 step_0) - sqrt(t) / 0.05 (target - a) t / (t + 10).
  for (const double accept : {0.95, 0.6}) {
    StepSizeAdapter adapter(0.8);
    adapter.restart(0.1);
    double previous = 10.0 * 0.1, log_step_bar = 0.0;
    for (long t = 1; t <= 50; ++t) {
      const double step = adapter.update(accept);
      const double iteration = static_cast<double>(t);
      const double expected =
          std::log(1.0) - std::sqrt(iteration) / 0.05 * (0.8 - accept) * iteration / (iteration + 10.0);
      INFO("accept " << accept << ", t " << t);
      CHECK(std::log(step) == Approx(expected).epsilon(1e-12).margin(1e-12));
      if (accept > 0.8)
        CHECK(step > previous);
      else
        CHECK(step < previous);
      previous = step;
      const double eta = std::pow(static_cast<double>(t), -0.75);
      log_step_bar = eta * expected + (1.0 - eta) * log_step_bar;
    }
    CHECK(std::log(adapter.final_step()) == Approx(log_step_bar).epsilon(1e-12));
  }
}

TEST_CASE("dual averaging on a 1-D Gaussian reaches the target acceptance", "[hmc]") {
  // U(q) = q^2 / 2; each acceptance is of one leapfrog step from an exact draw q ~ N(0, 1)
  // (longer trajectories return to zero energy error at some steps: acceptance not monotone).
  const Potential U = [](const Eigen::VectorXd& q, Eigen::VectorXd& g) {
    g = q;
    return 0.5 * q.squaredNorm();
  };
  const Eigen::VectorXd inverse_metric = Eigen::VectorXd::Ones(1);
  Rng rng(21);
  const auto accept = [&](double step) {
    PhasePoint point;
    point.q = Eigen::VectorXd::Constant(1, standard_normal(rng));
    point.p = Eigen::VectorXd::Zero(1);  // hmc_transition draws into p as sized
    point.potential = U(point.q, point.gradient);
    return hmc_transition(U, inverse_metric, step, 1, 0.0, point, rng).accept_probability;
  };
  StepSizeAdapter adapter(0.8);
  adapter.restart(0.05);
  double step = 0.05;
  for (int t = 0; t < 3000; ++t) step = adapter.update(accept(step));
  const double adapted = adapter.final_step();
  // The step whose mean acceptance over 20000 fixed (q, p) draws is the target, by bisection.
  Eigen::MatrixXd qp(20000, 2);
  for (Eigen::Index i = 0; i < qp.rows(); ++i) qp.row(i) << standard_normal(rng), standard_normal(rng);
  const auto mean_accept = [&](double eps) {
    double sum = 0.0;
    for (Eigen::Index i = 0; i < qp.rows(); ++i) {
      PhasePoint point;
      point.q = Eigen::VectorXd::Constant(1, qp(i, 0));
      point.p = Eigen::VectorXd::Constant(1, qp(i, 1));
      point.potential = U(point.q, point.gradient);
      const double h0 = point.potential + kinetic_energy(point.p, inverse_metric);
      leapfrog(U, inverse_metric, eps, 1, point);
      sum += std::min(1.0, std::exp(h0 - point.potential - kinetic_energy(point.p, inverse_metric)));
    }
    return sum / static_cast<double>(qp.rows());
  };
  double low = 0.05, high = 1.95;
  for (int i = 0; i < 40; ++i) {
    const double middle = 0.5 * (low + high);
    if (mean_accept(middle) > 0.8)
      low = middle;
    else
      high = middle;
  }
  INFO("adapted step " << adapted << ", step with acceptance 0.8 " << low);
  // Averaging log(step) (not the acceptance) leaves the acceptance a little above the target.
  CHECK(adapted == Approx(low).epsilon(0.1));
  CHECK(mean_accept(adapted) == Approx(0.8).epsilon(0.04));
  CHECK(adapted > 0.05);  // the adaptation moved away from the (too small) initial step
}

TEST_CASE("warm-up schedule: initial buffer, doubling metric windows, terminal buffer", "[hmc]") {
  // Stan's layout for 1000 iterations: buffer 75, windows 25, 50, 100, 200 and the last one
  // stretched to the terminal buffer of 50.
  const WarmupSchedule schedule(1000);
  std::vector<long> ends;
  for (long i = 0; i < 1000; ++i) {
    CHECK(schedule.collecting(i) == (i >= 75 && i < 950));
    if (schedule.window_end(i)) ends.push_back(i + 1);
  }
  CHECK(ends == std::vector<long>{100, 150, 250, 450, 950});
  const WarmupSchedule short_schedule(100);  // buffer 7, windows of at least 5, terminal 5
  ends.clear();
  for (long i = 0; i < 100; ++i)
    if (short_schedule.window_end(i)) ends.push_back(i + 1);
  CHECK(ends == std::vector<long>{12, 22, 42, 95});
  CHECK_FALSE(short_schedule.collecting(6));
  CHECK(short_schedule.collecting(7));
  CHECK(short_schedule.collecting(94));
  CHECK_FALSE(short_schedule.collecting(95));
}

TEST_CASE("variance window regularizes the sample variance towards 1e-3", "[hmc]") {
  VarianceWindow window;
  const std::vector<Eigen::Vector2d> draws = {{1.0, -2.0}, {3.0, 0.5}, {2.5, 1.0}, {-0.5, 4.0}, {1.5, 2.0}};
  for (int pass = 0; pass < 2; ++pass) {  // the second pass after clear(): nothing remembered
    for (const auto& d : draws) window.add(d);
    REQUIRE(window.count() == 5);
    // sample variances (n - 1 = 4): means 1.5 and 1.1
    const double var0 = (0.25 + 2.25 + 1.0 + 4.0 + 0.0) / 4.0;
    const double var1 = (9.61 + 0.36 + 0.01 + 8.41 + 0.81) / 4.0;
    const Eigen::VectorXd r = window.regularized_variance();
    CHECK(r[0] == Approx(0.5 * var0 + 1e-3 * 0.5).epsilon(1e-12));
    CHECK(r[1] == Approx(0.5 * var1 + 1e-3 * 0.5).epsilon(1e-12));
    window.clear();
    for (int k = 0; k < 3; ++k) window.add(Eigen::Vector2d(100.0, -100.0));  // a different window in between
    window.clear();
  }
}
