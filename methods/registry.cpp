#include "registry.hpp"

#include <stdexcept>

#include "methods/bp/bp.hpp"
#include "methods/deep_ensemble/deep_ensemble.hpp"
#include "methods/dropout/mc_dropout.hpp"
#include "methods/ensemble/ensemble.hpp"
#include "methods/gp/gp.hpp"
#include "methods/hmc/hmc.hpp"
#include "methods/laplace/laplace.hpp"
#include "methods/linear/linear.hpp"
#include "methods/nnep/nnep.hpp"
#include "methods/pbp/pbp.hpp"
#include "methods/vi/vi.hpp"

namespace bnn {
namespace {

// Builds a registry entry from an options struct and a fit function returning a model type.
// `defaults` are the options before any override (one options type may serve several names).
template <class Options, class FitFunction>
MethodEntry make_entry(std::string name, std::string summary, FitFunction fit_function, Options defaults = {},
                       std::vector<std::string> artifacts = {}) {
  MethodEntry entry;
  entry.name = name;
  entry.summary = std::move(summary);
  entry.artifacts = std::move(artifacts);
  entry.options = describe_options(defaults);
  entry.canonical_config = [name, defaults](const ParamMap& overrides) {
    Options options = defaults;
    apply_overrides(options, overrides, name);
    return canonical_options(*Validated<Options>(options, name));
  };
  entry.fit = [name, fit_function, defaults](const RegressionData& train, const ParamMap& overrides,
                                             Rng& rng) -> std::unique_ptr<Model> {
    Options options = defaults;
    apply_overrides(options, overrides, name);
    auto model = fit_function(train, Validated<Options>(options, name), rng);  // validated once, here
    return std::make_unique<decltype(model)>(std::move(model));
  };
  return entry;
}

// An entry with its quick test options (registry.hpp).
MethodEntry quick(MethodEntry entry, ParamMap options) {
  entry.quick_options = std::move(options);
  return entry;
}

std::vector<MethodEntry> build_registry() {
  const ParamMap quick_chains = {{"hidden_layers", "3"}, {"chains", "2"},      {"warmup", "20"},
                                 {"samples", "40"},      {"hyper_delay", "5"}, {"initial_optimization", "10"}};
  std::vector<MethodEntry> entries;
  entries.push_back(
      quick(make_entry<linear::Options>(
                "linear", "exact Bayesian linear regression (Normal-Gamma prior, Student-t predictive)", linear::fit),
            {}));
  entries.push_back(
      quick(make_entry<gp::Options>(
                "gp", "GP with the neural-network covariance, one shared input variance, type-II ML", gp::fit),
            {}));
  gp::Options ard;
  ard.ard = true;
  entries.push_back(quick(
      make_entry<gp::Options>(
          "gp-ard", "GP with the neural-network covariance, one variance per input (ARD), type-II ML", gp::fit, ard),
      {}));
  entries.push_back(
      quick(make_entry<pbp::Options>("pbp", "probabilistic backpropagation (ADF + EP prior refinement, ReLU network)",
                                     pbp::fit),
            {{"epochs", "2"}}));
  entries.push_back(
      quick(make_entry<bp::Options>(
                "bp", "backpropagation: SGD with momentum and weight decay, tuned by Bayesian optimization", bp::fit),
            {{"epochs", "2"}, {"tune", "false"}}));
  entries.push_back(quick(
      make_entry<vi::Options>(
          "vi", "variational inference (factorized Gaussian, Monte Carlo bound, SGD; Graves 2011 style)", vi::fit),
      {{"epochs", "2"}, {"tune", "false"}}));
  entries.push_back(quick(
      make_entry<hmc::Options>(
          "nn-mc", "Neal's hierarchical Bayesian MLP (tanh, ARD) by HMC, precisions integrated out or Gibbs-updated",
          hmc::fit, hmc::Options{}, {"chain-traces"}),
      quick_chains));
  entries.push_back(quick(
      make_entry<hmc::Options>("hmc", "HMC as the PBP paper's reference: MCMCstuff's hierarchical MLP with ReLU units",
                               hmc::fit, hmc::relu_defaults(), {"chain-traces"}),
      quick_chains));
  for (const char* form : {"full", "factor", "diagonal"}) {
    ensemble::Options defaults;
    defaults.covariance = form;
    const std::string label = std::string(form) == "factor" ? "fa" : std::string(form).substr(0, 4);
    entries.push_back(
        quick(make_entry<ensemble::Options>("vi-" + label,
                                            std::string("ensemble learning (Barber & Bishop 1998): Gaussian Q with ") +
                                                form + " covariance, erf network, exact bound, Gamma hyperpriors",
                                            ensemble::fit, defaults, {"gaussian-posterior"}),
              {{"hidden_units", "2"}, {"iterations", "20"}}));
  }
  entries.push_back(quick(
      make_entry<nnep::Options>(
          "nn-ep-la", "EP for a two-layer erf network, Laplace input-weight priors with one common scale (NN-EP-LA)",
          nnep::fit, nnep::laplace_defaults(), {"parameter-marginals"}),
      {{"hidden_units", "3"}, {"max_iterations", "5"}}));
  entries.push_back(
      quick(make_entry<nnep::Options>(
                "nn-ep-ard",
                "EP for a two-layer erf network, Gaussian ARD input-weight priors, one scale per input (NN-EP-ARD)",
                nnep::fit, nnep::ard_defaults(), {"parameter-marginals"}),
            {{"hidden_units", "3"}, {"max_iterations", "5"}}));
  entries.push_back(quick(
      make_entry<laplace::Options>(
          "laplace",
          "Laplace approximation with MacKay's evidence framework (erf network, exact Hessian, linearized predictive)",
          laplace::fit, laplace::Options{}, {"gaussian-posterior"}),
      {{"hidden_units", "2"}}));
  entries.push_back(quick(
      make_entry<laplace::Options>(
          "laplace-diag",
          "Laplace approximation, evidence framework, diagonal Gauss-Newton Hessian (tanh, PBP's active-learning LA)",
          laplace::fit, laplace::diagonal_defaults(), {"gaussian-posterior"}),
      {{"hidden_units", "2"}}));
  entries.push_back(quick(
      make_entry<mc_dropout::Options>(
          "mc-dropout",
          "MC dropout (Gal & Ghahramani 2016): ReLU network, dropout p and precision tau by grid search, T passes",
          mc_dropout::fit),
      {{"hidden_units", "3"}, {"epochs", "2"}, {"taus", "1"}, {"samples", "5"}}));
  entries.push_back(quick(
      make_entry<deep_ensemble::Options>(
          "deep-ensemble",
          "deep ensembles (Lakshminarayanan et al. 2017): 5 mean-variance ReLU networks by Adam, mixture predictive",
          deep_ensemble::fit),
      {{"members", "2"}, {"hidden_units", "3"}, {"epochs", "2"}}));
  return entries;
}

}  // namespace

const std::vector<MethodEntry>& method_registry() {
  static const std::vector<MethodEntry> registry = build_registry();
  return registry;
}

const MethodEntry& find_method(std::string_view name) {
  std::string known;
  for (const auto& entry : method_registry()) {
    if (entry.name == name) return entry;
    known += (known.empty() ? "" : ", ") + entry.name;
  }
  throw std::invalid_argument("unknown method '" + std::string(name) + "'; known methods: " + known);
}

}  // namespace bnn
