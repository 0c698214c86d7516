#include "experiments/src/report/artifact_report.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "experiments/src/artifacts/traced_points.hpp"
#include "experiments/src/report/artifact_figures.hpp"
#include "experiments/src/spec/artifact_kinds.hpp"

namespace bnn::exp {
namespace {

std::string number(double x, int digits) {
  std::ostringstream out;
  out << std::setprecision(digits) << x;
  return out.str();
}

double metric(const JobRecord& job, const std::string& name) {
  for (const auto& e : job.evaluations)
    if (auto it = e.metrics.find(name); it != e.metrics.end()) return it->second;
  return std::nan("");
}

const ArtifactTable* table_of(const JobRecord& job, const std::string& name) {
  for (const auto& t : job.artifacts)
    if (t.name == name) return &t;
  return nullptr;
}

std::string job_name(const JobTable& t) { return t.dataset + " | " + t.method + " | " + std::to_string(t.split); }

double mean_of(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

std::string marginals_section(const std::vector<const JobRecord*>& jobs) {
  std::ostringstream out;
  out << "| data set | method | split | sweeps | fit status | phi means (per scale group) |\n|---|---|---|---|---|---|\n";
  for (const JobRecord* job : jobs) {
    const ArtifactTable* t = table_of(*job, "parameter_marginals");
    if (!t) continue;
    std::string phis;
    const auto& parameter = t->column("parameter").texts;
    const auto& mean = t->column("mean").numbers;
    for (std::size_t r = 0; r < t->rows(); ++r)
      if (parameter[r] == "phi") phis += (phis.empty() ? "" : ", ") + number(mean[r], 3);
    out << "| " << job->key.dataset << " | " << job->key.method_label << " | " << job->key.split << " | "
        << job->fit_iterations << " | " << job->fit_status << " | " << phis << " |\n";
  }
  return out.str();
}

std::string gaussian_section(const std::vector<const JobRecord*>& jobs) {
  std::ostringstream out;
  out << "| data set | method | split | parameters | mean | sd | corr | objective | KL(Q‖P) | KL, fine grid | Q's mass in the box |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const JobRecord* job : jobs) {
    const ArtifactTable* t = table_of(*job, "gaussian_posterior");
    if (!t) continue;
    const auto& names = t->column("parameter").texts;
    const auto& mean = t->column("mean").numbers;
    std::string params, means, sds, corr = "—";
    for (std::size_t r = 0; r < t->rows() && r < 4; ++r) {
      if (r > 0) params += ", ", means += ", ", sds += ", ";
      params += names[r];
      means += number(mean[r], 4);
      sds += number(std::sqrt(t->columns[2 + r].numbers[r]), 3);
    }
    if (t->rows() > 4) params += ", ...", means += ", ...", sds += ", ...";
    if (t->rows() == 2)
      corr = number(t->columns[3].numbers[0] / std::sqrt(t->columns[2].numbers[0] * t->columns[3].numbers[1]), 3);
    out << "| " << job->key.dataset << " | " << job->key.method_label << " | " << job->key.split << " | " << params
        << " | (" << means << ") | (" << sds << ") | " << corr << " | " << number(metric(*job, "objective"), 6) << " | "
        << number(metric(*job, "kl"), 5) << " | " << number(metric(*job, "kl_fine"), 5) << " | "
        << number(metric(*job, "q_mass"), 6) << " |\n";
  }
  out << "\nobjective: the log evidence of Laplace's approximation, the lower bound F[Q] of ensemble learning. "
         "KL by the midpoint rule (`nan`: no posterior_box asked for).\n";
  return out.str();
}

std::string traces_section(const std::vector<const JobRecord*>& jobs) {
  std::ostringstream out;
  for (const JobRecord* job : jobs) {
    const ArtifactTable* draws = table_of(*job, "chain_draws");
    const ArtifactTable* rhat = table_of(*job, "chain_rhat");
    if (!draws || !rhat) continue;
    out << "**" << job->key.describe() << "** (" << job->n_train << " training, " << job->n_test
        << " test points; normalized scale)\n\n| chain | kept draws | mean training log-likelihood | mean noise sd |\n"
           "|---|---|---|---|\n";
    std::map<int, std::pair<std::vector<double>, std::vector<double>>> chains;
    const auto& chain = draws->column("chain").numbers;
    for (std::size_t r = 0; r < draws->rows(); ++r) {
      chains[static_cast<int>(chain[r])].first.push_back(draws->column("log_likelihood").numbers[r]);
      chains[static_cast<int>(chain[r])].second.push_back(draws->column("noise_sd").numbers[r]);
    }
    for (const auto& [c, values] : chains)
      out << "| " << c << " | " << values.first.size() << " | " << number(mean_of(values.first), 5) << " | "
          << number(mean_of(values.second), 4) << " |\n";
    const auto& r = rhat->column("rhat").numbers;
    const TracedPoints traced = traced_points(r);
    const double above = static_cast<double>(std::count_if(r.begin(), r.end(), [](double x) { return x > 1.1; }));
    out << "\nSplit R-hat of the " << r.size() << " test predictions: largest "
        << number(r[static_cast<std::size_t>(traced.worst)], 3) << " (test point " << traced.worst + 1 << "), median "
        << number(r[static_cast<std::size_t>(traced.median)], 3) << " (test point " << traced.median + 1 << "), "
        << number(100.0 * above / static_cast<double>(r.size()), 3) << "% above 1.1.\n\n";
  }
  return out.str();
}

std::vector<std::string> kinds_asked(const ExperimentSpec& spec) {
  std::vector<std::string> kinds;
  for (const auto& a : spec.artifacts)
    if (std::find(kinds.begin(), kinds.end(), a.kind) == kinds.end()) kinds.push_back(a.kind);
  return kinds;
}

std::string file_stem(std::string kind) {
  for (char& c : kind)
    if (c == '-') c = '_';
  return kind;
}

}  // namespace

std::vector<JobTable> artifact_tables(const std::vector<const JobRecord*>& jobs, const std::string& table_name) {
  std::vector<JobTable> out;
  for (const JobRecord* job : jobs)
    if (const ArtifactTable* t = table_of(*job, table_name))
      out.push_back({job->key.dataset, job->key.method_label, job->key.split, t});
  return out;
}

std::string artifact_markdown(const ExperimentSpec& spec, const std::vector<const JobRecord*>& jobs) {
  const std::vector<std::string> kinds = kinds_asked(spec);
  if (kinds.empty()) return {};
  std::ostringstream out;
  out << "## Artifacts\n\n";
  if (std::none_of(jobs.begin(), jobs.end(), [](const JobRecord* job) { return !job->artifacts.empty(); })) {
    out << "These results hold no artifacts (" << kinds.size() << " kind(s) asked for: a store keeps them, committed "
        << "per-job files do not); a committed folder's artifact files are those of the store it was published from.\n\n";
    return out.str();
  }
  for (const auto& kind : kinds) {
    const ArtifactKind& info = find_artifact_kind(kind);
    out << "### " << kind << "\n\n" << info.summary << ". Files:";
    for (const auto& t : info.tables)
      if (!artifact_tables(jobs, t).empty()) out << " " << t << ".csv,";
    out << " " << file_stem(kind) << (kind == "chain-traces" ? "*.svg" : ".svg") << ".\n\n";
    if (kind == "parameter-marginals") out << marginals_section(jobs);
    if (kind == "gaussian-posterior") out << gaussian_section(jobs);
    if (kind == "chain-traces") out << traces_section(jobs);
    out << "\n";
  }
  return out.str();
}

std::vector<std::pair<std::string, std::string>> artifact_files(const ExperimentSpec& spec,
                                                                const std::vector<const JobRecord*>& jobs,
                                                                const std::map<std::string, std::string>& paper_kl) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& kind : kinds_asked(spec)) {
    for (const auto& name : find_artifact_kind(kind).tables) {
      const std::vector<JobTable> tables = artifact_tables(jobs, name);
      if (!tables.empty()) files.emplace_back(name + ".csv", artifact_csv(tables));
    }
    if (kind == "parameter-marginals") {
      const auto tables = artifact_tables(jobs, "parameter_marginals");
      if (!tables.empty())
        files.emplace_back("parameter_marginals.svg", plot::render_svg(parameter_marginal_figure(tables)));
    } else if (kind == "gaussian-posterior") {
      const auto gaussians = artifact_tables(jobs, "gaussian_posterior");
      const auto density = artifact_tables(jobs, "posterior_density");
      if (gaussians.empty() || density.empty()) continue;
      std::map<std::string, double> kl;
      for (const JobRecord* job : jobs) kl[job->key.method_label] = metric(*job, "kl");
      files.emplace_back("gaussian_posterior.svg",
                         plot::render_svg(gaussian_fit_figure(gaussians, *density.front().table, kl, paper_kl)));
    } else if (kind == "chain-traces") {
      const auto draws = artifact_tables(jobs, "chain_draws");
      const auto rhat = artifact_tables(jobs, "chain_rhat");
      for (std::size_t j = 0; j < draws.size() && j < rhat.size(); ++j) {
        const std::string what =
            spec.name + ", " + draws[j].dataset + " split " + std::to_string(draws[j].split) + ", " + draws[j].method;
        const std::string file = draws.size() == 1 ? "chain_traces.svg"
                                                   : "chain_traces_" + draws[j].dataset + "_" + draws[j].method + "_" +
                                                         std::to_string(draws[j].split) + ".svg";
        files.emplace_back(file, plot::render_svg(chain_trace_figure(*draws[j].table, *rhat[j].table,
                                                                     "Chain traces: " + what, {job_name(draws[j])})));
      }
    }
  }
  return files;
}

}  // namespace bnn::exp
