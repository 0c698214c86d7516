#pragma once
// Stochastic gradient descent with momentum (the heavy ball as Sutskever et al. 2013 write it):
// v <- momentum v - learning_rate g, w <- w + v. The gradient may be an Eigen expression of w
// (e.g. with weight decay); it is evaluated before w moves.
namespace bnn {

struct MomentumSgd {
  double learning_rate = 1e-3;
  double momentum = 0.9;

  template <class Parameter, class Gradient>
  void step(Parameter& w, Parameter& velocity, const Gradient& gradient) const {
    velocity = momentum * velocity - learning_rate * gradient;
    w += velocity;
  }
};

}  // namespace bnn
