// GP with the neural-network covariance: the kernel against a Monte Carlo estimate of a wide
// random erf network, its vectorized asin against std::asin, gradients against finite
// differences, positive semi-definiteness, the inverse from the Cholesky factor against a dense
// inverse, predictions against a direct dense solve, and the optimizer's restarts.
#include <omp.h>

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "methods/core/lapack.hpp"
#include "methods/core/parallel_pieces.hpp"
#include "methods/core/rng.hpp"
#include "methods/gp/cholesky_inverse.hpp"
#include "methods/gp/gp.hpp"
#include "methods/gp/nn_kernel.hpp"

#include "methods/gp/vectorized_asin.hpp"
#include "methods/registry.hpp"
#include "tests/support/finite_difference.hpp"
#include "tests/support/fit_report.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"

using namespace bnn;
using namespace bnn::gp;
using bnn::test::close_to;
using bnn::test::numeric_derivative;
using bnn::test::numeric_gradient;
using bnn::test::random_matrix;

namespace {

NnKernelParams params(Eigen::Index d) {
  NnKernelParams p;
  p.signal_variance = 1.7;
  p.bias_variance = 0.6;
  p.input_variances = Eigen::VectorXd::LinSpaced(d, 0.3, 2.5);
  return p;
}

// The symmetric kernel matrix from the lower triangle nn_kernel_terms computes.
Eigen::MatrixXd full_kernel(const Eigen::MatrixXd& X, const NnKernelParams& p) {
  return nn_kernel_terms(X, p).kernel.selfadjointView<Eigen::Lower>();
}

RegressionData sine_data(Eigen::Index n, Eigen::Index d, Rng& rng) {
  RegressionData data{random_matrix(n, d, rng), Eigen::VectorXd(n)};
  for (Eigen::Index i = 0; i < n; ++i) data.y[i] = std::sin(1.5 * data.X(i, 0)) + 0.1 * standard_normal(rng);
  return data;
}

}  // namespace

TEST_CASE("NN kernel equals the covariance of a wide random erf network", "[gp]") {
  // E[erf(u'w) erf(u''w)] for w ~ N(0, S), u = (1, x) (Williams 1998), times sf2.
  Rng rng(1);
  const Eigen::Index d = 3;
  const NnKernelParams p = params(d);
  const Eigen::MatrixXd X = random_matrix(4, d, rng);
  const Eigen::MatrixXd K = full_kernel(X, p);
  const long samples = 400000;
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(4, 4), sum_sq = Eigen::MatrixXd::Zero(4, 4);
  Eigen::VectorXd h(4);
  for (long s = 0; s < samples; ++s) {
    const double w0 = std::sqrt(p.bias_variance) * standard_normal(rng);
    Eigen::VectorXd w(d);
    for (Eigen::Index j = 0; j < d; ++j) w[j] = std::sqrt(p.input_variances[j]) * standard_normal(rng);
    for (Eigen::Index i = 0; i < 4; ++i) h[i] = std::erf(w0 + X.row(i).dot(w));
    const Eigen::MatrixXd outer = p.signal_variance * h * h.transpose();
    sum += outer;
    sum_sq += outer.cwiseProduct(outer);
  }
  const Eigen::MatrixXd mc = sum / samples;
  const Eigen::MatrixXd se = ((sum_sq / samples - mc.cwiseProduct(mc)) / samples).cwiseSqrt();
  for (Eigen::Index i = 0; i < 4; ++i)
    for (Eigen::Index j = 0; j < 4; ++j) {
      INFO("pair " << i << "," << j << ": kernel " << K(i, j) << ", Monte Carlo " << mc(i, j) << " +- " << se(i, j));
      CHECK(std::abs(K(i, j) - mc(i, j)) < 4.0 * se(i, j) + 1e-12);
    }
  // Cross and diagonal forms agree with the square one.
  CHECK(nn_kernel_cross(X, X, p).isApprox(K, 1e-12));
  CHECK(nn_kernel_diagonal(X, p).isApprox(K.diagonal(), 1e-12));
}

TEST_CASE("NN kernel matrix is positive semi-definite", "[gp]") {
  Rng rng(2);
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::MatrixXd X = random_matrix(60, 4, rng) * (1.0 + trial);
    const Eigen::MatrixXd K = full_kernel(X, params(4));
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(K);
    CHECK(eig.eigenvalues().minCoeff() > -1e-10 * eig.eigenvalues().maxCoeff());
  }
}

