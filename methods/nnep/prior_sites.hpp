#pragma once
// Tilted moments of the prior terms (section 3.2.2, Appendix F): the left-truncated Student-t
// prior (5) of an output weight, and the hierarchical prior p(w_j | phi_l) (3) of an input
// weight with the Gaussian cavity of its log-variance phi_l (eqs. (24)-(28)), each with a
// fraction eta of the prior.
namespace bnn::nnep {

enum class InputPrior { laplace, gaussian };

struct PriorTilted {
  double log_normalizer = 0.0;                // log Z_hat of the tilted distribution
  double mean = 0.0, variance = 0.0;          // of the weight
  double phi_mean = 0.0, phi_variance = 0.0;  // of phi_l (hierarchical prior only)
  bool ok = true;
};

// p(v)^eta N(v | m, V) with p(v) = 2 t_nu(v | 0, scale2) on v >= 0, by adaptive Gauss-Kronrod.
PriorTilted truncated_t_tilted(double cavity_mean, double cavity_variance, double dof, double scale2, double eta);

// p(w | phi)^eta N(w | m, V) N(phi | mu, s2), p(w | phi) Laplace or Gaussian with variance
// exp(phi): analytic in w given phi (eq. (27)-(28)), trapezoid rule over phi.
PriorTilted hierarchical_tilted(InputPrior prior, double w_mean, double w_variance, double phi_mean,
                                double phi_variance, double eta);

}  // namespace bnn::nnep
