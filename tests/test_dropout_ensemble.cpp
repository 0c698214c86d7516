// MC dropout and deep ensembles: the batched network's gradients (dropout masks, weight decay,
// the Gaussian likelihood) against finite differences, the dropout masks' rate, the
// log-likelihood of Gal & Ghahramani's code against a direct computation, both predictives
// against direct sums, and the reductions to a plain network (dropout 0, one member).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <numbers>
#include <numeric>
#include <vector>

#include "methods/core/adam.hpp"
#include "methods/core/dense_network.hpp"
#include "methods/core/draws_predictive.hpp"
#include "methods/deep_ensemble/deep_ensemble.hpp"
#include "methods/mc_dropout/mc_dropout.hpp"
#include "methods/registry.hpp"
#include "tests/support/errors.hpp"
#include "tests/support/finite_difference.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"

using namespace bnn;

namespace {

// One epoch of minibatches written out by hand, the reference for the methods' epoch loop
// (methods/core/training_loop.hpp): the rows in a fresh random order, batches of batch_size.
template <class Scalar, class Step>
void minibatches_by_hand(const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& X,
                         const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& y, Eigen::Index batch_size, Rng& rng,
                         Step&& step) {
  const auto order = random_permutation(rng, static_cast<std::size_t>(X.rows()));
  for (Eigen::Index start = 0; start < X.rows(); start += batch_size) {
    const Eigen::Index rows = std::min(batch_size, X.rows() - start);
    Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> Xb(rows, X.cols());
    Eigen::Matrix<Scalar, Eigen::Dynamic, 1> yb(rows);
    for (Eigen::Index r = 0; r < rows; ++r) {
      Xb.row(r) = X.row(static_cast<Eigen::Index>(order[static_cast<std::size_t>(start + r)]));
      yb[r] = y[static_cast<Eigen::Index>(order[static_cast<std::size_t>(start + r)])];
    }
    step(Xb, yb);
  }
}

RegressionData toy_data(Eigen::Index n, Rng& rng) {
  RegressionData d;
  d.X = test::random_matrix(n, 3, rng);
  d.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i)
    d.y[i] = std::sin(2.0 * d.X(i, 0)) + 0.5 * d.X(i, 1) * d.X(i, 2) + 0.1 * standard_normal(rng);
  return d;
}

DenseNetwork random_network(Eigen::Index outputs, Rng& rng) {
  DenseNetwork net({3, 6, outputs});
  net.theta = test::random_vector(net.theta.size(), rng, 0.7);
  return net;
}

DenseNetwork32 rounded_to_float(const DenseNetwork& net) {
  DenseNetwork32 out(net.shape);
  out.theta = net.theta.cast<float>();
  return out;
}

}  // namespace

TEST_CASE("dense network with dropout: MC dropout's loss gradient matches finite differences", "[mc-dropout]") {
  Rng rng(3);
  const DenseNetwork net = random_network(1, rng);
  const Eigen::MatrixXd X = test::random_matrix(7, 3, rng);
  const Eigen::VectorXd y = test::random_vector(7, rng);
  DropoutMasks masks;
  draw_dropout_mask(7, 3, 0.3, rng, masks.input);
  draw_dropout_mask(7, 6, 0.3, rng, masks.hidden);
  const double decay = 0.05;
  DenseCache cache;
  Eigen::VectorXd gradient;
  mc_dropout::batch_loss(net, X, y, masks, decay, cache, gradient);
  const auto loss_at = [&](const Eigen::VectorXd& theta) {
    DenseNetwork moved = net;
    moved.theta = theta;
    DenseCache c;
    Eigen::VectorXd g;
    return mc_dropout::batch_loss(moved, X, y, masks, decay, c, g);
  };
  CHECK(test::close_to(gradient, test::numeric_gradient(loss_at, net.theta, 1e-6), 1e-6, 1e-8));

  // The float32 instantiation, which trains, gives the same loss and gradient to float precision.
  const DenseNetwork32 net32 = rounded_to_float(net);
  DropoutMasks32 masks32{masks.input.cast<float>(), masks.hidden.cast<float>()};
  DenseCache32 cache32;
  Eigen::VectorXf gradient32;
  const double loss32 = mc_dropout::batch_loss(net32, DenseInput<float>(X.cast<float>()),
                                               Eigen::VectorXf(y.cast<float>()), masks32, decay, cache32, gradient32);
  CHECK(loss32 == Approx(mc_dropout::batch_loss(net, X, y, masks, decay, cache, gradient)).epsilon(1e-5));
  CHECK(test::close_to(Eigen::VectorXd(gradient32.cast<double>()), gradient, 1e-5, 1e-6));
  // A float32 gradient is not the double one: the instantiations really differ.
  CHECK((gradient32.cast<double>() - gradient).cwiseAbs().maxCoeff() > 0.0);
}