TEST_CASE("NN kernel's asin is within 2 ulp of std::asin", "[gp]") {
  Eigen::ArrayXd x = Eigen::ArrayXd::LinSpaced(200001, -1.0, 1.0);
  x.head(6) << -1.0, -0.975, -0.5, 0.5, 0.975, 1.0;
  x.tail(4) << 1e-300, -1e-160, 1e-8, std::nextafter(1.0, 0.0);
  const Eigen::ArrayXd fast = x.unaryExpr(VectorizedAsin{});  // SIMD path, scalar path for the tail
  double worst_ulps = 0.0, worst_x = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double exact = std::asin(x[i]);
    const double ulp = std::nextafter(std::abs(exact), 2.0) - std::abs(exact);
    if (std::abs(fast[i] - exact) / ulp > worst_ulps) {
      worst_ulps = std::abs(fast[i] - exact) / ulp;
      worst_x = x[i];
    }
  }
  INFO("worst at x = " << worst_x);
  CHECK(worst_ulps <= 2.0);
  CHECK(VectorizedAsin{}(1.0) == std::asin(1.0));
  CHECK(VectorizedAsin{}(-0.3) == Approx(std::asin(-0.3)).epsilon(1e-15));
}

TEST_CASE("inverse from the Cholesky factor equals the dense inverse", "[gp]") {
  Rng rng(9);
  // 1 and 32: one direct block; 33, 200: the recursion with uneven halves; 1000: dpotri.
  for (Eigen::Index n : {1, 32, 33, 200, 1000}) {
    const Eigen::MatrixXd A = random_matrix(n, n, rng);
    Eigen::MatrixXd C = A * A.transpose() / static_cast<double>(n);
    C.diagonal().array() += 0.5;
    Eigen::MatrixXd inverse = C;
    REQUIRE(lapack::cholesky_lower(inverse));
    inverse_from_cholesky_lower(inverse);
    const Eigen::MatrixXd full = inverse.selfadjointView<Eigen::Lower>();
    INFO("n = " << n);
    CHECK((full * C - Eigen::MatrixXd::Identity(n, n)).cwiseAbs().maxCoeff() < 1e-11);
  }
}

TEST_CASE("LAPACK Cholesky and inverse called from two threads at once equal the one-thread result", "[gp]") {
  // Two GP jobs (or a GP's two optimizer starts) factorize at the same time. Debian's serial
  // OpenBLAS, built without locking, returned wrong factors here now and then (a few to dozens
  // of these 2000 calls at n = 128, some at 64).
  Rng rng(21);
  for (Eigen::Index n : {64, 128, 200}) {
    const Eigen::MatrixXd A = random_matrix(n, n, rng);
    Eigen::MatrixXd C = A * A.transpose() / static_cast<double>(n);
    C.diagonal().array() += 0.5;
    Eigen::MatrixXd reference = C;
    REQUIRE(lapack::cholesky_lower(reference));
    lapack::inverse_from_cholesky(reference);
    std::vector<int> mismatches(2, 0);
    run_pieces(
        2,
        [&](int piece) {
          for (int repeat = 0; repeat < 1000; ++repeat) {
            Eigen::MatrixXd M = C;
            const bool ok = lapack::cholesky_lower(M);
            if (ok) lapack::inverse_from_cholesky(M);
            if (!ok || M != reference) ++mismatches[static_cast<std::size_t>(piece)];
          }
        },
        2);
    INFO("n = " << n);
    CHECK(mismatches == std::vector<int>{0, 0});
  }
}

