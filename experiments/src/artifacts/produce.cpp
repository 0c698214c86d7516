#include "experiments/src/artifacts/produce.hpp"

#include <stdexcept>

#include "experiments/src/artifacts/posterior_grid.hpp"
#include "experiments/src/artifacts/traced_points.hpp"

namespace bnn::exp {
namespace {

[[noreturn]] void not_offered(const std::string& kind) {
  throw std::invalid_argument("the fitted model offers no " + kind + " artifact");
}

std::vector<double> as_doubles(const std::vector<int>& values) { return {values.begin(), values.end()}; }

void parameter_marginals(const ArtifactInputs& in, std::vector<ArtifactTable>& tables) {
  const auto marginals = in.model.parameter_marginals();
  if (!marginals) not_offered("parameter-marginals");
  std::vector<std::string> parameter;
  std::vector<int> unit, input;
  std::vector<double> mean, sd;
  for (const auto& m : *marginals) {
    parameter.push_back(m.parameter);
    unit.push_back(m.unit);
    input.push_back(m.input);
    mean.push_back(m.mean);
    sd.push_back(m.sd);
  }
  ArtifactTable t{"parameter-marginals", "parameter_marginals", {}};
  t.add_text("parameter", parameter).add("unit", as_doubles(unit)).add("input", as_doubles(input));
  t.add("mean", mean).add("sd", sd);
  tables.push_back(std::move(t));
}

void gaussian_posterior(const ArtifactSpec& request, const ArtifactInputs& in, std::vector<ArtifactTable>& tables,
                        std::map<std::string, double>& metrics) {
  const auto q = in.model.gaussian_posterior();
  if (!q) not_offered("gaussian-posterior");
  ArtifactTable t{"gaussian-posterior", "gaussian_posterior", {}};
  t.add_text("parameter", q->names).add("mean", {q->mean.data(), q->mean.data() + q->mean.size()});
  for (Eigen::Index c = 0; c < q->covariance.cols(); ++c)
    t.add("cov." + q->names[static_cast<std::size_t>(c)],
          {q->covariance.col(c).data(), q->covariance.col(c).data() + q->covariance.rows()});
  tables.push_back(std::move(t));
  metrics["objective"] = q->objective;
  if (!request.posterior) return;
  const LogJoint log_joint = [&](const Eigen::MatrixXd& W) {
    auto values = in.model.log_joint(in.train, W);
    if (!values) not_offered("log joint for gaussian-posterior's posterior_box");
    return *values;
  };
  const PosteriorGridResult grid = integrate_posterior(log_joint, *q, *request.posterior);
  metrics["kl"] = grid.kl;
  metrics["kl_fine"] = grid.kl_fine;
  metrics["q_mass"] = grid.mass;
  metrics["log_marginal"] = grid.log_normalizer_fine;
  if (grid.plot.rows() == 0) return;
  ArtifactTable density{"gaussian-posterior", "posterior_density", {}};
  for (Eigen::Index c = 0; c < 3; ++c)
    density.add(c < 2 ? q->names[static_cast<std::size_t>(c)] : "log_posterior",
                {grid.plot.col(c).data(), grid.plot.col(c).data() + grid.plot.rows()});
  tables.push_back(std::move(density));
}

void chain_traces(const ArtifactInputs& in, std::vector<ArtifactTable>& tables) {
  if (in.X_test.rows() == 0) throw std::invalid_argument("chain-traces needs test points");
  const auto traces = in.model.chain_traces(in.train, in.X_test);
  if (!traces) not_offered("chain-traces");
  const TracedPoints traced = traced_points(traces->rhat);
  std::vector<double> chain, draw, log_likelihood, noise_sd, f_largest, f_median;
  for (std::size_t c = 0; c < traces->outputs.size(); ++c)
    for (std::size_t s = 0; s < traces->log_likelihood[c].size(); ++s) {
      chain.push_back(static_cast<double>(c + 1));
      draw.push_back(static_cast<double>(s + 1));
      log_likelihood.push_back(traces->log_likelihood[c][s]);
      noise_sd.push_back(traces->noise_sd[c][s]);
      f_largest.push_back(traces->outputs[c](static_cast<Eigen::Index>(s), traced.worst));
      f_median.push_back(traces->outputs[c](static_cast<Eigen::Index>(s), traced.median));
    }
  ArtifactTable draws{"chain-traces", "chain_draws", {}};
  draws.add("chain", chain).add("draw", draw).add("log_likelihood", log_likelihood).add("noise_sd", noise_sd);
  draws.add("f_largest_rhat", f_largest).add("f_median_rhat", f_median);
  std::vector<double> point, row;
  for (std::size_t i = 0; i < traces->rhat.size(); ++i) {
    point.push_back(static_cast<double>(i + 1));
    row.push_back(static_cast<double>(in.test_rows.at(i)));
  }
  ArtifactTable rhat{"chain-traces", "chain_rhat", {}};
  rhat.add("point", point).add("row", row).add("rhat", traces->rhat);
  tables.push_back(std::move(draws));
  tables.push_back(std::move(rhat));
}

}  // namespace

void produce_artifact(const ArtifactSpec& request, const ArtifactInputs& inputs, std::vector<ArtifactTable>& tables,
                      std::map<std::string, double>& metrics) {
  if (request.kind == "parameter-marginals")
    parameter_marginals(inputs, tables);
  else if (request.kind == "gaussian-posterior")
    gaussian_posterior(request, inputs, tables, metrics);
  else if (request.kind == "chain-traces")
    chain_traces(inputs, tables);
  else
    throw std::invalid_argument("unknown artifact kind '" + request.kind + "'");
}

}  // namespace bnn::exp
