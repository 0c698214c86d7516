// bnnbench figure: figures that are not tables of test metrics (Barber & Bishop, Figure 2; the
// EP-NN paper's parameter panels; NN-MC's chain traces).
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>

#include "common.hpp"
#include "datasets/src/load.hpp"
#include "experiments/src/chain_traces.hpp"
#include "experiments/src/parameter_figures.hpp"
#include "experiments/src/plan.hpp"
#include "experiments/src/posterior_figure.hpp"
#include "experiments/src/runner.hpp"
#include "experiments/src/spec.hpp"
#include "experiments/src/store.hpp"
#include "experiments/src/weight_intervals.hpp"
#include "methods/hmc/hmc.hpp"
#include "methods/registry.hpp"
#include "shared.hpp"

namespace bnn::cli {

namespace {

std::string number(double x, int digits = 6) {
  std::ostringstream out;
  out << std::setprecision(digits) << x;
  return out.str();
}

void write_or_throw(const std::filesystem::path& path, const std::string& text) {
  write_text_file(path.string(), text, "--out");
}

// The EP-NN paper's parameter panels (Figures 2(c,d) and 4): NN-EP fitted on the case 1 and
// case 2 data with the sections' priors (as in experiments/epnn-case1.toml, epnn-case2.toml).
int epnn_weights_figure(const CommonOptions& common, const std::string& out_dir, std::uint64_t seed) {
  const data::DatasetRegistry registry = common.load_registry();
  nnep::Options case1 = nnep::laplace_defaults();
  case1.linear_units = 1;
  case1.phi_prior_mean = 2.0 * std::log(0.1);
  case1.phi_prior_variance = 1.5 * 1.5;
  case1.theta_prior_mean = 2.0 * std::log(0.05);
  case1.theta_prior_variance = 1.5 * 1.5;
  nnep::Options case2 = nnep::ard_defaults();
  case2.initial_weight_variance = 0.16;
  case2.prior_start = 60;
  case2.max_iterations = 200;
  case2.theta_prior_mean = 2.0 * std::log(0.05);
  std::ostringstream csv, report;
  csv << "case,method,parameter,unit,input,mean,sd,lower95,upper95\n";
  report << "# epnn-weights: 95% marginal intervals of NN-EP's parameters (EP-NN paper, Figures 2(c,d) and 4)\n\n"
         << "- Fitted on all points, inputs and target normalized; w: input weights (input d+1 is the bias), "
         << "phi: log prior variances of the scale groups, v: output weights (unit 0 is the output bias).\n"
         << "- Code " << exp::code_version() << ", host " << exp::machine_description() << ", " << exp::utc_now() << ".\n\n"
         << "| case | method | sweeps | status | phi means (per group) |\n|---|---|---|---|---|\n";
  std::vector<exp::WeightIntervalSet> sets;
  for (const auto& [name, method, options] :
       {std::tuple{std::string("epnn-case1"), std::string("nn-ep-la"), case1},
        std::tuple{std::string("epnn-case2"), std::string("nn-ep-ard"), case2}}) {
    const data::Dataset data = data::load_dataset(registry.find(name), common.resolved_data_dir());
    FitReport fit_report;
    const auto rows = exp::nnep_weight_intervals(data, options, seed, &fit_report);
    std::string phis;
    for (const auto& r : rows) {
      csv << name << "," << method << "," << r.parameter << "," << r.unit << "," << r.input << "," << number(r.mean, 10)
          << "," << number(r.sd, 10) << "," << number(r.mean - 1.96 * r.sd, 10) << ","
          << number(r.mean + 1.96 * r.sd, 10) << "\n";
      if (r.parameter == "phi") phis += (phis.empty() ? "" : ", ") + number(r.mean, 3);
    }
    report << "| " << name << " | " << method << " | " << fit_report.iterations << " | " << to_string(fit_report.status)
           << " | " << phis << " |\n";
    sets.push_back({name, method, rows});
  }
  std::filesystem::create_directories(out_dir);
  write_or_throw(std::filesystem::path(out_dir) / "weights.csv", csv.str());
  write_or_throw(std::filesystem::path(out_dir) / "weights.svg", exp::plot::render_svg(exp::weight_interval_figure(sets)));
  report << "\nFiles: weights.csv (case, method, parameter, unit, input, mean, sd, lower95, upper95), weights.svg (the "
            "panels drawn).\n";
  write_or_throw(std::filesystem::path(out_dir) / "report.md", report.str());
  std::cout << report.str();
  return 0;
}

struct TraceOptions {
  std::string experiment = "epnn-table1", dataset = "boston", method = "nn-mc";
  int split = 0;
  std::vector<std::string> settings;
};

// Per-chain traces of one NN-MC job of an experiment, fitted exactly as the run does (same
// split, normalization, options and seed), with the split R-hat of every test prediction.
int nn_mc_traces_figure(const CommonOptions& common, const std::string& out_dir, const TraceOptions& to) {
  const exp::ExperimentSpec spec = load_spec(to.experiment, to.settings);
  const data::DatasetRegistry registry = common.load_registry();
  exp::PlanOptions plan_options;
  plan_options.data_dir = common.resolved_data_dir();
  plan_options.only_methods = {to.method};
  plan_options.only_datasets = {to.dataset};
  plan_options.only_splits = {to.split};
  const exp::Plan plan = exp::make_plan(spec, registry, plan_options);
  if (plan.jobs.size() != 1)
    throw std::invalid_argument("--method " + to.method + ", --dataset " + to.dataset + ", --split " +
                                std::to_string(to.split) + " select " + std::to_string(plan.jobs.size()) + " jobs of " +
                                spec.name + ", not one");
  const exp::Job& job = plan.jobs.front();
  if (job.method->method != "nn-mc" && job.method->method != "hmc")
    throw std::invalid_argument("--method " + to.method + " is '" + job.method->method + "' in " + spec.name +
                                "; chain traces need nn-mc or hmc");
  const exp::JobData data = exp::prepare_job_data(plan, job);
  Rng rng(job.seed);
  const auto start = std::chrono::steady_clock::now();
  const std::unique_ptr<Model> model = find_method(job.method->method).fit(data.train, job.params, rng);
  const auto* mc = dynamic_cast<const hmc::Model*>(model.get());
  if (mc == nullptr || mc->draw_count() == 0)
    throw std::runtime_error("the fit produced no draws: " + model->report().message);
  model->predict(data.X_test);  // the report's R-hat of the test predictions, as the run stores it
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const exp::ChainTraces traces = exp::chain_traces(*mc, data.train, data.X_test);

  std::ostringstream csv;
  csv << "chain,draw,log_likelihood,noise_sd,f_point_" << traces.worst + 1 << ",f_point_" << traces.median + 1 << "\n";
  for (std::size_t c = 0; c < traces.outputs.size(); ++c)
    for (std::size_t s = 0; s < traces.log_likelihood[c].size(); ++s)
      csv << c + 1 << "," << s + 1 << "," << number(traces.log_likelihood[c][s], 10) << ","
          << number(traces.noise_sd[c][s], 10) << ","
          << number(traces.outputs[c](static_cast<Eigen::Index>(s), traces.worst), 10) << ","
          << number(traces.outputs[c](static_cast<Eigen::Index>(s), traces.median), 10) << "\n";
  std::ostringstream rhat_csv;
  rhat_csv << "test_point,row,rhat\n";
  const auto& test_rows = plan.datasets.at(job.dataset).splits.at(static_cast<std::size_t>(job.key.split)).test;
  for (std::size_t i = 0; i < traces.rhat.size(); ++i)
    rhat_csv << i + 1 << "," << test_rows[i] << "," << number(traces.rhat[i], 8) << "\n";

  const std::string what = spec.name + ", " + to.dataset + " split " + std::to_string(to.split) + ", " + to.method;
  const double above = static_cast<double>(std::count_if(traces.rhat.begin(), traces.rhat.end(), [](double r) { return r > 1.1; }));
  std::vector<std::string> notes = {
      what + ": " + std::to_string(traces.outputs.size()) + " chains, " +
          std::to_string(traces.log_likelihood.front().size()) + " kept draws each; normalized scale",
      "split R-hat of the " + std::to_string(traces.rhat.size()) + " test predictions: largest " +
          number(traces.rhat[static_cast<std::size_t>(traces.worst)], 3) + ", median " +
          number(traces.rhat[static_cast<std::size_t>(traces.median)], 3) + ", " +
          number(100.0 * above / static_cast<double>(traces.rhat.size()), 3) + "% above 1.1"};
  std::filesystem::create_directories(out_dir);
  write_or_throw(std::filesystem::path(out_dir) / "traces.csv", csv.str());
  write_or_throw(std::filesystem::path(out_dir) / "rhat.csv", rhat_csv.str());
  write_or_throw(std::filesystem::path(out_dir) / "traces.svg",
                 exp::plot::render_svg(exp::chain_trace_figure(traces, "NN-MC chain traces: " + what, notes)));

  std::ostringstream report;
  report << "# nn-mc-traces: NN-MC's chains on one job of " << spec.name << "\n\n"
         << "- Job: " << what << " (" << data.train.X.rows() << " training, " << data.X_test.rows()
         << " test points), fitted as `bnnbench run` fits it (split, training-part normalization, options, seed "
         << job.seed << "); " << number(seconds, 3) << " s.\n"
         << "- Options: " << job.config << "\n"
         << "- Code " << exp::code_version() << ", host " << exp::machine_description() << ", " << exp::utc_now()
         << ".\n\n| chain | mean training log-likelihood | mean noise sd |\n|---|---|---|\n";
  for (std::size_t c = 0; c < traces.outputs.size(); ++c) {
    const auto& ll = traces.log_likelihood[c];
    const auto& sd = traces.noise_sd[c];
    report << "| " << c + 1 << " | " << number(std::accumulate(ll.begin(), ll.end(), 0.0) / static_cast<double>(ll.size()), 5)
           << " | " << number(std::accumulate(sd.begin(), sd.end(), 0.0) / static_cast<double>(sd.size()), 4) << " |\n";
  }
  report << "\n" << notes[1] << ".\n\nFit report:";
  for (const auto& [name, value] : model->report().diagnostics)
    if (name.starts_with("rhat") || name.starts_with("ess") || name == "accept_rate" || name == "divergent")
      report << " " << name << " " << number(value, 4) << ";";
  report << "\n\nFiles: traces.csv (chain, kept draw, training log-likelihood, noise sd, f at the test points of the "
            "largest and the median R-hat), rhat.csv (R-hat per test point, with its row in the data file), traces.svg "
            "(the traces drawn).\n";
  write_or_throw(std::filesystem::path(out_dir) / "report.md", report.str());
  std::cout << report.str();
  return 0;
}

}  // namespace

int cmd_figure(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string figure, out_dir;
  exp::PosteriorFigureOptions fo;
  TraceOptions to;
  po::options_description options("bnnbench figure options");
  options.add_options()
      ("figure", po::value(&figure), "figure name: bb-figure2, epnn-weights or nn-mc-traces")
      ("out", po::value(&out_dir), "output directory (default: results/FIGURE)")
      ("alpha", po::value(&fo.alpha), "weight prior precision (default 1; the paper does not print it)")
      ("beta", po::value(&fo.beta), "noise precision (default 100: the generating noise sd 0.1)")
      ("grid", po::value(&fo.grid_points), "points per axis of the KL integration grid (default 801; checked on 2x)")
      ("plot-grid", po::value(&fo.plot_points), "points per axis of the written density grid (default 201)")
      ("restarts", po::value(&fo.restarts), "extra starts of every fit (default 4)")
      ("seed", po::value(&fo.seed), "random seed (default 1)")
      ("experiment", po::value(&to.experiment), "nn-mc-traces: experiment name or spec file (default epnn-table1)")
      ("dataset", po::value(&to.dataset), "nn-mc-traces: data set (default boston)")
      ("split", po::value(&to.split), "nn-mc-traces: split (default 0)")
      ("method", po::value(&to.method), "nn-mc-traces: method label in the experiment (default nn-mc)")
      ("set", po::value(&to.settings)->composing(), "nn-mc-traces: override as in `run --set` (repeatable)");
  if (common.parse_or_help(args, options, "figure",
                           "usage: bnnbench figure bb-figure2 [--out DIR] [--alpha A] [--beta B] [--grid N]\n"
                           "       bnnbench figure epnn-weights [--out DIR] [--seed S]\n"
                           "       bnnbench figure nn-mc-traces [--out DIR] [--experiment E] [--dataset D] [--split S]\n"
                           "                                    [--method LABEL] [--set OPTION=VALUE]...\n\n"
                           "nn-mc-traces: the chains of one NN-MC job, fitted as `run` fits it: traces of the training\n"
                           "log-likelihood, the noise sd and the test predictions of the largest and the median split R-hat\n"
                           "(traces.csv, rhat.csv, traces.svg, report.md).\n\n"
                           "epnn-weights: the EP-NN paper's parameter panels (Figures 2(c,d) and 4): 95% intervals of NN-EP's\n"
                           "input weights, scales and output weights on the case 1 and case 2 data (weights.csv, weights.svg, report.md).\n\n"
                           "Barber & Bishop (1998), Figure 2: the posterior of the two-weight network f(x) = v erf(u x/sqrt 2)\n"
                           "on the 6-point bb-toy data, Laplace's Gaussian and the diagonal and full-covariance ensemble\n"
                           "fits at fixed hyperparameters, each with KL(Q||P) by grid integration (verified on a grid\n"
                           "twice as fine). Writes fits.csv, posterior_grid.csv, figure2.svg and report.md."))
    return 0;
  const std::map<std::string, std::vector<std::string>> own_options = {
      {"bb-figure2", {"alpha", "beta", "grid", "plot-grid", "restarts", "seed"}},
      {"epnn-weights", {"seed"}},
      {"nn-mc-traces", {"experiment", "dataset", "split", "method", "set"}}};
  if (!own_options.count(figure))
    throw std::invalid_argument("unknown figure '" + figure + "'; known figures: bb-figure2, epnn-weights, nn-mc-traces");
  const auto& mine = own_options.at(figure);
  for (const auto& [name, value] : common.given) {
    if (value.defaulted() || std::find(mine.begin(), mine.end(), name) != mine.end()) continue;
    std::string owners;  // the figures that take this option
    for (const auto& [other, names] : own_options)
      if (std::find(names.begin(), names.end(), name) != names.end()) owners += (owners.empty() ? "" : " and ") + other;
    if (!owners.empty()) throw std::invalid_argument("--" + name + " is an option of " + owners + ", not of " + figure);
  }
  if (out_dir.empty()) out_dir = (std::filesystem::path(exp::source_dir()) / "results" / figure).string();
  if (figure == "epnn-weights") return epnn_weights_figure(common, out_dir, fo.seed);
  if (figure == "nn-mc-traces") return nn_mc_traces_figure(common, out_dir, to);

  const data::DatasetRegistry registry = common.load_registry();
  const data::Dataset data = data::load_dataset(registry.find("bb-toy"), common.resolved_data_dir());
  const auto start = std::chrono::steady_clock::now();
  const exp::PosteriorFigure result = exp::two_parameter_posterior_figure(data, fo);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::filesystem::create_directories(out_dir);
  std::ostringstream fits;
  fits << "method,mean_u,mean_v,var_u,var_v,cov_uv,objective,kl,kl_fine_grid,q_mass_in_box,paper_kl\n";
  const std::map<std::string, std::string> paper{{"laplace", "41"}, {"vi-diag", "4.6"}, {"vi-full", "3.9"}};
  for (const auto& f : result.fits)
    fits << f.method << "," << number(f.mean[0], 10) << "," << number(f.mean[1], 10) << ","
         << number(f.covariance(0, 0), 10) << "," << number(f.covariance(1, 1), 10) << ","
         << number(f.covariance(0, 1), 10) << "," << number(f.objective, 10) << "," << number(f.kl, 10) << ","
         << number(f.kl_fine, 10) << "," << number(f.mass, 10) << "," << paper.at(f.method) << "\n";
  write_or_throw(std::filesystem::path(out_dir) / "fits.csv", fits.str());

  std::ostringstream grid;
  grid << "u,v,log_posterior,log_q_laplace,log_q_vi_diag,log_q_vi_full\n";
  for (Eigen::Index r = 0; r < result.plot.rows(); ++r) {
    for (Eigen::Index c = 0; c < result.plot.cols(); ++c) grid << (c ? "," : "") << number(result.plot(r, c), 8);
    grid << "\n";
  }
  write_or_throw(std::filesystem::path(out_dir) / "posterior_grid.csv", grid.str());
  write_or_throw(std::filesystem::path(out_dir) / "figure2.svg",
                 exp::plot::render_svg(exp::posterior_fit_figure(result, paper)));

  std::ostringstream report;
  report << "# bb-figure2: Gaussian approximations to a two-weight posterior (Barber & Bishop 1998, Figure 2)\n\n"
         << "- Network f(x) = v erf(u x / sqrt 2), no biases; data bb-toy (" << data.y.size()
         << " points, y = -2.5 sigma(-0.13 x) + N(0, 0.1^2), registry seed); alpha = " << number(fo.alpha)
         << ", beta = " << number(fo.beta) << " fixed (the paper does not print its values).\n"
         << "- KL(Q||P) by the midpoint rule on " << fo.grid_points << "^2 cells over u in [" << number(result.u_min, 4)
         << ", " << number(result.u_max, 4) << "], v in [" << number(result.v_min, 4) << ", "
         << number(result.v_max, 4) << "], repeated on " << 2 * fo.grid_points << "^2 cells; log p(D) = "
         << number(result.log_normalizer, 8) << " (fine grid " << number(result.log_normalizer_fine, 8) << ").\n"
         << "- The posterior is symmetric under (u, v) -> (-u, -v): it has two modes and each Gaussian covers one.\n"
         << "- Code " << exp::code_version() << ", host " << exp::machine_description() << ", " << exp::utc_now()
         << ", " << number(seconds, 3) << " s.\n\n"
         << "| method | mean (u, v) | sd (u, v) | corr | objective | KL(Q‖P) | KL, fine grid | paper KL |\n"
         << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& f : result.fits) {
    const double su = std::sqrt(f.covariance(0, 0)), sv = std::sqrt(f.covariance(1, 1));
    report << "| " << f.method << " | (" << number(f.mean[0], 4) << ", " << number(f.mean[1], 4) << ") | ("
           << number(su, 3) << ", " << number(sv, 3) << ") | " << number(f.covariance(0, 1) / (su * sv), 3) << " | "
           << number(f.objective, 6) << " | " << number(f.kl, 5) << " | " << number(f.kl_fine, 5) << " | "
           << paper.at(f.method) << " |\n";
  }
  report << "\nobjective: log evidence of the Laplace approximation; lower bound F[Q] for the ensemble fits.\n"
         << "Files: fits.csv (this table), posterior_grid.csv (log densities on a " << fo.plot_points
         << "^2 grid), figure2.svg (contours of the posterior and of each fit).\n";
  write_or_throw(std::filesystem::path(out_dir) / "report.md", report.str());
  std::cout << report.str();
  return 0;
}

}  // namespace bnn::cli