TEST_CASE("The tiled Cholesky factor and inverse equal LAPACK's, the same bits on 1, 2 and 3 threads", "[gp]") {
  Rng rng(22);
  for (const auto& [n, tile] :
       std::vector<std::pair<Eigen::Index, Eigen::Index>>{{300, 64}, {257, 40}, {50, 64}, {1, 8}}) {
    const Eigen::MatrixXd A = random_matrix(n, n, rng);
    Eigen::MatrixXd C = A * A.transpose() / static_cast<double>(n);
    C.diagonal().array() += 0.5;
    Eigen::MatrixXd factor = C, inverse = C;
    REQUIRE(lapack::cholesky_lower(factor));
    REQUIRE(lapack::cholesky_lower(inverse));
    lapack::inverse_from_cholesky(inverse);
    std::vector<Eigen::MatrixXd> results;
    for (int threads : {1, 2, 3}) {
      INFO("n = " << n << ", tile " << tile << ", " << threads << " thread(s)");
      const int saved = omp_get_max_threads();
      omp_set_num_threads(threads);
      Eigen::MatrixXd M = C, scratch;
      const bool ok = tiled_cholesky_lower(M, tile);
      CHECK(ok);
      const Eigen::MatrixXd L = M.triangularView<Eigen::Lower>();
      CHECK((L - Eigen::MatrixXd(factor.triangularView<Eigen::Lower>())).cwiseAbs().maxCoeff() < 1e-12);
      CHECK(M.triangularView<Eigen::StrictlyUpper>().toDenseMatrix() ==
            C.triangularView<Eigen::StrictlyUpper>().toDenseMatrix());  // left as it was
      tiled_inverse_from_cholesky_lower(M, scratch, tile);
      omp_set_num_threads(saved);
      const Eigen::MatrixXd lower = M.triangularView<Eigen::Lower>();
      CHECK((lower - Eigen::MatrixXd(inverse.triangularView<Eigen::Lower>())).cwiseAbs().maxCoeff() <
            1e-10 * inverse.cwiseAbs().maxCoeff());
      results.push_back(lower);
      results.push_back(L);
    }
    INFO("n = " << n << ", tile " << tile);
    CHECK(results[0] == results[2]);
    CHECK(results[0] == results[4]);
    CHECK(results[1] == results[3]);
    CHECK(results[1] == results[5]);
  }
}

TEST_CASE("GP-ARD fitted by tiles: the same bits on 1 and 2 threads, close to the whole-matrix fit", "[gp]") {
  Rng data_rng(24);
  const RegressionData data = sine_data(150, 3, data_rng);
  const auto fit_with = [&](int tiled_from_rows, int threads) {
    Options o;
    o.ard = true;
    o.tiled_from_rows = tiled_from_rows;
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    Rng fit_rng(5);
    gp::Model model = fit(data, o, fit_rng);
    omp_set_num_threads(saved);
    return model;
  };
  const gp::Model whole = fit_with(0, 1), one = fit_with(64, 1), two = fit_with(64, 2);
  const Hyperparameters &a = one.hyperparameters(), &b = two.hyperparameters(), &w = whole.hyperparameters();
  CHECK(a.kernel.input_variances == b.kernel.input_variances);
  CHECK(a.noise_variance == b.noise_variance);
  CHECK(one.report().diagnostics == two.report().diagnostics);
  const auto p_one = one.predict(data.X), p_two = two.predict(data.X), p_whole = whole.predict(data.X);
  double largest_difference = 0.0;
  for (Eigen::Index i = 0; i < data.X.rows(); ++i) {
    CHECK(p_one->mean(i) == p_two->mean(i));
    CHECK(p_one->variance(i) == p_two->variance(i));
    largest_difference = std::max(largest_difference, std::abs(p_one->mean(i) - p_whole->mean(i)));
  }
  CHECK(largest_difference < 1e-4);
  CHECK(std::abs(std::log(a.noise_variance / w.noise_variance)) < 1e-3);
}

TEST_CASE("The tiled Cholesky factorization reports a matrix that is not positive definite", "[gp]") {
  Rng rng(23);
  const Eigen::Index n = 150;
  const Eigen::MatrixXd A = random_matrix(n, 20, rng);
  Eigen::MatrixXd C = A * A.transpose();  // rank 20
  C(120, 120) = -1.0;
  CHECK_FALSE(tiled_cholesky_lower(C, 32));
  CHECK_THROWS_WITH(tiled_cholesky_lower(C, 0), Catch::Contains("tile is 0, but must be >= 1"));
}

