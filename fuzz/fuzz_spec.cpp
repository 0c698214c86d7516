// libFuzzer target for the experiment-spec reader (load_experiment, experiments/src/spec/spec.cpp).
//
// The input is a spec file. bnn::data::DataError is the only accepted failure of load_experiment
// (spec.hpp: "errors are DataError with file and line"); a loaded spec must satisfy the invariants
// below. Then every method configuration's options are validated for every data set the spec
// names, as the planner does with the method registry (std::invalid_argument is accepted there).
// Any other exception, a crash, a sanitizer report or a broken invariant (reported with abort())
// is a finding. The checks are listed in fuzz/README.md.
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/src/metrics/metrics.hpp"
#include "experiments/src/spec/artifact_kinds.hpp"
#include "experiments/src/spec/spec.hpp"
#include "fuzz/fuzz_common.hpp"
#include "methods/registry.hpp"

namespace {

using bnn::data::DataError;
using bnn::data::Protocol;
using bnn::exp::ExperimentSpec;
using bnn::exp::GridSpec;
using bnn::fuzz::finding;
using bnn::fuzz::printable;

const bnn::fuzz::ScratchFile& spec_file() {
  static const bnn::fuzz::ScratchFile file("spec.toml");
  return file;
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// An integer field read from `node` must keep the value written there (no narrowing).
void check_integer(toml::node_view<const toml::node> node, long long value, const std::string& what) {
  if (const auto written = node.value<std::int64_t>(); written && node.is_integer() && *written != value)
    finding("int-truncation", what + " = " + std::to_string(*written) + " is read as " + std::to_string(value));
}

void check_protocol(const Protocol& p, toml::node_view<const toml::node> source, const std::string& where) {
  try {
    p.validate();
  } catch (const std::invalid_argument& e) {
    finding("protocol-invalid", where + ": an invalid protocol is accepted: " + e.what());
  }
  check_integer(source["folds"], p.folds, where + ".folds");
  check_integer(source["repeats"], p.repeats, where + ".repeats");
  check_integer(source["n_train"], p.n_train, where + ".n_train");
  check_integer(source["n_test"], p.n_test, where + ".n_test");
}

void check_axis(const GridSpec::Axis& a, bool with_points, const std::string& where) {
  if (!(a.from < a.to)) finding("axis", where + ": an axis with from >= to");
  if (!std::isfinite(a.from) || !std::isfinite(a.to))
    finding("axis-non-finite", where + ": an axis from " + std::to_string(a.from) + " to " + std::to_string(a.to));
  if (with_points && a.points < 2) finding("axis", where + ": an axis with fewer than 2 points");
}

void check_spec(const ExperimentSpec& s, std::string_view text, const std::string& path) {
  toml::table parsed;
  try {
    parsed = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    finding("reparse", "a spec loaded, but its text does not parse: " + std::string(e.description()));
    return;
  }
  const toml::table& root = parsed;
  if (s.path != path) finding("path", "spec.path is not the file read");
  if (s.name.empty() || s.name.front() == '.' ||
      s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string::npos)
    finding("name", "name '" + printable(s.name) + "' is not a plain folder name");
  if (const auto seed = root["seed"].value<std::int64_t>(); seed && static_cast<std::uint64_t>(*seed) != s.seed)
    finding("int-truncation", "seed");
  if (s.scale != "original" && s.scale != "normalized") finding("scale", "scale '" + printable(s.scale) + "'");
  if (s.normalization != "training-part" && s.normalization != "none")
    finding("normalization", "normalization '" + printable(s.normalization) + "'");
  check_protocol(s.protocol, root["protocol"], "protocol");

  // Data sets.
  if (s.datasets.empty()) finding("no-datasets", "a spec without data sets is accepted");
  std::vector<std::string> dataset_names;
  for (const auto& d : s.datasets) {
    dataset_names.push_back(d.name);
    const auto pd = root["per_dataset"][d.name];
    if (d.protocol) check_protocol(*d.protocol, pd["protocol"], "per_dataset." + printable(d.name) + ".protocol");
    if (d.irrelevant_inputs < 0) finding("irrelevant-inputs", "negative irrelevant_inputs");
    check_integer(pd["irrelevant_inputs"], d.irrelevant_inputs, "irrelevant_inputs");
  }
  for (const auto& other : s.other_per_dataset)
    if (contains(dataset_names, other)) finding("other-per-dataset", "a used data set in other_per_dataset");

  // Methods.
  if (s.methods.empty()) finding("no-methods", "a spec without methods is accepted");
  std::set<std::string> labels;
  std::vector<std::string> label_list;
  const long lines = bnn::fuzz::count_lines(text);
  for (const auto& m : s.methods) {
    const std::string label = "'" + printable(m.label) + "'";
    if (!labels.insert(m.label).second) finding("label", "label " + label + " used twice");
    label_list.push_back(m.label);
    if (m.label.empty()) finding("label", "an empty method label");
    if (m.label.find_first_of(" ./=,") != std::string::npos) finding("label", "label " + label);
    if (m.line < 1 || m.line > lines) finding("method-line", "line of [[method]] " + label);
    if (!m.selection.empty() && m.selection != "variance" && m.selection != "random")
      finding("selection", "selection of " + label);
    if (s.active_learning.has_value() == m.selection.empty())
      finding("selection", "selection of " + label + " does not match [active_learning]");
  }

  // Report.
  if (s.report.layout != "dataset-rows" && s.report.layout != "method-rows") finding("report", "report.layout");
  if (s.report.metrics.empty()) finding("report", "no metrics");
  for (const auto& metric : s.report.metrics)
    if (!bnn::exp::find_metric(metric)) finding("report", "unknown metric '" + printable(metric) + "'");
  if (!s.report.relative_time_to.empty() && !labels.contains(s.report.relative_time_to))
    finding("relative-time-to", "report.relative_time_to = '" + printable(s.report.relative_time_to) +
                                    "' is no [[method]] label, but accepted");

  // Grid.
  if (s.grid) {
    if (s.grid->axes.empty()) finding("axis", "grid without axes");
    for (const auto& a : s.grid->axes) check_axis(a, true, "grid.axes");
    if (!std::isfinite(s.grid->fixed)) finding("axis-non-finite", "grid.fixed is not finite");
    if (s.active_learning) finding("grid", "a grid with [active_learning]");
  }

  // Artifacts.
  const toml::array* artifact_tables = root["artifacts"].as_array();
  const bool one_per_table =
      artifact_tables == nullptr ? s.artifacts.empty() : artifact_tables->size() == s.artifacts.size();
  if (!one_per_table) finding("artifacts", "one artifact request per [[artifacts]] table");
  for (std::size_t i = 0; i < s.artifacts.size(); ++i) {
    const auto& a = s.artifacts[i];
    const std::string where = "artifacts[" + std::to_string(i) + "]";
    try {
      bnn::exp::find_artifact_kind(a.kind);
    } catch (const std::invalid_argument&) {
      finding("artifacts", where + ": unknown kind accepted");
    }
    for (const auto& label : a.methods)
      if (!labels.contains(label)) finding("artifacts", where + ": unknown method label accepted");
    for (const auto& name : a.datasets)
      if (!contains(dataset_names, name)) finding("artifacts", where + ": a data set not in 'datasets' accepted");
    for (std::size_t j = 0; j < a.splits.size(); ++j) {
      if (a.splits[j] < 0) finding("artifacts", where + ": a negative split number");
      if (one_per_table)
        check_integer(toml::node_view<const toml::node>((*artifact_tables)[i])["splits"][j], a.splits[j],
                      where + ".splits[" + std::to_string(j) + "]");
    }
    if (a.posterior) {
      if (a.kind != "gaussian-posterior") finding("artifacts", where + ": posterior settings of another kind");
      for (const auto& axis : a.posterior->box) check_axis(axis, false, where + ".posterior_box");
      if (a.posterior->cells < 50) finding("artifacts", where + ": posterior_cells < 50");
      if (a.posterior->plot[0].points > 0)
        for (const auto& axis : a.posterior->plot) check_axis(axis, true, where + ".posterior_plot");
    }
  }

  // Active learning.
  if (s.active_learning) {
    if (s.active_learning->additions < 1 || s.active_learning->additions > 100000)
      finding("active-learning", "additions out of range");
    for (const auto& name : s.active_learning->curves)
      if (!contains(dataset_names, name)) finding("active-learning", "curves names a data set not in 'datasets'");
  }

  for (const auto& reference : s.references)
    if (reference.values.empty()) finding("reference", "reference without values");
}

// The planner's check of the options (plan.cpp, check_spec): each configuration of a known method
// with each data set's options. std::invalid_argument is the documented failure; its message is
// shown on one line.
void check_options(const ExperimentSpec& s) {
  std::vector<std::string> names;
  for (const auto& d : s.datasets) names.push_back(d.name);
  for (const auto& d : s.other_per_dataset) names.push_back(d);
  for (const auto& m : s.methods) {
    const bnn::MethodEntry* entry = nullptr;
    for (const auto& e : bnn::method_registry())
      if (e.name == m.method) entry = &e;
    if (!entry) continue;  // unknown methods are the planner's error
    std::vector<std::string> targets = names;
    for (const auto& [name, options] : m.dataset_options) targets.push_back(name);
    for (const auto& name : targets) {
      try {
        const std::string canonical = entry->canonical_config(m.options_for(name, {}));
        if (canonical != entry->canonical_config(m.options_for(name, {})))
          finding("options", "canonical_config is not deterministic");
      } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        if (what.find_first_of("\r\n") != std::string::npos)
          finding("option-error-one-line", "option error is not one line: '" + printable(what) + "'");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string& path = spec_file().path();
  spec_file().write(text);
  std::optional<ExperimentSpec> spec;
  try {
    spec = bnn::exp::load_experiment(path);
  } catch (const DataError& e) {
    if (bnn::fuzz::verbose()) std::fprintf(stderr, "error: %s\n", printable(e.what()).c_str());
    bnn::fuzz::check_data_error(e, path, text);
    return 0;
  }
  if (bnn::fuzz::verbose())
    std::fprintf(stderr, "loaded: %zu data sets, %zu methods, %zu artifact requests\n", spec->datasets.size(),
                 spec->methods.size(), spec->artifacts.size());
  // Anything else propagates out of this function: libFuzzer reports it as a crash.
  check_spec(*spec, text, path);
  check_options(*spec);
  return 0;
}
