#pragma once
// The two-layer network of Barber & Bishop (1998) eq. 1, optionally with an output bias:
//
//   f(x, w) = sum_i v_i g(u_i' x~) + c,   x~ = (x, 1) with input_bias, else x~ = x,
//
// so hidden biases are the weights of an appended constant input. g is erf(a / sqrt 2)
// (Barber & Bishop eq. 2) or tanh. Flat parameter vector w (k entries, D = inputs + input_bias):
//
//   w[i D, ..., i D + D - 1] = u_{i+1}  for i = 0..H-1 (with input_bias the last entry is the bias),
//   w[H D + i]               = v_{i+1}  for i = 0..H-1,
//   w[H D + H]               = c        (only with output_bias).
//
// Alongside the outputs: the sum-of-squares error E_D(w) = 0.5 sum_n (f(x_n, w) - t_n)^2 with
// its gradient, its exact Hessian and the diagonal of its Gauss-Newton approximation.
#include <Eigen/Core>

#include "mlp.hpp"
#include "model.hpp"

namespace bnn {

// The shape of this network as an MlpShape (one hidden layer, the in_rows layout above: the
// input bias is the shape's hidden_bias); activation erf or tanh.
MlpShape two_layer_shape(Eigen::Index inputs, Eigen::Index hidden, Activation activation, bool input_bias,
                         bool output_bias);

// f(x_n, w) for the rows x_n of X.
Eigen::VectorXd network_outputs(const MlpShape& shape, const Eigen::VectorXd& w, const Eigen::MatrixXd& X);

// df(x_n, w)/dw, one row per row of X (points x k).
Eigen::MatrixXd network_jacobian(const MlpShape& shape, const Eigen::VectorXd& w, const Eigen::MatrixXd& X);

// E_D(w) and, if `gradient` is not null, dE_D/dw (backpropagation).
double squared_error(const MlpShape& shape, const Eigen::VectorXd& w, const Eigen::MatrixXd& X,
                     const Eigen::VectorXd& y, Eigen::VectorXd* gradient = nullptr);

// Exact Hessian of E_D: sum_n J_n J_n' + (f_n - t_n) d^2 f_n / dw dw' (Bishop 1992).
Eigen::MatrixXd squared_error_hessian(const MlpShape& shape, const Eigen::VectorXd& w, const Eigen::MatrixXd& X,
                                      const Eigen::VectorXd& y);

// Diagonal of the Gauss-Newton (Levenberg-Marquardt) approximation sum_n J_n J_n'.
Eigen::VectorXd gauss_newton_diagonal(const MlpShape& shape, const Eigen::VectorXd& w, const Eigen::MatrixXd& X);

// log p(y | w) + log p(w) at each row of W, for Gaussian noise of precision beta and the prior
// w ~ N(0, I / alpha): n/2 log(beta / 2 pi) - beta E_D(w) + k/2 log(alpha / 2 pi) - alpha/2 |w|^2.
Eigen::VectorXd two_layer_log_joint(const MlpShape& shape, const RegressionData& train, const Eigen::MatrixXd& W,
                                    double alpha, double beta);

}  // namespace bnn