TEST_CASE("NN kernel contraction matches finite differences of sum W o K", "[gp]") {
  // sum_ij W_ij k_ij for a random symmetric W, differentiated in log S_00 and log S_kk.
  Rng rng(10);
  const Eigen::Index n = 70, d = 4;
  const Eigen::MatrixXd X = random_matrix(n, d, rng);
  const Eigen::MatrixXd A = random_matrix(n, n, rng);
  const Eigen::MatrixXd W = A + A.transpose();
  const NnKernelParams p = params(d);
  const auto contracted = [&](const NnKernelParams& q) { return W.cwiseProduct(full_kernel(X, q)).sum(); };
  Eigen::MatrixXd W_lower = W;
  const NnKernelGradient g = nn_kernel_contract(X, p, nn_kernel_terms(X, p), W_lower);
  // Differences in log S: the variances scaled by exp(+-step).
  const double step = 1e-5;
  const double fd_bias = numeric_derivative(
      [&](double log_scale) {
        NnKernelParams moved = p;
        moved.bias_variance *= std::exp(log_scale);
        return contracted(moved);
      },
      0.0, step);
  CHECK(g.log_bias_variance == Approx(fd_bias).epsilon(1e-6));
  for (Eigen::Index k = 0; k < d; ++k) {
    const double fd = numeric_derivative(
        [&](double log_scale) {
          NnKernelParams moved = p;
          moved.input_variances[k] *= std::exp(log_scale);
          return contracted(moved);
        },
        0.0, step);
    INFO("input " << k);
    CHECK(g.log_input_variances[k] == Approx(fd).epsilon(1e-6));
  }
}

TEST_CASE("log marginal likelihood gradient matches finite differences", "[gp]") {
  Rng rng(3);
  // n = 30: the inverse in one direct block; n = 150: its recursion.
  for (Eigen::Index n : {30, 150}) {
    const RegressionData data = sine_data(n, 3, rng);
    for (bool ard : {false, true}) {
      Hyperparameters h;
      h.kernel = params(3);
      h.noise_variance = 0.05;
      const Eigen::VectorXd theta = to_log_vector(h, ard);
      const Evidence e = log_marginal_likelihood(data.X, data.y, theta, ard);
      REQUIRE(e.ok);
      const Eigen::VectorXd fd = numeric_gradient(
          [&](const Eigen::VectorXd& at) {
            return log_marginal_likelihood(data.X, data.y, at, ard, false).log_marginal_likelihood;
          },
          theta, 1e-5);
      INFO("n " << n << ", ard " << ard);
      CHECK(close_to(e.gradient, fd, 1e-6, 1e-6));
    }
  }
}

TEST_CASE("one evidence workspace reused across parameter values gives a fresh evaluation's bits", "[gp]") {
  Rng rng(31);
  const RegressionData data = sine_data(60, 3, rng);
  for (bool ard : {false, true}) {
    Hyperparameters a, b;
    a.kernel = params(3);
    a.noise_variance = 0.05;
    b.kernel = params(3);
    b.kernel.signal_variance *= 3.0;
    b.kernel.input_variances *= 0.5;
    b.noise_variance = 0.4;
    const Eigen::VectorXd theta_a = to_log_vector(a, ard), theta_b = to_log_vector(b, ard);
    EvidenceWorkspace workspace;
    // In the optimizer's order: values with and without the gradient, a value seen before.
    for (const auto& [theta, with_gradient] :
         {std::pair{theta_a, true}, std::pair{theta_b, false}, std::pair{theta_a, false}, std::pair{theta_b, true}}) {
      const Evidence reused = log_marginal_likelihood(data.X, data.y, theta, ard, with_gradient, workspace);
      const Evidence fresh = log_marginal_likelihood(data.X, data.y, theta, ard, with_gradient);
      INFO("ard " << ard << ", gradient " << with_gradient);
      CHECK(reused.log_marginal_likelihood == fresh.log_marginal_likelihood);
      CHECK(reused.gradient.size() == fresh.gradient.size());
      CHECK((reused.gradient.array() == fresh.gradient.array()).all());
    }
  }
}

TEST_CASE("log marginal likelihood equals the dense Gaussian density", "[gp]") {
  Rng rng(4);
  const RegressionData data = sine_data(25, 2, rng);
  Hyperparameters h;
  h.kernel = params(2);
  h.noise_variance = 0.2;
  Eigen::MatrixXd C = full_kernel(data.X, h.kernel);
  C.diagonal().array() += h.noise_variance;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(C);
  const double direct =
      -0.5 * data.y.dot(lu.solve(data.y)) - 0.5 * std::log(lu.determinant()) - 0.5 * 25 * std::log(2 * M_PI);
  CHECK(log_marginal_likelihood(data.X, data.y, to_log_vector(h, true), true).log_marginal_likelihood ==
        Approx(direct).epsilon(1e-10));
}