TEST_CASE("dense network: the input gradient matches finite differences", "[deep-ensemble]") {
  Rng rng(4);
  const DenseNetwork net = random_network(2, rng);
  const Eigen::MatrixXd X = test::random_matrix(5, 3, rng);
  const Eigen::VectorXd y = test::random_vector(5, rng);
  const deep_ensemble::Options options;
  DenseCache cache;
  Eigen::MatrixXd d_outputs, d_input;
  Eigen::VectorXd gradient;
  dense_forward(net, X, {}, cache);
  deep_ensemble::gaussian_nll(cache.output, y, options.min_variance, d_outputs);
  dense_backward(net, cache, {}, d_outputs, gradient, &d_input);
  const auto loss_at = [&](const Eigen::MatrixXd& inputs) {
    DenseCache c;
    Eigen::MatrixXd d;
    dense_forward(net, inputs, {}, c);
    return deep_ensemble::gaussian_nll(c.output, y, options.min_variance, d);
  };
  CHECK(test::close_to(d_input, test::numeric_gradient(loss_at, X, 1e-6), 1e-6, 1e-8));
}

TEST_CASE("deep ensembles: the Gaussian NLL's gradient matches finite differences, with adversarial inputs too",
          "[deep-ensemble]") {
  Rng rng(5);
  const DenseNetwork net = random_network(2, rng);
  const Eigen::MatrixXd X = test::random_matrix(9, 3, rng);
  const Eigen::VectorXd y = test::random_vector(9, rng);
  for (const bool adversarial : {false, true}) {
    INFO("adversarial " << adversarial);
    deep_ensemble::Options options;
    const Eigen::RowVectorXd epsilon = adversarial ? Eigen::RowVectorXd::Constant(3, 0.01) : Eigen::RowVectorXd();
    DenseCache cache;
    Eigen::VectorXd gradient;
    deep_ensemble::batch_loss(net, X, y, options, epsilon, cache, gradient);
    // The adversarial inputs are held fixed (they depend on theta only through a sign).
    Eigen::MatrixXd X_adversarial;
    if (adversarial) {
      Eigen::MatrixXd d_outputs, d_input;
      Eigen::VectorXd g;
      dense_forward(net, X, {}, cache);
      deep_ensemble::gaussian_nll(cache.output, y, options.min_variance, d_outputs);
      dense_backward(net, cache, {}, d_outputs, g, &d_input);
      X_adversarial = X + (d_input.array().sign().rowwise() * epsilon.array()).matrix();
    }
    const auto loss_at = [&](const Eigen::VectorXd& theta) {
      DenseNetwork moved = net;
      moved.theta = theta;
      DenseCache c;
      Eigen::MatrixXd d;
      dense_forward(moved, X, {}, c);
      double loss = deep_ensemble::gaussian_nll(c.output, y, options.min_variance, d);
      if (adversarial) {
        dense_forward(moved, X_adversarial, {}, c);
        loss += deep_ensemble::gaussian_nll(c.output, y, options.min_variance, d);
      }
      return loss;
    };
    CHECK(test::close_to(gradient, test::numeric_gradient(loss_at, net.theta, 1e-6), 1e-6, 1e-8));
  }
}

