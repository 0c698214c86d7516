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

// The moment estimates of one parameter vector; step() moves it against a gradient. The step
// size is computed in double, the update in Scalar (float32 for a network Keras would train).
template <class Scalar>
class BasicAdamState {
 public:
  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  BasicAdamState(const Adam& settings, Eigen::Index parameters)
      : settings_(settings), m_(Vector::Zero(parameters)), v_(Vector::Zero(parameters)) {}

  void step(Vector& w, const Vector& gradient) {
    ++t_;
    const double rate = settings_.learning_rate * std::sqrt(1.0 - std::pow(settings_.beta2, static_cast<double>(t_))) /
                        (1.0 - std::pow(settings_.beta1, static_cast<double>(t_)));
    const auto b1 = static_cast<Scalar>(settings_.beta1), b2 = static_cast<Scalar>(settings_.beta2);
    m_ = b1 * m_ + (Scalar(1) - b1) * gradient;
    v_ = b2 * v_ + (Scalar(1) - b2) * gradient.cwiseAbs2();
    w.array() -= static_cast<Scalar>(rate) * m_.array() / (v_.array().sqrt() + static_cast<Scalar>(settings_.epsilon));
  }
  long steps() const { return t_; }

 private:
  Adam settings_;
  Vector m_, v_;
  long t_ = 0;
};
using AdamState = BasicAdamState<double>;
using AdamState32 = BasicAdamState<float>;

}  // namespace bnn
