// bnnbench figure: figures that are not tables of test metrics (Barber & Bishop, Figure 2).
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "common.hpp"
#include "datasets/src/load.hpp"
#include "experiments/src/parameter_figures.hpp"
#include "experiments/src/posterior_figure.hpp"
#include "experiments/src/runner.hpp"
#include "experiments/src/spec.hpp"
#include "experiments/src/store.hpp"
#include "experiments/src/weight_intervals.hpp"
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

}  // namespace

int cmd_figure(const std::vector<std::string>& args) {
  CommonOptions common;
  std::string figure, out_dir;
  exp::PosteriorFigureOptions fo;
  po::options_description options("bnnbench figure options");
  options.add_options()
      ("figure", po::value(&figure), "figure name: bb-figure2 or epnn-weights")
      ("out", po::value(&out_dir), "output directory (default: results/FIGURE)")
      ("alpha", po::value(&fo.alpha), "weight prior precision (default 1; the paper does not print it)")
      ("beta", po::value(&fo.beta), "noise precision (default 100: the generating noise sd 0.1)")
      ("grid", po::value(&fo.grid_points), "points per axis of the KL integration grid (default 801; checked on 2x)")
      ("plot-grid", po::value(&fo.plot_points), "points per axis of the written density grid (default 201)")
      ("restarts", po::value(&fo.restarts), "extra starts of every fit (default 4)")
      ("seed", po::value(&fo.seed), "random seed (default 1)");
  if (common.parse_or_help(args, options, "figure",
                           "usage: bnnbench figure bb-figure2 [--out DIR] [--alpha A] [--beta B] [--grid N]\n"
                           "       bnnbench figure epnn-weights [--out DIR] [--seed S]\n\n"
                           "epnn-weights: the EP-NN paper's parameter panels (Figures 2(c,d) and 4): 95% intervals of NN-EP's\n"
                           "input weights, scales and output weights on the case 1 and case 2 data (weights.csv, weights.svg, report.md).\n\n"
                           "Barber & Bishop (1998), Figure 2: the posterior of the two-weight network f(x) = v erf(u x/sqrt 2)\n"
                           "on the 6-point bb-toy data, Laplace's Gaussian and the diagonal and full-covariance ensemble\n"
                           "fits at fixed hyperparameters, each with KL(Q||P) by grid integration (verified on a grid\n"
                           "twice as fine). Writes fits.csv, posterior_grid.csv, figure2.svg and report.md."))
    return 0;
  if (figure != "bb-figure2" && figure != "epnn-weights")
    throw std::invalid_argument("unknown figure '" + figure + "'; known figures: bb-figure2, epnn-weights");
  if (out_dir.empty()) out_dir = (std::filesystem::path(exp::source_dir()) / "results" / figure).string();
  if (figure == "epnn-weights") {
    for (const char* option : {"alpha", "beta", "grid", "plot-grid", "restarts"})
      if (common.given.count(option) && !common.given[option].defaulted())
        throw std::invalid_argument(std::string("--") + option + " is an option of bb-figure2, not of epnn-weights");
    return epnn_weights_figure(common, out_dir, fo.seed);
  }

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
