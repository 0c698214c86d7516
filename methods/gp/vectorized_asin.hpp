#pragma once
// asin with a SIMD path, for kernels that take the asin of whole matrices: `x.unaryExpr(VectorizedAsin{})`.
// std::asin is scalar (about 10 times slower per element at AVX2 width). musl's method:
//   asin(x) = x + x R(x^2)                         for |x| <= 1/2,
//   asin(x) = pi/2 - 2 asin(s), s = sqrt((1 - |x|)/2) otherwise,
// with musl's rational R on [0, 1/4], without its extra-precision step for 1/2 < |x| < 0.975:
// within 2 ulp of std::asin on [-1, 1]. Arguments outside [-1, 1] are the caller's to clamp.
#include <Eigen/Core>

#include <numbers>

namespace bnn::gp {

struct VectorizedAsin {
  // T is double or an Eigen packet of doubles; the same operations serve both.
  template <class T>
  static T eval(const T& x) {
    namespace in = Eigen::internal;
    const auto constant = [](double v) { return in::pset1<T>(v); };
    const T a = in::pabs(x);
    const T reduced = in::pcmp_lt(constant(0.5), a);
    const T t = in::pselect(reduced, in::pmul(constant(0.5), in::psub(constant(1.0), a)), in::pmul(a, a));
    const T s = in::pselect(reduced, in::psqrt(t), a);
    T numerator = constant(3.47933107596021167570e-05);
    for (double c : {7.91534994289814532176e-04, -4.00555345006794114027e-02, 2.01212532134862925881e-01,
                     -3.25565818622400915405e-01, 1.66666666666666657415e-01})
      numerator = in::padd(in::pmul(numerator, t), constant(c));
    T denominator = constant(7.70381505559019352791e-02);
    for (double c : {-6.88283971605453293030e-01, 2.02094576023350569471e+00, -2.40339491173441421878e+00, 1.0})
      denominator = in::padd(in::pmul(denominator, t), constant(c));
    const T asin_s = in::padd(s, in::pmul(s, in::pdiv(in::pmul(numerator, t), denominator)));
    const T magnitude =
        in::pselect(reduced, in::psub(constant(std::numbers::pi / 2), in::pmul(constant(2.0), asin_s)), asin_s);
    return in::pselect(in::pcmp_lt(x, constant(0.0)), in::pnegate(magnitude), magnitude);
  }
  double operator()(double x) const { return eval(x); }
  template <class Packet>
  Packet packetOp(const Packet& x) const {
    return eval(x);
  }
};

}  // namespace bnn::gp

namespace Eigen::internal {
template <>
struct functor_traits<bnn::gp::VectorizedAsin> {
  enum { Cost = 30, PacketAccess = true };
};
}  // namespace Eigen::internal
