#include "chain_traces.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "methods/hmc/diagnostics.hpp"
#include "methods/core/mlp.hpp"

namespace bnn::exp {

namespace {

// f at one test point, chain by chain.
hmc::Chains output_column(const ChainTraces& t, Eigen::Index point) {
  hmc::Chains out;
  for (const auto& o : t.outputs) out.emplace_back(o.col(point).data(), o.col(point).data() + o.rows());
  return out;
}

}  // namespace

ChainTraces chain_traces(const hmc::Model& model, const RegressionData& train, const Eigen::MatrixXd& X_test) {
  const auto& chains = model.chains();
  if (chains.size() < 2 || chains.front().empty())
    throw std::invalid_argument("chain traces need at least two chains with kept draws");
  if (X_test.rows() == 0) throw std::invalid_argument("chain traces need test points");
  ChainTraces t;
  const double n = static_cast<double>(train.y.size());
  MlpWorkspace ws;
  Eigen::VectorXd f;
  for (const auto& chain : chains) {
    t.log_likelihood.emplace_back();
    t.noise_sd.emplace_back();
    Eigen::MatrixXd outputs(static_cast<Eigen::Index>(chain.size()), X_test.rows());
    for (std::size_t s = 0; s < chain.size(); ++s) {
      const hmc::Draw& draw = chain[s];
      const double half_sse = mlp_squared_error(model.shape(), draw.theta, train.X, train.y, ws, nullptr);
      t.log_likelihood.back().push_back(hmc::gaussian_log_likelihood(half_sse, draw.noise_variance, n));
      t.noise_sd.back().push_back(std::sqrt(draw.noise_variance));
      mlp_outputs(model.shape(), draw.theta, X_test, ws, f);
      outputs.row(static_cast<Eigen::Index>(s)) = f.transpose();
    }
    t.outputs.push_back(std::move(outputs));
  }
  for (Eigen::Index i = 0; i < X_test.rows(); ++i) t.rhat.push_back(hmc::split_rhat(output_column(t, i)));
  std::vector<Eigen::Index> order(t.rhat.size());
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return t.rhat[static_cast<std::size_t>(a)] < t.rhat[static_cast<std::size_t>(b)];
  });
  t.worst = order.back();
  t.median = order[order.size() / 2];
  return t;
}

namespace {

std::string fixed(double x, int decimals) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(decimals);
  out << x;
  return out.str();
}

plot::Panel trace_panel(const std::string& title, const std::string& y_label,
                        const std::vector<std::vector<double>>& per_chain) {
  plot::Panel panel;
  panel.title = title;
  panel.x_label = "kept draw";
  panel.y_label = y_label;
  for (std::size_t c = 0; c < per_chain.size(); ++c) {
    plot::Line line;
    line.colour = plot::palette(c);
    line.width = 1.0;
    for (std::size_t s = 0; s < per_chain[c].size(); ++s) {
      line.x.push_back(static_cast<double>(s + 1));
      line.y.push_back(per_chain[c][s]);
    }
    panel.lines.push_back(std::move(line));
  }
  return panel;
}

}  // namespace

plot::Figure chain_trace_figure(const ChainTraces& t, const std::string& title, const std::vector<std::string>& notes) {
  plot::Figure figure;
  figure.title = title;
  figure.notes = notes;
  figure.columns = 2;
  figure.panel_width = 420.0;
  figure.panel_height = 240.0;
  figure.panels.push_back(trace_panel("training log-likelihood", "log p(y | w, noise)", t.log_likelihood));
  figure.panels.push_back(trace_panel("noise sd", "sd (normalized)", t.noise_sd));
  const auto point_title = [&](const char* which, Eigen::Index i) {
    return "f at test point " + std::to_string(i + 1) + " (" + which + " R-hat, " +
           fixed(t.rhat[static_cast<std::size_t>(i)], 2) + ")";
  };
  figure.panels.push_back(trace_panel(point_title("largest", t.worst), "f(x*) (normalized)", output_column(t, t.worst)));
  figure.panels.push_back(
      trace_panel(point_title("median", t.median), "f(x*) (normalized)", output_column(t, t.median)));
  for (std::size_t c = 0; c < t.outputs.size(); ++c)
    figure.legend.push_back({"chain " + std::to_string(c + 1), plot::palette(c), plot::LegendEntry::Kind::line});
  return figure;
}

}  // namespace bnn::exp
