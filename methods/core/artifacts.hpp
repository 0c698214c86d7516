#pragma once
// Artifacts: what a fitted model can offer besides its predictive distribution, the
// quantities papers draw in figures. A model offers the kinds it can compute (Model's
// artifact functions, empty by default); an experiment spec asks for kinds, and the harness
// stores, renders and verifies them.
#include <Eigen/Core>
#include <string>
#include <vector>

namespace bnn {

// The marginal mean and standard deviation of one parameter under the approximate posterior.
struct ParameterMarginal {
  std::string parameter;  // family, e.g. w (input weight), phi (log prior variance), v (output weight)
  int unit = 0;           // hidden unit 1..K; 0: none (for v: the output bias)
  int input = 0;          // input 1..d, d + 1 the bias; 0: none
  double mean = 0.0, sd = 0.0;
};
using ParameterMarginals = std::vector<ParameterMarginal>;

// A Gaussian approximation N(mean, covariance) over named parameters, with the objective its
// fit maximized (a log evidence or a lower bound on it).
struct GaussianPosterior {
  std::vector<std::string> names;
  Eigen::VectorXd mean;
  Eigen::MatrixXd covariance;
  std::string objective_name;
  double objective = 0.0;
};

// The kept draws of a Markov chain Monte Carlo fit, chain by chain: the training
// log-likelihood and noise sd of each draw and the network output at given points.
struct ChainTraces {
  std::vector<std::vector<double>> log_likelihood;  // chain x draw
  std::vector<std::vector<double>> noise_sd;        // chain x draw
  std::vector<Eigen::MatrixXd> outputs;             // per chain: draws x points
  std::vector<double> rhat;                         // split R-hat of the output at each point
};

// Names of the weights of the two-layer network f(x) = sum_i v_i g(u_i' x~) + c in its flat
// order (hidden unit by unit: u_i with the bias last, then v_1..v_H, then c): "u1.1", "u1.bias",
// "v1", "c".
std::vector<std::string> two_layer_parameter_names(Eigen::Index inputs, Eigen::Index hidden, bool input_bias,
                                                   bool output_bias);

}  // namespace bnn