TEST_CASE("dropout masks drop at rate p and scale the kept units by 1/(1 - p)", "[mc-dropout]") {
  Rng rng(6);
  for (const double p : {0.005, 0.1, 0.5}) {
    Eigen::ArrayXXd mask;
    draw_dropout_mask(1001, 97, p, rng, mask);  // odd size: the last entry from its own draw
    const double n = static_cast<double>(mask.size());
    const double dropped = static_cast<double>((mask == 0.0).count());
    CHECK(((mask == 0.0) || (mask == 1.0 / (1.0 - p))).all());
    // Binomial z-test at 4.5 standard deviations.
    CHECK(std::abs(dropped - n * p) < 4.5 * std::sqrt(n * p * (1.0 - p)));
  }
}

TEST_CASE("MC dropout's log-likelihood equals Gal & Ghahramani's formula computed directly", "[mc-dropout]") {
  Rng rng(7);
  const DenseNetwork32 net = rounded_to_float(random_network(1, rng));
  const Eigen::MatrixXd X = test::random_matrix(11, 3, rng);
  const Eigen::VectorXd y = test::random_vector(11, rng);
  const double p = 0.2, tau = 3.0;
  const int T = 300;  // not a multiple of the pass blocks
  Rng a(99), b(99);
  const double streamed = mc_dropout::mean_log_likelihood(net, X, y, p, 1.0 / tau, T, a);
  const mc_dropout::Draws draws = mc_dropout::stochastic_outputs(net, X, p, T, b);
  const Eigen::MatrixXd outputs = draws.cast<double>();
  // ll_i = logsumexp_t(-tau/2 (y_i - yhat_t)^2) - log T - log(2 pi)/2 + log(tau)/2.
  double direct = 0.0;
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    double sum = 0.0;
    for (int t = 0; t < T; ++t) sum += std::exp(-0.5 * tau * std::pow(y[i] - outputs(i, t), 2));
    direct += std::log(sum) - std::log(T) - 0.5 * std::log(2.0 * std::numbers::pi) + 0.5 * std::log(tau);
  }
  direct /= static_cast<double>(X.rows());
  CHECK(streamed == Approx(direct).epsilon(1e-12));
  // The passes really differ (dropout is on), and the predictive scores them the same way.
  CHECK(outputs.row(0).maxCoeff() > outputs.row(0).minCoeff());
  const DrawsPredictive predictive(draws, 1.0 / tau);
  double from_predictive = 0.0;
  for (Eigen::Index i = 0; i < X.rows(); ++i) from_predictive += predictive.log_density(i, y[i]);
  CHECK(from_predictive / static_cast<double>(X.rows()) == Approx(direct).epsilon(1e-12));
}

TEST_CASE("draws predictive: moments, cdf, quantiles and CRPS against the general mixture", "[mc-dropout]") {
  Rng rng(8);
  const Eigen::Index T = 12;  // up to 16 offsets every pair enters the CRPS: exact
  // (float32 draws, as MC dropout's; the mixture gets the same values in double)
  const DrawsPredictive::RowMajorMatrix draws = (0.6 * test::random_matrix(4, T, rng)).cast<float>();
  const double v = 0.3;
  const DrawsPredictive ours(draws, v);
  const GaussianMixturePredictive mixture(draws.cast<double>(), Eigen::MatrixXd::Constant(4, T, v));
  for (Eigen::Index i = 0; i < 4; ++i) {
    CHECK(ours.mean(i) == Approx(mixture.mean(i)).epsilon(1e-12));
    CHECK(ours.variance(i) == Approx(mixture.variance(i)).epsilon(1e-12));
    CHECK(ours.log_density(i, 0.4) == Approx(mixture.log_density(i, 0.4)).epsilon(1e-12));
    CHECK(ours.cdf(i, -0.2) == Approx(mixture.cdf(i, -0.2)).epsilon(1e-12));
    CHECK(ours.crps(i, 0.7) == Approx(mixture.crps(i, 0.7)).epsilon(1e-9));
    for (const double q : {0.025, 0.5, 0.975}) CHECK(ours.cdf(i, ours.quantile(i, q)) == Approx(q).epsilon(1e-9));
  }
  // Many draws: the CRPS's pair term is estimated from 16 T of the T^2 pairs; against the exact
  // sum it is off by sampling error only (here 0.2%).
  const DrawsPredictive::RowMajorMatrix many = (0.6 * test::random_matrix(1, 2000, rng)).cast<float>();
  const DrawsPredictive estimated(many, v);
  const GaussianMixturePredictive exact(many.cast<double>(), Eigen::MatrixXd::Constant(1, 2000, v));
  CHECK(estimated.crps(0, 0.3) == Approx(exact.crps(0, 0.3)).epsilon(1e-2));
}

