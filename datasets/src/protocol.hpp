#pragma once
// Train/test protocols: the published index files, seeded k-fold cross-validation,
// repeated seeded random splits given by a training fraction or by sizes (with the rest, or a
// fixed number, as test points), and "all" (train on every row, no test rows: for figures
// whose predictions are made on a grid).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dataset.hpp"

namespace bnn::data {

struct Protocol {
  enum class Kind { published, kfold, random, all };
  Kind kind = Kind::published;
  int folds = 10;               // kfold
  int repeats = 1;              // random
  double train_fraction = 0.0;  // random: 0 means use n_train
  long n_train = 0;             // random
  long n_test = 0;              // random: 0 means every row not used for training

  std::string describe() const;
  void validate() const;  // std::invalid_argument with the offending field
};

// Split `rows` rows by the protocol. `published` is called for Kind::published. The seed
// fixes the splits; it depends on the experiment and data set, never on the method, so every
// method sees the same splits. Throws DataError when the data set is too small.
std::vector<Split> make_splits(const Protocol& protocol, Eigen::Index rows, std::uint64_t seed,
                               const std::string& dataset,
                               const std::function<std::vector<Split>()>& published = nullptr);

}  // namespace bnn::data
