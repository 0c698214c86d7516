#pragma once
// The figures `report` draws from stored artifact tables (artifacts/kinds.hpp), one function
// per kind: the EP-NN paper's 95% intervals of NN-EP's parameters (Figures 2(c,d) and 4),
// Barber & Bishop's Gaussian fits to a two-weight posterior (Figure 2) and NN-MC's chain traces.
#include <map>
#include <string>
#include <vector>

#include "experiments/src/plot/svg_plot.hpp"
#include "experiments/src/records/artifact_table.hpp"

namespace bnn::exp {

// Per job (table parameter_marginals) a row of three panels: input weights grouped by hidden
// unit, the scale groups' log prior variances phi, the output weights (b: the output bias).
plot::Figure parameter_marginal_figure(const std::vector<JobTable>& marginals);

// A panel per Gaussian fit (tables gaussian_posterior): the posterior's contours (the
// posterior_density table of the first job that has one) and the fit's ellipses, at the
// density ratios of one, two and three sd of a Gaussian; `kl` per method label, with the
// paper's value beside it where `paper_kl` has one.
plot::Figure gaussian_fit_figure(const std::vector<JobTable>& gaussians, const ArtifactTable& density,
                                 const std::map<std::string, double>& kl,
                                 const std::map<std::string, std::string>& paper_kl);

// Four panels of one job (tables chain_draws, chain_rhat): training log-likelihood, noise
// sd, f at the test points of the largest and the median R-hat; a colour per chain.
plot::Figure chain_trace_figure(const ArtifactTable& draws, const ArtifactTable& rhat, const std::string& title,
                                const std::vector<std::string>& notes);

}  // namespace bnn::exp
