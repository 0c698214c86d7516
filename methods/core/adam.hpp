#pragma once
// Adam (Kingma & Ba 2015, Algorithm 1) in the form Keras runs it, which MC dropout's and deep
// ensembles' published numbers come from: the bias corrections folded into the step,
// lr_t = lr sqrt(1 - beta2^t) / (1 - beta1^t), and epsilon added to sqrt(v_t).
#include <Eigen/Core>
#include <cmath>

namespace bnn {

struct Adam {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;  // Torch's and Keras 1-2.0's default
};

// The moment estimates of one parameter vector; step() moves it against a gradient.
class AdamState {
 public:
  AdamState(const Adam& settings, Eigen::Index parameters)
      : settings_(settings), m_(Eigen::VectorXd::Zero(parameters)), v_(Eigen::VectorXd::Zero(parameters)) {}

  void step(Eigen::VectorXd& w, const Eigen::VectorXd& gradient) {
    ++t_;
    const double b1 = settings_.beta1, b2 = settings_.beta2;
    const double rate = settings_.learning_rate * std::sqrt(1.0 - std::pow(b2, static_cast<double>(t_))) /
                        (1.0 - std::pow(b1, static_cast<double>(t_)));
    m_ = b1 * m_ + (1.0 - b1) * gradient;
    v_ = b2 * v_ + (1.0 - b2) * gradient.cwiseAbs2();
    w.array() -= rate * m_.array() / (v_.array().sqrt() + settings_.epsilon);
  }
  long steps() const { return t_; }

 private:
  Adam settings_;
  Eigen::VectorXd m_, v_;
  long t_ = 0;
};

}  // namespace bnn
