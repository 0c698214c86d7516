// Barber & Bishop Figure 2 (experiments/src/artifacts/posterior_grid): KL(Q||P) of the
// Laplace and ensemble Gaussians against the exact posterior of the two-weight network on a
// grid. The grid normalizer against adaptive quadrature, grid convergence, Q's mass inside the
// box, and the paper's ordering: Laplace > diagonal ensemble > full-covariance ensemble.
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "datasets/src/synthetic.hpp"
#include "experiments/src/artifacts/posterior_grid.hpp"
#include "methods/registry.hpp"

using namespace bnn;

TEST_CASE("posterior grid: normalizer, grid convergence and the paper's KL ordering", "[artifacts]") {
  const data::Dataset data = data::generate_synthetic("bb-toy", {"bb-toy", 6, 5});
  const RegressionData train{data.X, data.y};
  const double alpha = 1.0, beta = 100.0;
  const ParamMap common = {{"hidden_units", "1"},  {"input_bias", "false"}, {"output_bias", "false"},
                           {"initial_alpha", "1"}, {"initial_beta", "100"}, {"restarts", "2"}};
  exp::ArtifactSpec::PosteriorGrid grid;
  grid.box[0] = {-8.0, 8.0, 0};
  grid.box[1] = {-8.0, 8.0, 0};
  grid.cells = 301;
  grid.plot[0] = {-3.0, 3.0, 11};
  grid.plot[1] = {-2.0, 2.0, 11};

  struct Result {
    exp::PosteriorGridResult grid;
    double objective;
  };
  const auto score = [&](const std::string& method, ParamMap options) {
    options.insert(common.begin(), common.end());
    Rng rng(7);
    const auto model = find_method(method).fit(train, options, rng);
    const auto q = model->gaussian_posterior();
    REQUIRE(q);
    CHECK(q->names == std::vector<std::string>{"u1.1", "v1"});
    const exp::LogJoint log_joint = [&](const Eigen::MatrixXd& W) { return *model->log_joint(train, W); };
    return Result{exp::integrate_posterior(log_joint, *q, grid), q->objective};
  };
  const Result laplace = score("laplace", {{"evidence_iterations", "0"}});
  const Result diagonal = score("vi-diag", {{"update_hyperparameters", "false"}});
  const Result full = score("vi-full", {{"update_hyperparameters", "false"}});

  // log p(D) by nested adaptive quadrature over the same box.
  using boost::math::quadrature::gauss_kronrod;
  const auto joint = [&](double u, double v) {
    double sse = 0.0;
    for (Eigen::Index i = 0; i < data.y.size(); ++i) {
      const double r = v * std::erf(u * data.X(i, 0) / std::numbers::sqrt2) - data.y[i];
      sse += r * r;
    }
    return std::pow(beta / (2 * std::numbers::pi), 3.0) * std::exp(-0.5 * beta * sse) * alpha / (2 * std::numbers::pi) *
           std::exp(-0.5 * alpha * (u * u + v * v));
  };
  const double evidence = gauss_kronrod<double, 31>::integrate(
      [&](double u) {
        return gauss_kronrod<double, 31>::integrate([&](double v) { return joint(u, v); }, -8.0, 8.0, 15, 1e-10);
      },
      -8.0, 8.0, 15, 1e-9);
  for (const Result* r : {&laplace, &diagonal, &full}) {
    INFO("KL " << r->grid.kl << ", fine " << r->grid.kl_fine);
    CHECK(r->grid.log_normalizer_fine == Approx(std::log(evidence)).margin(1e-4));
    CHECK(r->grid.log_normalizer == Approx(r->grid.log_normalizer_fine).margin(1e-3));
    CHECK(r->grid.kl == Approx(r->grid.kl_fine).margin(1e-3));
    CHECK(r->grid.mass == Approx(1.0).margin(1e-6));
    // Each Gaussian covers one of the two symmetric modes: KL >= about log 2.
    CHECK(r->grid.kl > 0.6);
    REQUIRE(r->grid.plot.rows() == 11 * 11);
    CHECK(r->grid.plot(0, 0) == -3.0);
    CHECK(r->grid.plot(0, 1) == -2.0);
    CHECK(r->grid.plot(120, 0) == 3.0);
  }
  CHECK(laplace.grid.kl > diagonal.grid.kl);
  CHECK(diagonal.grid.kl > full.grid.kl);
  // The full-covariance bound is at least as tight as the diagonal one.
  CHECK(full.objective >= diagonal.objective - 1e-6);
  // The same model, so the same posterior on the plot grid.
  CHECK(laplace.grid.plot.col(2).isApprox(full.grid.plot.col(2), 1e-12));
}

TEST_CASE("posterior grid: a Gaussian over more than two parameters is refused", "[artifacts]") {
  GaussianPosterior q;
  q.mean = Eigen::VectorXd::Zero(3);
  q.covariance = Eigen::MatrixXd::Identity(3, 3);
  exp::ArtifactSpec::PosteriorGrid grid;
  grid.box[0] = grid.box[1] = {-1.0, 1.0, 0};
  grid.cells = 50;
  CHECK_THROWS_WITH(
      exp::integrate_posterior([](const Eigen::MatrixXd& W) { return Eigen::VectorXd(W.rows()); }, q, grid),
      Catch::Contains("needs a model with two parameters; this one has 3"));
}
