// Barber & Bishop Figure 2 (experiments/src/posterior_figure): the grid normalizer against
// adaptive quadrature, grid convergence, Q's mass inside the box, and the paper's ordering of
// KL(Q||P): Laplace > diagonal ensemble > full-covariance ensemble.
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "datasets/src/synthetic.hpp"
#include "experiments/src/posterior_figure.hpp"

TEST_CASE("two-weight posterior figure: normalizer, grid convergence and KL ordering", "[figure]") {
  const bnn::data::Dataset data = bnn::data::generate_synthetic("bb-toy", {"bb-toy", 6, 5});
  bnn::exp::PosteriorFigureOptions options;
  options.grid_points = 301;
  options.plot_points = 11;
  options.restarts = 2;
  const bnn::exp::PosteriorFigure figure = bnn::exp::two_parameter_posterior_figure(data, options);

  // log p(D) by nested adaptive quadrature over the same box.
  using boost::math::quadrature::gauss_kronrod;
  auto joint = [&](double u, double v) {
    double sse = 0.0;
    for (Eigen::Index i = 0; i < data.y.size(); ++i) {
      const double r = v * std::erf(u * data.X(i, 0) / std::numbers::sqrt2) - data.y[i];
      sse += r * r;
    }
    return std::pow(options.beta / (2 * std::numbers::pi), 3.0) * std::exp(-0.5 * options.beta * sse) *
           options.alpha / (2 * std::numbers::pi) * std::exp(-0.5 * options.alpha * (u * u + v * v));
  };
  const double evidence = gauss_kronrod<double, 31>::integrate(
      [&](double u) {
        return gauss_kronrod<double, 31>::integrate([&](double v) { return joint(u, v); }, figure.v_min,
                                                    figure.v_max, 15, 1e-10);
      },
      figure.u_min, figure.u_max, 15, 1e-9);
  CHECK(figure.log_normalizer_fine == Approx(std::log(evidence)).margin(1e-4));
  CHECK(figure.log_normalizer == Approx(figure.log_normalizer_fine).margin(1e-3));

  REQUIRE(figure.fits.size() == 3);
  const auto& laplace = figure.fits[0];
  const auto& diagonal = figure.fits[1];
  const auto& full = figure.fits[2];
  CHECK(laplace.method == "laplace");
  CHECK(diagonal.method == "vi-diag");
  CHECK(full.method == "vi-full");
  for (const auto& fit : figure.fits) {
    INFO(fit.method << ": KL " << fit.kl << ", fine " << fit.kl_fine);
    CHECK(fit.kl == Approx(fit.kl_fine).margin(1e-3));
    CHECK(fit.mass == Approx(1.0).margin(1e-6));
    // Each Gaussian covers one of the two symmetric modes: KL >= about log 2.
    CHECK(fit.kl > 0.6);
  }
  CHECK(laplace.kl > diagonal.kl);
  CHECK(diagonal.kl > full.kl);
  // The full-covariance bound is at least as tight as the diagonal one.
  CHECK(full.objective >= diagonal.objective - 1e-6);
  CHECK(figure.plot.rows() == 11 * 11);
}