TEST_CASE("GP predictions equal a direct dense solve", "[gp]") {
  Rng rng(5);
  const RegressionData data = sine_data(40, 2, rng);
  const Eigen::MatrixXd X_test = random_matrix(7, 2, rng);
  Hyperparameters h;
  h.kernel = params(2);
  h.noise_variance = 0.03;
  const gp::Model model = condition(data, h);
  const auto pred = model.predict(X_test);
  Eigen::MatrixXd C = full_kernel(data.X, h.kernel);
  C.diagonal().array() += h.noise_variance;
  const Eigen::MatrixXd Ks = nn_kernel_cross(X_test, data.X, h.kernel);
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(C);
  const Eigen::VectorXd mean = Ks * lu.solve(data.y);
  const Eigen::MatrixXd cov = nn_kernel_cross(X_test, X_test, h.kernel) - Ks * lu.solve(Ks.transpose());
  for (Eigen::Index i = 0; i < 7; ++i) {
    CHECK(pred->mean(i) == Approx(mean[i]).epsilon(1e-9));
    CHECK(pred->variance(i) == Approx(cov(i, i) + h.noise_variance).epsilon(1e-9));
  }
}

TEST_CASE("GP fit: optimizer improves the evidence, GP-ARD starts from the GP optimum", "[gp]") {
  Rng data_rng(6);
  RegressionData data = sine_data(80, 3, data_rng);  // only input 0 matters
  Options options;
  options.restarts = 1;
  Rng rng(7);
  const gp::Model shared = fit(data, options, rng);
  options.ard = true;
  Rng rng2(7);
  const gp::Model ard = fit(data, options, rng2);
  const auto value = [](const gp::Model& m, const std::string& name) { return test::diagnostic(m.report(), name); };
  Hyperparameters start;
  start.kernel.input_variances = Eigen::VectorXd::Ones(3);
  const double initial =
      log_marginal_likelihood(data.X, data.y, to_log_vector(start, false), false).log_marginal_likelihood;
  CHECK(value(shared, "log_marginal_likelihood") > initial + 10.0);
  CHECK(value(ard, "log_marginal_likelihood") >= value(shared, "log_marginal_likelihood") - 1e-6);
  // ARD finds that inputs 1 and 2 are irrelevant.
  const auto& v = ard.hyperparameters().kernel.input_variances;
  CHECK(v[0] > 20.0 * v[1]);
  CHECK(v[0] > 20.0 * v[2]);
  // The kept start is the best one.
  const double best = value(ard, "log_marginal_likelihood");
  CHECK(best >= value(ard, "start0_log_ml"));
  CHECK(best >= value(ard, "start1_log_ml"));
  CHECK(ard.hyperparameters().noise_variance == Approx(0.01).epsilon(0.6));
}

TEST_CASE("GP options are validated with the method's name", "[gp]") {
  Rng rng(8);
  const RegressionData data = sine_data(10, 1, rng);
  CHECK_THROWS_WITH(find_method("gp-ard").fit(data, {{"restarts", "-1"}}, rng),
                    Catch::Contains("gp-ard: restarts is -1, but must be >= 0"));
  CHECK_THROWS_WITH(find_method("gp").fit(data, {{"initial_noise_variance", "0"}}, rng),
                    Catch::Contains("gp: initial_noise_variance is 0"));
}

TEST_CASE("GP with a fixed signal variance (GPstuff's form) keeps it and still fits", "[gp]") {
  Rng data_rng(9);
  RegressionData data = sine_data(80, 3, data_rng);
  for (const bool ard : {false, true}) {
    Options options;
    options.ard = ard;
    options.restarts = 1;
    options.learn_signal_variance = false;
    options.initial_signal_variance = 1.0;
    Rng rng(10);
    const gp::Model fixed = fit(data, options, rng);
    CHECK(fixed.hyperparameters().kernel.signal_variance == 1.0);  // exactly, after every start
    options.learn_signal_variance = true;
    Rng rng2(10);
    const gp::Model free = fit(data, options, rng2);
    CHECK(free.hyperparameters().kernel.signal_variance != 1.0);
    // The fixed fit is a constrained optimum of the same evidence: not above the free one, and
    // still explains the sine (noise near its true 0.01).
    const auto log_ml = [](const gp::Model& m) { return test::diagnostic(m.report(), "log_marginal_likelihood"); };
    CHECK(log_ml(fixed) <= log_ml(free) + 1e-6);
    CHECK(fixed.hyperparameters().noise_variance == Approx(0.01).epsilon(0.6));
  }
}
