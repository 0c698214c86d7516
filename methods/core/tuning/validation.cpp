#include "validation.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace bnn::tuning {

ValidationSplit split_validation(const RegressionData& data, double fraction, Rng& rng, const char* method) {
  const auto perm = random_permutation(rng, static_cast<std::size_t>(data.X.rows()));
  const auto n_valid = static_cast<Eigen::Index>(std::lround(fraction * static_cast<double>(perm.size())));
  const auto n_fit = static_cast<Eigen::Index>(perm.size()) - n_valid;
  if (n_valid < 1 || n_fit < 2)
    throw std::invalid_argument(std::string(method) + ": the training set (" + std::to_string(perm.size()) +
                                " rows) is too small to hold out a validation part");
  ValidationSplit s{{Eigen::MatrixXd(n_fit, data.X.cols()), Eigen::VectorXd(n_fit)},
                    {Eigen::MatrixXd(n_valid, data.X.cols()), Eigen::VectorXd(n_valid)}};
  for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(perm.size()); ++k) {
    const auto src = static_cast<Eigen::Index>(perm[static_cast<std::size_t>(k)]);
    RegressionData& part = k < n_valid ? s.validation : s.fit;
    const Eigen::Index row = k < n_valid ? k : k - n_valid;
    part.X.row(row) = data.X.row(src);
    part.y[row] = data.y[src];
  }
  return s;
}

RegressionData order_by_content(const RegressionData& data, std::uint64_t key) {
  const Eigen::Index n = data.X.rows(), d = data.X.cols();
  // A row's value bits, inputs then target (+0 and -0 differ, as rows that differ in a bit may).
  const auto bits = [&](Eigen::Index row, Eigen::Index k) {
    return std::bit_cast<std::uint64_t>(k < d ? data.X(row, k) : data.y[row]);
  };
  std::vector<std::uint64_t> hash(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) {
    std::uint64_t h = key;
    for (Eigen::Index k = 0; k <= d; ++k) h = splitmix64(h ^ bits(i, k));
    hash[static_cast<std::size_t>(i)] = h;
  }
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    const auto ha = hash[static_cast<std::size_t>(a)], hb = hash[static_cast<std::size_t>(b)];
    if (ha != hb) return ha < hb;
    for (Eigen::Index k = 0; k <= d; ++k)  // equal hashes: by the values themselves
      if (bits(a, k) != bits(b, k)) return bits(a, k) < bits(b, k);
    return false;
  });
  RegressionData out{Eigen::MatrixXd(n, d), Eigen::VectorXd(n), data.target_scale};
  for (Eigen::Index i = 0; i < n; ++i) {
    out.X.row(i) = data.X.row(order[static_cast<std::size_t>(i)]);
    out.y[i] = data.y[order[static_cast<std::size_t>(i)]];
  }
  return out;
}

}  // namespace bnn::tuning