TEST_CASE("draws predictive: the 95% interval test by one cdf agrees with the two quantiles", "[mc-dropout]") {
  Rng rng(12);
  const DrawsPredictive::RowMajorMatrix draws = test::random_matrix(3, 500, rng).cast<float>();
  const double v = 0.05;
  const DrawsPredictive ours(draws, v);
  const AffinePredictive original_units(std::make_unique<DrawsPredictive>(draws, v), 10.0, 2.5);
  int inside = 0, outside = 0;
  for (Eigen::Index i = 0; i < 3; ++i) {
    const double lo = ours.quantile(i, 0.025), hi = ours.quantile(i, 0.975);
    for (double y = lo - 1.0; y <= hi + 1.0; y += 0.0137) {
      // away from the ends by more than the quantiles' solver tolerance
      if (std::abs(y - lo) < 1e-9 || std::abs(y - hi) < 1e-9) continue;
      const bool expected = y >= lo && y <= hi;
      CHECK(ours.between_quantiles(i, y, 0.025, 0.975) == expected);
      CHECK(original_units.between_quantiles(i, 10.0 + 2.5 * y, 0.025, 0.975) == expected);
      ++(expected ? inside : outside);
    }
  }
  CHECK(inside > 100);
  CHECK(outside > 100);
}

TEST_CASE("MC dropout with p = 0 is a plain float32 network trained by the same Adam, bit for bit", "[mc-dropout]") {
  Rng data_rng(9);
  const RegressionData data = toy_data(150, data_rng);
  mc_dropout::Options options;
  options.hidden_units = 8;
  options.epochs = 5;
  options.batch_size = 32;
  options.dropout_rates = {0.0};
  options.taus = {4.0};
  options.samples = 3;
  options.validation = mc_dropout::ValidationRule::last;  // the rows in the order given, as `plain` takes them
  Rng rng(10);
  const DenseNetwork32 trained = mc_dropout::train(data, options, {0.0, 4.0}, rng);

  Rng plain_rng(10);
  DenseNetwork32 plain = DenseNetwork32::glorot_uniform({3, 8, 1}, plain_rng);
  AdamState32 adam(Adam{options.learning_rate}, plain.theta.size());
  const double decay = 1e-4 * 1.0 / (2.0 * 150.0 * 4.0);  // l^2 (1 - p) / (2 N tau)
  DenseCache32 cache;
  const Eigen::MatrixXf X32 = data.X.cast<float>();
  const Eigen::VectorXf y32 = data.y.cast<float>();
  for (int epoch = 0; epoch < 5; ++epoch)
    minibatches_by_hand(X32, y32, 32, plain_rng, [&](const Eigen::MatrixXf& Xb, const Eigen::VectorXf& yb) {
      dense_forward(plain, Xb, {}, cache);
      const Eigen::VectorXf r = cache.output.col(0) - yb;
      Eigen::VectorXf g;
      dense_backward(plain, cache, {}, static_cast<float>(2.0 / static_cast<double>(Xb.rows())) * r, g, nullptr);
      const Eigen::Index w1 = plain.b1_offset(), w2 = plain.W2_offset(), n2 = plain.b2_offset() - w2;
      g.head(w1) += static_cast<float>(2.0 * decay) * plain.theta.head(w1);
      g.segment(w2, n2) += static_cast<float>(2.0 * decay) * plain.theta.segment(w2, n2);
      adam.step(plain.theta, g);
    });
  CHECK(mc_dropout::weight_decay(options, {0.0, 4.0}, 150) == decay);
  CHECK((trained.theta.array() == plain.theta.array()).all());

  // Fitted through the method: one setting, no grid; the predictive's draws all coincide.
  Rng fit_rng(10);
  const auto model = mc_dropout::fit(data, options, fit_rng);
  const auto predictive = model.predict(data.X.topRows(3));
  dense_forward(plain, X32.topRows(3), {}, cache);
  for (Eigen::Index i = 0; i < 3; ++i) CHECK(predictive->mean(i) == Approx(cache.output(i, 0)).epsilon(1e-13));
}

