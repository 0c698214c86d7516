#include "hmc.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>

#include "diagnostics.hpp"
#include "methods/core/options.hpp"
#include "methods/core/parallel_pieces.hpp"

namespace bnn::hmc {

void Options::validate(std::string_view method) const {
  require_hidden_layers(method, hidden_layers);
  require_positive(method, "weight_prior_shape", weight_prior_shape);
  require_positive(method, "input_individual_shape", input_individual_shape);
  require_positive(method, "input_prior_scale", input_prior_scale);
  require_positive(method, "weight_prior_scale", weight_prior_scale);
  require_positive(method, "bias_prior_scale", bias_prior_scale);
  require_positive(method, "output_prior_scale", output_prior_scale);
  require_positive(method, "noise_prior_shape", noise_prior_shape);
  require_positive(method, "noise_prior_scale", noise_prior_scale);
  require_count(method, "chains", chains, 10'000, "each chain keeps its draws of every weight");
  require_at_least(method, "warmup", warmup, 20);
  require_at_least(method, "thin", thin, 1);
  require_at_least(method, "samples", samples, 4.0 * chains * thin);
  require_at_least(method, "leapfrog_steps", leapfrog_steps, 1);
  require_in_open_unit(method, "target_accept", target_accept);
  require_at_least(method, "step_jitter", step_jitter, 0.0);
  require_below(method, "step_jitter", step_jitter, 1.0);
  require_at_least(method, "hyper_delay", hyper_delay, 0);
  require_below(method, "hyper_delay", hyper_delay, warmup);
  require_positive(method, "initial_sd", initial_sd);
  require_at_least(method, "initial_optimization", initial_optimization, 0);
  require_at_least(method, "diagnostic_points", diagnostic_points, 1);
  require_at_least(method, "tempering_replicas", tempering_replicas, 1);
  require_in_open_unit(method, "tempering_min_beta", tempering_min_beta);
}

Options relu_defaults() {
  Options o;
  o.hidden_layers = {50};
  o.activation = Activation::relu;
  o.prior = PriorKind::layer;
  return o;
}

PriorGroups make_prior_groups(const MlpShape& shape, const Options& o) {
  PriorGroups g;
  const Eigen::Index P = shape.parameter_count();
  g.group.assign(static_cast<std::size_t>(P), -1);
  g.multiplier = Eigen::VectorXd::Ones(P);
  std::vector<double> shapes, rates;
  const auto add_group = [&](std::string name, double scale) {
    g.names.push_back(std::move(name));
    shapes.push_back(o.weight_prior_shape);
    rates.push_back(o.weight_prior_shape * scale * scale);  // E[precision] = 1 / scale^2
    return static_cast<int>(g.names.size()) - 1;
  };
  const auto assign = [&](Eigen::Index begin, Eigen::Index count, int group, double multiplier) {
    for (Eigen::Index i = begin; i < begin + count; ++i) {
      g.group[static_cast<std::size_t>(i)] = group;
      g.multiplier[i] = multiplier;
    }
  };
  const std::size_t L = shape.hidden.size();
  if (o.prior == PriorKind::shared) {
    const int all = add_group("weights", o.weight_prior_scale);
    for (std::size_t l = 0; l <= L; ++l) {
      const double fan_in = static_cast<double>(shape.layer_inputs(l) + 1);
      assign(shape.weight_offset(l), shape.layer_units(l) * (shape.layer_inputs(l) + 1), all, fan_in);
    }
  } else {
    for (std::size_t l = 0; l <= L; ++l) {
      const Eigen::Index units = shape.layer_units(l), inputs = shape.layer_inputs(l);
      const Eigen::Index w0 = shape.weight_offset(l);
      const bool output = l == L;
      if (l == 0 && !output && (o.prior == PriorKind::ard || o.prior == PriorKind::ard2)) {
        for (Eigen::Index j = 0; j < inputs; ++j) {
          const int group = add_group("input " + std::to_string(j + 1), o.input_prior_scale);
          for (Eigen::Index k = 0; k < units; ++k) assign(w0 + k * inputs + j, 1, group, 1.0);
          if (o.prior == PriorKind::ard2) {
            g.linked.push_back(group);
            shapes[static_cast<std::size_t>(group)] = o.input_individual_shape;
          }
        }
      } else if (l == 0 && !output) {
        assign(w0, units * inputs, add_group("input weights", o.input_prior_scale), 1.0);
      } else if (!output) {
        assign(w0, units * inputs, add_group("layer " + std::to_string(l + 1) + " weights", o.weight_prior_scale),
               static_cast<double>(inputs));
      } else {
        // Output weights: variance scale^2 / units, so the prior of f stays put as units grow.
        assign(w0, inputs, add_group("output weights", o.output_prior_scale),
               L == 0 ? 1.0 : static_cast<double>(inputs));
      }
      assign(shape.bias_offset(l), units,
             add_group(output ? "output bias" : "layer " + std::to_string(l + 1) + " biases", o.bias_prior_scale), 1.0);
    }
  }
  g.shape = Eigen::Map<Eigen::VectorXd>(shapes.data(), static_cast<Eigen::Index>(shapes.size()));
  g.rate = Eigen::Map<Eigen::VectorXd>(rates.data(), static_cast<Eigen::Index>(rates.size()));
  if (!g.linked.empty()) {
    g.common_shape = o.weight_prior_shape;
    g.common_rate = o.weight_prior_shape * o.input_prior_scale * o.input_prior_scale;  // E[1/u] = 1/scale^2
    g.set_common_variance(o.input_prior_scale * o.input_prior_scale);
  }
  return g;
}

void PriorGroups::set_common_variance(double u) {
  common_variance = u;
  for (const int g : linked) rate[g] = shape[g] * u;
}

double draw_common_variance(const PriorGroups& groups, const Eigen::VectorXd& precision, double u, Rng& rng) {
  // log p(v | precisions), v = log u: sum_j [a_j v - a_j e^v tau_j] - a0 v - r0 e^-v (the
  // Gamma(a0, r0) prior on 1/u with its Jacobian), a concave function of v.
  double shape_sum = 0.0, weighted = 0.0;
  for (const int g : groups.linked) {
    shape_sum += groups.shape[g];
    weighted += groups.shape[g] * precision[g];
  }
  const double a0 = groups.common_shape, r0 = groups.common_rate;
  const auto log_density = [&](double v) { return (shape_sum - a0) * v - weighted * std::exp(v) - r0 * std::exp(-v); };
  // Neal's (2003) slice sampler: stepping out by unit widths, then shrinkage.
  const double v0 = std::log(u);
  const double level = log_density(v0) + std::log(uniform01(rng));
  constexpr double width = 1.0;
  double lower = v0 - width * uniform01(rng), upper = lower + width;
  for (int steps = 0; steps < 50 && log_density(lower) > level; ++steps) lower -= width;
  for (int steps = 0; steps < 50 && log_density(upper) > level; ++steps) upper += width;
  while (upper - lower > 1e-12 * (1.0 + std::abs(v0))) {
    const double v = lower + (upper - lower) * uniform01(rng);
    if (log_density(v) >= level) return std::exp(v);
    if (v < v0)
      lower = v;
    else
      upper = v;
  }
  return u;  // the interval shrank onto the current point
}

Eigen::VectorXd gibbs_precisions(const PriorGroups& groups, const Eigen::VectorXd& theta, Rng& rng) {
  const Eigen::Index G = groups.shape.size();
  Eigen::VectorXd count = Eigen::VectorXd::Zero(G), sum_squares = Eigen::VectorXd::Zero(G);
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    const int g = groups.group[static_cast<std::size_t>(i)];
    count[g] += 1.0;
    sum_squares[g] += groups.multiplier[i] * theta[i] * theta[i];
  }
  Eigen::VectorXd precision(G);
  for (Eigen::Index g = 0; g < G; ++g)  // Gamma(a + m/2, b + sum c w^2 / 2)
    precision[g] = gamma_draw(rng, groups.shape[g] + 0.5 * count[g]) / (groups.rate[g] + 0.5 * sum_squares[g]);
  return precision;
}

namespace {

constexpr const char* kName = "nn-mc";

}  // namespace

Eigen::VectorXd prior_precisions(const PriorGroups& groups, const Eigen::VectorXd& precision) {
  Eigen::VectorXd p(groups.multiplier.size());
  for (Eigen::Index i = 0; i < p.size(); ++i)
    p[i] = groups.multiplier[i] * precision[groups.group[static_cast<std::size_t>(i)]];
  return p;
}

Eigen::VectorXd neal_curvature(const MlpShape& shape, const PriorGroups& groups, const Eigen::VectorXd& precision,
                               double noise_precision, const Eigen::VectorXd& input_sum_squares, double n) {
  const Eigen::VectorXd prior = prior_precisions(groups, precision);
  Eigen::VectorXd curvature = prior;
  const std::size_t L = shape.hidden.size();
  // sensitivity of f to the outputs of layer l's units, in expectation over the prior of
  // the weights above: 1 at the output, units x mean weight variance x sensitivity below it.
  double sensitivity = 1.0;
  for (std::size_t l = L + 1; l-- > 0;) {
    const Eigen::Index units = shape.layer_units(l), inputs = shape.layer_inputs(l);
    const Eigen::Index w0 = shape.weight_offset(l), b0 = shape.bias_offset(l);
    for (Eigen::Index k = 0; k < units; ++k) {
      for (Eigen::Index j = 0; j < inputs; ++j) {
        const double input_ss = l == 0 ? input_sum_squares[j] : n;  // |g| <= 1 for tanh and erf
        curvature[w0 + k * inputs + j] += noise_precision * sensitivity * input_ss;
      }
      curvature[b0 + k] += noise_precision * sensitivity * n;
    }
    double mean_variance = 0.0;
    for (Eigen::Index i = w0; i < b0; ++i) mean_variance += 1.0 / prior[i];
    mean_variance /= static_cast<double>(b0 - w0);
    sensitivity *= static_cast<double>(units) * mean_variance;
  }
  return curvature;
}

double gaussian_log_likelihood(double squared_error_half, double noise_variance, double n) {
  return -0.5 * n * std::log(2.0 * std::numbers::pi * noise_variance) - squared_error_half / noise_variance;
}

namespace {

Chains per_chain(const std::vector<ChainResult>& chains,
                 const std::function<double(const ChainResult&, std::size_t)>& value) {
  Chains out;
  for (const auto& c : chains) {
    std::vector<double> v;
    for (std::size_t s = 0; s < c.draws.size(); ++s) v.push_back(value(c, s));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

Model fit(const RegressionData& train, const Validated<Options>& valid, Rng& rng) {
  const Options& options = *valid;
  check_training_data(train, kName);
  MlpShape shape{train.X.cols(), options.hidden_layers, options.activation};
  const PriorGroups groups = make_prior_groups(shape, options);

  // Diagnostic points: evenly spaced training rows.
  const Eigen::Index n = train.X.rows();
  const Eigen::Index m = std::min<Eigen::Index>(n, options.diagnostic_points);
  Eigen::MatrixXd diagnostic_inputs(m, train.X.cols());
  for (Eigen::Index i = 0; i < m; ++i) diagnostic_inputs.row(i) = train.X.row(i * n / m);

  const std::uint64_t base_seed = rng();
  std::vector<ChainResult> chains(static_cast<std::size_t>(options.chains));
  // Chains run as parallel pieces (threads of the harness with no job left take them up);
  // each has its own seed and slot, so the result does not depend on it.
  run_pieces(options.chains, [&](int c) {
    try {
      chains[static_cast<std::size_t>(c)] = run_chain(shape, groups, train, options, diagnostic_inputs,
                                                      derive_seed(base_seed, static_cast<std::uint64_t>(c)));
    } catch (const std::exception& e) {
      chains[static_cast<std::size_t>(c)].error = e.what();
    }
  });

  FitReport report;
  report.iterations = options.warmup + (options.samples + options.chains - 1) / options.chains;
  std::vector<std::vector<Draw>> draws;
  std::vector<ChainResult> good;
  for (std::size_t c = 0; c < chains.size(); ++c) {
    if (!chains[c].error.empty()) {
      report.warnings.push_back("chain " + std::to_string(c + 1) + " failed: " + chains[c].error);
      continue;
    }
    draws.push_back(chains[c].draws);
    good.push_back(std::move(chains[c]));
  }
  if (good.empty()) {
    report.status = FitStatus::numerical_error;
    report.message = "every chain failed";
    return Model(shape, {}, report);
  }
  double accept = 0.0, step = 0.0, initial_rmse = 0.0, initial_evaluations = 0.0;
  long divergent = 0, divergent_warmup = 0;
  Eigen::VectorXd precisions = Eigen::VectorXd::Zero(groups.shape.size());
  double common_variance = 0.0;
  for (const auto& c : good) {
    common_variance += c.mean_common_variance / static_cast<double>(good.size());
    accept += c.accept_rate / static_cast<double>(good.size());
    step += c.step / static_cast<double>(good.size());
    divergent += c.divergent;
    divergent_warmup += c.divergent_warmup;
    precisions += c.mean_precisions / static_cast<double>(good.size());
    initial_rmse += c.initial_rmse / static_cast<double>(good.size());
    initial_evaluations += static_cast<double>(c.initial_evaluations) / static_cast<double>(good.size());
  }
  const Chains loglik = per_chain(good, [](const ChainResult& c, std::size_t s) { return c.log_likelihood[s]; });
  const Chains noise = per_chain(good, [](const ChainResult& c, std::size_t s) { return c.draws[s].noise_variance; });
  double rhat_pred = 0.0, ess_pred = std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < m; ++i) {
    const Chains f = per_chain(good, [i](const ChainResult& c, std::size_t s) { return c.diagnostic[s][i]; });
    rhat_pred = std::max(rhat_pred, split_rhat(f));
    ess_pred = std::min(ess_pred, ess_bulk(f));
  }
  auto& d = report.diagnostics;
  d.emplace_back("accept_rate", accept);
  d.emplace_back("step_size", step);
  d.emplace_back("divergent", static_cast<double>(divergent));
  d.emplace_back("divergent_warmup", static_cast<double>(divergent_warmup));
  d.emplace_back("draws", static_cast<double>(good.size() * good.front().draws.size()));
  if (options.initial_optimization > 0) {
    d.emplace_back("initial_train_rmse", initial_rmse);  // normalized scale, mean over chains
    d.emplace_back("initial_evaluations", initial_evaluations);
  }
  const double rhat_loglik = split_rhat(loglik);
  d.emplace_back("rhat_loglik", rhat_loglik);
  d.emplace_back("ess_loglik", ess_bulk(loglik));
  d.emplace_back("rhat_noise", split_rhat(noise));
  d.emplace_back("rhat_train_pred_max", rhat_pred);
  d.emplace_back("ess_train_pred_min", ess_pred);
  for (Eigen::Index g = 0; g < precisions.size(); ++g) {
    std::string name = "sd." + groups.names[static_cast<std::size_t>(g)];  // posterior mean precision as an sd
    std::replace(name.begin(), name.end(), ' ', '_');
    d.emplace_back(name, 1.0 / std::sqrt(precisions[g]));
  }
  if (!groups.linked.empty())
    d.emplace_back("sd.inputs_common", std::sqrt(common_variance));  // posterior mean u as an sd
  if (options.tempering_replicas > 1) {
    double swap_rate = 0.0;
    for (const auto& c : good) swap_rate += c.swap_rate / static_cast<double>(good.size());
    d.emplace_back("swap_rate", swap_rate);
  }
  if (divergent > 0) report.warnings.push_back(std::to_string(divergent) + " divergent trajectories after warm-up");
  if (rhat_loglik > 1.1) report.warnings.push_back("R-hat of the training log-likelihood is above 1.1");
  if (rhat_pred > 1.1) report.warnings.push_back("R-hat of predictions at training points is above 1.1");
  return Model(shape, std::move(draws), report);
}

std::size_t Model::draw_count() const {
  std::size_t count = 0;
  for (const auto& c : chains_) count += c.size();
  return count;
}

std::optional<ChainTraces> Model::chain_traces(const RegressionData& train, const Eigen::MatrixXd& X) const {
  if (chains_.size() < 2 || chains_.front().empty())
    throw std::invalid_argument("chain traces need at least two chains with kept draws");
  ChainTraces t;
  const double n = static_cast<double>(train.y.size());
  MlpWorkspace ws;
  Eigen::VectorXd f;
  for (const auto& chain : chains_) {
    t.log_likelihood.emplace_back();
    t.noise_sd.emplace_back();
    Eigen::MatrixXd outputs(static_cast<Eigen::Index>(chain.size()), X.rows());
    for (std::size_t s = 0; s < chain.size(); ++s) {
      const Draw& draw = chain[s];
      const double half_sse = mlp_squared_error(shape_, draw.theta, train.X, train.y, ws, nullptr);
      t.log_likelihood.back().push_back(gaussian_log_likelihood(half_sse, draw.noise_variance, n));
      t.noise_sd.back().push_back(std::sqrt(draw.noise_variance));
      mlp_outputs(shape_, draw.theta, X, ws, f);
      outputs.row(static_cast<Eigen::Index>(s)) = f.transpose();
    }
    t.outputs.push_back(std::move(outputs));
  }
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    Chains at_point;
    for (const auto& o : t.outputs) at_point.emplace_back(o.col(i).data(), o.col(i).data() + o.rows());
    t.rhat.push_back(split_rhat(at_point));
  }
  return t;
}

Eigen::VectorXd Model::predictive_variance(const Eigen::MatrixXd& X) const {
  const auto S = static_cast<Eigen::Index>(draw_count());
  if (S == 0) throw std::runtime_error("nn-mc: the fit produced no draws (" + report().message + ")");
  constexpr Eigen::Index kBlock = 4096;  // rows x draws of outputs held at once
  double noise = 0.0;
  for (const auto& chain : chains_)
    for (const auto& draw : chain) noise += draw.noise_variance;
  noise /= static_cast<double>(S);
  Eigen::VectorXd variance(X.rows());
  MlpWorkspace ws;
  Eigen::VectorXd outputs;
  for (Eigen::Index first = 0; first < X.rows(); first += kBlock) {
    const Eigen::Index rows = std::min(kBlock, X.rows() - first);
    Eigen::MatrixXd f(rows, S);
    Eigen::Index s = 0;
    for (const auto& chain : chains_)
      for (const auto& draw : chain) {
        mlp_outputs(shape_, draw.theta, X.middleRows(first, rows), ws, outputs);
        f.col(s++) = outputs;
      }
    const Eigen::VectorXd mean = f.rowwise().mean();
    variance.segment(first, rows) = (f.colwise() - mean).rowwise().squaredNorm() / static_cast<double>(S);
    variance.segment(first, rows).array() += noise;
  }
  return variance;
}

std::unique_ptr<Predictive> Model::predict(const Eigen::MatrixXd& X) const {
  const std::size_t S = draw_count();
  if (S == 0) throw std::runtime_error("nn-mc: the fit produced no draws (" + report().message + ")");
  Eigen::MatrixXd means(X.rows(), static_cast<Eigen::Index>(S)), variances(X.rows(), static_cast<Eigen::Index>(S));
  MlpWorkspace ws;
  Eigen::VectorXd outputs;
  Eigen::Index s = 0;
  for (const auto& chain : chains_)
    for (const auto& draw : chain) {
      mlp_outputs(shape_, draw.theta, X, ws, outputs);
      means.col(s) = outputs;
      variances.col(s).setConstant(draw.noise_variance);
      ++s;
    }
  // Convergence of the predictions at these points (up to 1000, evenly spaced).
  if (chains_.size() > 1 && X.rows() > 0) {
    const Eigen::Index m = std::min<Eigen::Index>(X.rows(), 1000);
    const Eigen::Index per = static_cast<Eigen::Index>(chains_.front().size());
    double ess = std::numeric_limits<double>::infinity();
    std::vector<double> rhats;
    for (Eigen::Index k = 0; k < m; ++k) {
      const Eigen::Index i = k * X.rows() / m;
      Chains f(chains_.size());
      for (std::size_t c = 0; c < chains_.size(); ++c)
        for (Eigen::Index t = 0; t < per; ++t) f[c].push_back(means(i, static_cast<Eigen::Index>(c) * per + t));
      rhats.push_back(split_rhat(f));
      ess = std::min(ess, ess_bulk(f));
    }
    std::sort(rhats.begin(), rhats.end());
    const double rhat = rhats.back();
    FitReport& extended = report_to_extend();
    auto& d = extended.diagnostics;
    std::erase_if(d, [](const auto& kv) { return kv.first.starts_with("rhat_pred_") || kv.first == "ess_pred_min"; });
    d.emplace_back("rhat_pred_max", rhat);
    d.emplace_back("rhat_pred_median", rhats[rhats.size() / 2]);
    d.emplace_back("rhat_pred_above_1.1",
                   static_cast<double>(std::count_if(rhats.begin(), rhats.end(), [](double r) { return r > 1.1; })) /
                       static_cast<double>(rhats.size()));
    d.emplace_back("ess_pred_min", ess);
    const std::string warning = "R-hat of predictions is above 1.1";
    if (rhat > 1.1 && std::find(extended.warnings.begin(), extended.warnings.end(), warning) == extended.warnings.end())
      extended.warnings.push_back(warning);
  }
  return std::make_unique<GaussianMixturePredictive>(std::move(means), std::move(variances));
}

}  // namespace bnn::hmc
