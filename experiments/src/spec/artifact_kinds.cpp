#include "experiments/src/spec/artifact_kinds.hpp"

#include <stdexcept>

namespace bnn::exp {

const std::vector<ArtifactKind>& artifact_kinds() {
  static const std::vector<ArtifactKind> kinds = {
      {"parameter-marginals",
       "mean and sd of every parameter under the approximate posterior (NN-EP's weights, scales, output weights; "
       "drawn as 95% intervals, EP-NN paper Figures 2(c,d) and 4)",
       {"parameter_marginals"}},
      {"gaussian-posterior",
       "a Gaussian over the named weights and the objective its fit maximized; with posterior_box, KL(Q||P) "
       "against the exact posterior by quadrature and its density on a grid (Barber & Bishop Figure 2)",
       {"gaussian_posterior", "posterior_density"}},
      {"chain-traces",
       "per chain and kept draw the training log-likelihood, the noise sd and f at the test points of the largest "
       "and the median split R-hat; the R-hat of every test prediction",
       {"chain_draws", "chain_rhat"}},
  };
  return kinds;
}

const ArtifactKind& find_artifact_kind(const std::string& name) {
  std::string known;
  for (const auto& kind : artifact_kinds()) {
    if (kind.name == name) return kind;
    known += (known.empty() ? "" : ", ") + kind.name;
  }
  throw std::invalid_argument("unknown artifact kind '" + name + "' (known: " + known + ")");
}

}  // namespace bnn::exp