TEST_CASE("deep ensemble of one member is a plain mean-variance network trained by the same Adam", "[deep-ensemble]") {
  Rng data_rng(11);
  const RegressionData data = toy_data(120, data_rng);
  deep_ensemble::Options options;
  options.members = 1;
  options.hidden_units = 7;
  options.epochs = 6;
  options.batch_size = 25;
  options.learning_rate = 0.01;
  Rng rng(12);
  const auto model = deep_ensemble::fit(data, options, rng);

  Rng plain_rng(12);
  DenseNetwork plain = deep_ensemble::torch_initialization({3, 7, 2}, plain_rng);
  AdamState adam(Adam{0.01}, plain.theta.size());
  DenseCache cache;
  for (int epoch = 0; epoch < 6; ++epoch)
    minibatches_by_hand(data.X, data.y, 25, plain_rng, [&](const Eigen::MatrixXd& Xb, const Eigen::VectorXd& yb) {
      dense_forward(plain, Xb, {}, cache);
      Eigen::MatrixXd d_outputs;
      deep_ensemble::gaussian_nll(cache.output, yb, options.min_variance, d_outputs);
      Eigen::VectorXd g;
      dense_backward(plain, cache, {}, d_outputs, g, nullptr);
      adam.step(plain.theta, g);
    });
  const auto predictive = model.predict(data.X.topRows(4));
  dense_forward(plain, data.X.topRows(4), {}, cache);
  for (Eigen::Index i = 0; i < 4; ++i) {
    CHECK(predictive->mean(i) == cache.output(i, 0));
    const double variance = std::log1p(std::exp(cache.output(i, 1))) + options.min_variance;
    CHECK(predictive->variance(i) == Approx(variance).epsilon(1e-14));
  }
}

TEST_CASE("deep ensemble: the predictive is the members' uniform mixture, its log density the direct sum",
          "[deep-ensemble]") {
  Rng data_rng(13);
  const RegressionData data = toy_data(100, data_rng);
  deep_ensemble::Options options;
  options.members = 3;
  options.hidden_units = 5;
  options.epochs = 3;
  options.learning_rate = 0.01;
  Rng rng(14);
  const auto model = deep_ensemble::fit(data, options, rng);
  const Eigen::MatrixXd X = data.X.topRows(5);
  const auto predictive = model.predict(X);
  // The members again, from the same stream.
  Rng again(14);
  std::vector<DenseNetwork> members;
  for (int m = 0; m < 3; ++m) members.push_back(deep_ensemble::train_member(data, options, again));
  DenseCache cache;
  for (Eigen::Index i = 0; i < 5; ++i) {
    const double y = data.y[i];
    double density = 0.0, mean = 0.0;
    for (const DenseNetwork& net : members) {
      dense_forward(net, X.row(i), {}, cache);
      const double mu = cache.output(0, 0);
      const double var = std::log1p(std::exp(cache.output(0, 1))) + options.min_variance;
      density += std::exp(-0.5 * (y - mu) * (y - mu) / var) / std::sqrt(2.0 * std::numbers::pi * var) / 3.0;
      mean += mu / 3.0;
    }
    CHECK(predictive->log_density(i, y) == Approx(std::log(density)).epsilon(1e-12));
    CHECK(predictive->mean(i) == Approx(mean).epsilon(1e-12));
  }
}

