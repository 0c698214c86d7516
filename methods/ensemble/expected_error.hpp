#pragma once
// The data term of the ensemble-learning bound: <E_D> = 0.5 sum_n <(f(x_n, w) - t_n)^2> under a
// Gaussian Q(w) = N(mean, C) (Barber & Bishop 1998, eqs. 20-23) for the two-layer erf network
// f(x, w) = sum_i v_i sigma(u_i' x~) (+ c), x~ = (x, 1) when hidden biases are used (eqs. 1-2),
// with its exact gradient with respect to the mean and the covariance.
#include <Eigen/Core>

#include "erf_moments.hpp"

namespace bnn::ensemble {

// Parameter layout w = (u_1, ..., u_H, v_1, ..., v_H[, c]); u_i has one entry per input plus one
// for the hidden bias when input_bias is set.
struct Layout {
  Eigen::Index inputs = 0;
  int hidden = 0;
  bool input_bias = true;
  bool output_bias = false;

  Eigen::Index unit_inputs() const { return inputs + (input_bias ? 1 : 0); }
  Eigen::Index size() const { return hidden * unit_inputs() + hidden + (output_bias ? 1 : 0); }
  Eigen::Index u_offset(int i) const { return i * unit_inputs(); }
  Eigen::Index v_offset(int i) const { return hidden * unit_inputs() + i; }
  Eigen::Index bias_offset() const { return hidden * unit_inputs() + hidden; }
  // Inputs with the constant column appended when input_bias is set.
  Eigen::MatrixXd augment(const Eigen::MatrixXd& X) const;
};

// Q(w): the mean and either a dense covariance or (independent weights) its diagonal.
struct GaussianQ {
  Eigen::VectorXd mean;
  Eigen::MatrixXd covariance;  // dense k x k; empty when diagonal
  Eigen::VectorXd variances;   // used when covariance is empty
  bool diagonal() const { return covariance.size() == 0; }
};

// <E_D> and its gradient: d_mean (k), d_cov (k x k, symmetric convention) or, for a diagonal Q,
// d_variances (k).
struct ExpectedError {
  double value = 0.0;
  Eigen::VectorXd d_mean;
  Eigen::MatrixXd d_cov;
  Eigen::VectorXd d_variances;
};
ExpectedError expected_squared_error(const Layout& layout, const Eigen::MatrixXd& augmented_X,
                                     const Eigen::VectorXd& targets, const GaussianQ& q, bool with_gradient);

// Predictive moments <f(x)> and <f(x)^2> under Q at the rows of augmented_X.
void output_moments(const Layout& layout, const Eigen::MatrixXd& augmented_X, const GaussianQ& q, Eigen::VectorXd& mean,
                    Eigen::VectorXd& second_moment);

}  // namespace bnn::ensemble
