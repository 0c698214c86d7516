#include "protocol.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "data_error.hpp"
#include "methods/core/rng.hpp"

namespace bnn::data {

std::string Protocol::describe() const {
  switch (kind) {
    case Kind::published:
      return "published splits";
    case Kind::kfold:
      return std::to_string(folds) + "-fold cross-validation";
    case Kind::all:
      return "all rows for training (predictions on a grid)";
    case Kind::random: {
      std::string train = train_fraction > 0.0
                              ? std::to_string(static_cast<int>(std::lround(train_fraction * 100))) + "% train"
                              : std::to_string(n_train) + " train";
      std::string test = n_test > 0 ? std::to_string(n_test) + " test" : "rest test";
      return std::to_string(repeats) + " random split(s), " + train + " / " + test;
    }
  }
  return "?";
}

void Protocol::validate() const {
  // Each split is a job of every method and holds its rows' indices (8 bytes a row): bounded
  // before any is made.
  constexpr int kMaxSplits = 100'000;
  if (kind == Kind::kfold && folds < 2)
    throw std::invalid_argument("protocol: folds is " + std::to_string(folds) + ", but must be >= 2");
  if (kind == Kind::kfold && folds > kMaxSplits)
    throw std::invalid_argument("protocol: folds is " + std::to_string(folds) +
                                ", but must be <= " + std::to_string(kMaxSplits) + " (a job of every method per fold)");
  if (kind == Kind::random) {
    if (repeats < 1)
      throw std::invalid_argument("protocol: repeats is " + std::to_string(repeats) + ", but must be >= 1");
    if (repeats > kMaxSplits)
      throw std::invalid_argument("protocol: repeats is " + std::to_string(repeats) +
                                  ", but must be <= " + std::to_string(kMaxSplits) +
                                  " (a job of every method per repeat; the splits alone would take 8 bytes per row "
                                  "per repeat, " +
                                  std::to_string(repeats / 125'000) + " GB per 1000 rows)");
    if (!(train_fraction >= 0.0))  // negative or NaN would otherwise be ignored silently
      throw std::invalid_argument("protocol: train_fraction must be in (0, 1), or 0 to use n_train");
    if (train_fraction > 0.0 && n_train > 0)
      throw std::invalid_argument("protocol: give train_fraction or n_train, not both");
    if (!(train_fraction > 0.0 && train_fraction < 1.0) && n_train <= 0)
      throw std::invalid_argument("protocol: a random split needs train_fraction in (0, 1) or n_train >= 1");
    if (n_test < 0) throw std::invalid_argument("protocol: n_test must be >= 0 (0: the rest)");
  }
}

std::vector<Split> make_splits(const Protocol& protocol, Eigen::Index rows, std::uint64_t seed,
                               const std::string& dataset, const std::function<std::vector<Split>()>& published) {
  protocol.validate();
  const auto too_small = [&](const std::string& need) {
    throw DataError(dataset, 0, 0,
                    "too small for " + protocol.describe() + ": it has " + std::to_string(rows) + " rows, but " + need);
  };
  std::vector<Split> splits;
  switch (protocol.kind) {
    case Protocol::Kind::published: {
      if (!published) throw std::invalid_argument(dataset + ": no published splits available");
      splits = published();
      break;
    }
    case Protocol::Kind::kfold: {
      if (rows < 2L * protocol.folds) too_small("at least " + std::to_string(2 * protocol.folds) + " are needed");
      Rng rng(seed);
      const auto perm = random_permutation(rng, static_cast<std::size_t>(rows));
      std::vector<int> fold_of(static_cast<std::size_t>(rows));
      for (std::size_t i = 0; i < perm.size(); ++i)  // fold sizes differ by at most one
        fold_of[perm[i]] = static_cast<int>(i % static_cast<std::size_t>(protocol.folds));
      for (int k = 0; k < protocol.folds; ++k) {
        Split s;
        for (Eigen::Index r = 0; r < rows; ++r)
          (fold_of[static_cast<std::size_t>(r)] == k ? s.test : s.train).push_back(r);
        splits.push_back(std::move(s));
      }
      break;
    }
    case Protocol::Kind::all: {
      if (rows < 2) too_small("at least 2 are needed");
      Split s;
      for (Eigen::Index r = 0; r < rows; ++r) s.train.push_back(r);
      splits.push_back(std::move(s));
      break;
    }
    case Protocol::Kind::random: {
      const long n_train = protocol.train_fraction > 0.0
                               ? std::lround(protocol.train_fraction * static_cast<double>(rows))
                               : protocol.n_train;
      const long n_test = protocol.n_test > 0 ? protocol.n_test : static_cast<long>(rows) - n_train;
      if (n_train < 2 || n_test < 1 || n_train + n_test > rows)
        too_small(std::to_string(std::max(n_train, 2L)) + " training and " + std::to_string(std::max(n_test, 1L)) +
                  " test rows are needed");
      for (int r = 0; r < protocol.repeats; ++r) {
        Rng rng(derive_seed(seed, static_cast<std::uint64_t>(r)));
        const auto perm = random_permutation(rng, static_cast<std::size_t>(rows));
        Split s;
        s.train.assign(perm.begin(), perm.begin() + n_train);
        s.test.assign(perm.begin() + n_train, perm.begin() + n_train + n_test);
        std::sort(s.train.begin(), s.train.end());
        std::sort(s.test.begin(), s.test.end());
        splits.push_back(std::move(s));
      }
      break;
    }
  }
  for (const auto& s : splits)
    if (s.train.size() < 2 || (s.test.empty() && protocol.kind != Protocol::Kind::all))
      throw DataError(dataset, 0, 0, "a split has fewer than 2 training rows or no test rows");
  return splits;
}

}  // namespace bnn::data