TEST_CASE("MC dropout's default validation part is a random draw whatever the order of the rows", "[mc-dropout]") {
  // Training rows sorted by their target, as a file ordered by it (or a split's index file
  // written in ascending order) gives them.
  Rng data_rng(21);
  RegressionData data = toy_data(300, data_rng);
  std::vector<Eigen::Index> by_target(300);
  std::iota(by_target.begin(), by_target.end(), Eigen::Index{0});
  std::sort(by_target.begin(), by_target.end(), [&](auto a, auto b) { return data.y[a] < data.y[b]; });
  const RegressionData sorted{data.X(by_target, Eigen::all), data.y(by_target), 1.0};
  const double mean = sorted.y.mean();
  const double sd = std::sqrt((sorted.y.array() - mean).square().sum() / 299.0);
  // The validation mean's standard error for a random 60 of 300 rows (finite population).
  const double se = sd / std::sqrt(60.0) * std::sqrt(1.0 - 60.0 / 300.0);
  const auto validation_mean = [&](mc_dropout::ValidationRule rule, std::uint64_t seed) {
    Rng rng(seed);
    const auto parts = mc_dropout::grid_parts(mc_dropout::fit_order(sorted, rule, rng), 0.2);
    REQUIRE(parts.validation.y.size() == 60);
    REQUIRE(parts.fit.y.size() == 240);
    return parts.validation.y.mean();
  };
  for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
    INFO("seed " << seed);
    CHECK(std::abs(validation_mean(mc_dropout::ValidationRule::random, seed) - mean) < 3.0 * se);
  }
  // The authors' rule on such rows scores the grid on the largest targets only.
  CHECK(validation_mean(mc_dropout::ValidationRule::last, 1) - mean > 10.0 * se);

  // The chosen setting, and the whole fit, do not depend on the order the rows come in.
  mc_dropout::Options options;
  options.hidden_units = 6;
  options.epochs = 8;
  options.batch_size = 32;
  options.dropout_rates = {0.01, 0.3};
  options.taus = {1.0, 30.0};
  options.samples = 20;
  Rng shuffle_rng(22);
  const auto permutation = random_permutation(shuffle_rng, 300);
  const std::vector<Eigen::Index> shuffled_rows(permutation.begin(), permutation.end());
  const RegressionData shuffled{sorted.X(shuffled_rows, Eigen::all), sorted.y(shuffled_rows), 1.0};
  Rng rng_a(7), rng_b(7);
  const auto a = mc_dropout::fit(sorted, options, rng_a);
  const auto b = mc_dropout::fit(shuffled, options, rng_b);
  const auto diagnostic = [](const Model& model, const char* name) {
    for (const auto& [key, value] : model.report().diagnostics)
      if (key == name) return value;
    FAIL("no diagnostic " << name);
    return 0.0;
  };
  CHECK(diagnostic(a, "dropout") == diagnostic(b, "dropout"));
  CHECK(diagnostic(a, "tau") == diagnostic(b, "tau"));
  CHECK(diagnostic(a, "validation_ll") == diagnostic(b, "validation_ll"));
  const Eigen::MatrixXd X_test = data.X.topRows(5);
  const auto pa = a.predict(X_test), pb = b.predict(X_test);
  for (Eigen::Index i = 0; i < 5; ++i) CHECK(pa->mean(i) == pb->mean(i));
}

TEST_CASE("MC dropout and deep ensembles reject bad options in one line", "[mc-dropout][deep-ensemble]") {
  const auto fails = [](const char* method, ParamMap overrides) {
    Rng rng(1);
    RegressionData d{Eigen::MatrixXd::Ones(4, 1), Eigen::VectorXd::LinSpaced(4, 0.0, 1.0)};
    try {
      find_method(method).fit(d, overrides, rng);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(fails("mc-dropout", {{"taus", "1"}, {"dropout_rates", "0.1,1"}}) ==
        "mc-dropout: dropout_rates is 1, but must be < 1");
  CHECK(fails("mc-dropout", {{"taus", "0.5,x"}}) ==
        "mc-dropout: option taus is '0.5,x', but must be a comma-separated list of finite real numbers");
  CHECK(fails("mc-dropout", {{"taus_normalized", ""}}) ==
        "mc-dropout: taus and taus_normalized are both empty, but one needs a value");
  CHECK(fails("mc-dropout", {{"taus", "0.1,-2"}}) == "mc-dropout: taus is -2, but must be finite and > 0");
  CHECK(fails("mc-dropout", {{"taus", "1"}, {"validation", "first"}}) ==
        "mc-dropout: validation is 'first', but must be random or last");
  CHECK(fails("deep-ensemble", {{"members", "0"}}) == "deep-ensemble: members is 0, but must be >= 1");
}
