#pragma once
// The identity of a job: experiment, data set, method configuration (its label and the hash of
// everything that changes its results) and split. Results are stored and found under it.
#include <string>
#include <tuple>

namespace bnn::exp {

struct JobKey {
  std::string experiment;
  std::string dataset;
  std::string method_label;
  std::string config_hash;
  int split = 0;
  auto tie() const { return std::tie(experiment, dataset, method_label, config_hash, split); }
  bool operator<(const JobKey& o) const { return tie() < o.tie(); }
  bool operator==(const JobKey& o) const { return tie() == o.tie(); }
  std::string describe() const { return dataset + "/" + method_label + "/split " + std::to_string(split); }
};

}  // namespace bnn::exp
