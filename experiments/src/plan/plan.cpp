#include "experiments/src/plan/plan.hpp"

#include "experiments/src/spec/experiment_kind.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "datasets/src/fetch.hpp"
#include "datasets/src/load.hpp"
#include "datasets/src/protocol.hpp"
#include "datasets/src/synthetic.hpp"
#include "methods/core/rng.hpp"
#include "methods/registry.hpp"

namespace bnn::exp {
namespace {

std::string hex16(std::uint64_t v) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(v));
  return buffer;
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

bool method_available(const std::string& method) {
  return std::any_of(method_registry().begin(), method_registry().end(),
                     [&](const MethodEntry& e) { return e.name == method; });
}

std::uint64_t split_seed(const ExperimentSpec& spec, const std::string& dataset) {
  return derive_seed(derive_seed(spec.seed, "splits"), dataset);
}

std::uint64_t job_seed(const ExperimentSpec& spec, const JobKey& key) {
  return derive_seed(derive_seed(derive_seed(spec.seed, key.dataset), key.method_label),
                     static_cast<std::uint64_t>(key.split));
}

ConfigIdentity config_identity(const ExperimentSpec& spec, const DatasetConfig& dataset,
                               const data::DatasetSpec& dataset_spec, const MethodConfig& method) {
  ConfigIdentity id;
  const ParamMap params = method.options_for(dataset_spec.name, dataset_spec.aliases);
  const std::string options = method_available(method.method) ? find_method(method.method).canonical_config(params)
                                                              : std::string("(not implemented)");
  id.canonical = "method=" + method.method + "|options=" + options + "|seed=" + std::to_string(spec.seed) +
                 "|protocol=" + spec.protocol_for(dataset).describe() + "|scale=" + spec.scale +
                 "|irrelevant_inputs=" + std::to_string(dataset.irrelevant_inputs);
  // Only settings away from their defaults extend the identity, so earlier results keep theirs.
  if (dataset.target_transform != data::TargetTransform::none)
    id.canonical += "|target_transform=" + data::to_string(dataset.target_transform);
  if (dataset.constant_inputs != data::ConstantInputs::zero)
    id.canonical += "|constant_inputs=" + data::to_string(dataset.constant_inputs);
  if (spec.normalization != "training-part") id.canonical += "|normalization=" + spec.normalization;
  // A data set that a user's registry file added or changed: its table definition, so that
  // results of an earlier definition are not taken for this one.
  if (dataset_spec.redefined()) id.canonical += "|table=" + hex16(hash_bytes(dataset_spec.definition()));
  id.canonical += experiment_kind(spec).identity(spec, method);
  id.hash = hex16(hash_bytes(id.canonical));
  return id;
}

std::vector<const ArtifactSpec*> artifact_requests(const ExperimentSpec& spec, const JobKey& key,
                                                   const std::string& dataset_name) {
  std::vector<const ArtifactSpec*> out;
  const auto listed = [](const auto& list, const auto& value) {
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
  };
  const MethodConfig* method = nullptr;
  for (const auto& m : spec.methods)
    if (m.label == key.method_label) method = &m;
  for (const auto& a : spec.artifacts) {
    if (!listed(a.methods, key.method_label) || !listed(a.datasets, dataset_name) || !listed(a.splits, key.split))
      continue;
    // Without a list of methods: those that offer the kind.
    if (a.methods.empty() && (!method || !method_available(method->method))) continue;
    if (a.methods.empty()) {
      const auto& offered = find_method(method->method).artifacts;
      if (std::find(offered.begin(), offered.end(), a.kind) == offered.end()) continue;
    }
    for (const ArtifactSpec* other : out)
      if (other->kind == a.kind)
        throw std::invalid_argument(spec.name + ": two [[artifacts]] of kind " + a.kind + " apply to " +
                                    key.describe() + "; give each a disjoint list of methods, datasets or splits");
    out.push_back(&a);
  }
  return out;
}

std::vector<int> parse_split_list(const std::string& text) {
  std::vector<int> out;
  std::size_t start = 0;
  const auto bad = [&] { throw std::invalid_argument("--splits '" + text + "' must look like 0,2,5-9"); };
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto dash = item.find('-');
    int first = 0, last = 0;
    if (!option_detail::parse_integer(item.substr(0, dash), first)) bad();
    last = first;
    if (dash != std::string::npos && !option_detail::parse_integer(item.substr(dash + 1), last)) bad();
    if (first < 0 || last < first) bad();
    for (int s = first; s <= last; ++s) out.push_back(s);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {
std::string methods_offering(const std::string& kind) {
  std::string out;
  for (const auto& e : method_registry())
    if (std::find(e.artifacts.begin(), e.artifacts.end(), kind) != e.artifacts.end())
      out += (out.empty() ? "" : ", ") + e.name;
  return out;
}

// What the spec can only be checked against with the registry at hand: its data sets exist and
// are distinct, every dataset_options entry names a known data set, and every method's options
// are valid for every data set. Errors name the spec file.
void check_spec(const ExperimentSpec& spec, const data::DatasetRegistry& registry) {
  const std::string where = spec.path.empty() ? spec.name : spec.path;
  std::vector<const data::DatasetSpec*> used;
  for (const auto& dc : spec.datasets) {
    const data::DatasetSpec* ds = nullptr;
    try {
      ds = &registry.find(dc.name);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + ": 'datasets': " + e.what());
    }
    for (const auto* other : used)
      if (other == ds)
        throw std::invalid_argument(where + ": 'datasets' names " + ds->name + " twice (as '" + dc.name + "')");
    used.push_back(ds);
  }
  for (const auto& m : spec.methods)
    if (!method_available(m.method)) {
      std::string known;
      for (const auto& e : method_registry()) known += (known.empty() ? "" : ", ") + e.name;
      throw std::invalid_argument(where + (m.line > 0 ? ", line " + std::to_string(m.line) : std::string()) +
                                  ": [[method]] " + m.label + ": unknown method '" + m.method + "'; known: " + known);
    }
  for (const auto& name : spec.other_per_dataset) try {
      registry.find(name);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + ": per_dataset: " + e.what());
    }
  for (const auto& a : spec.artifacts)
    if (a.methods.empty() && std::none_of(spec.methods.begin(), spec.methods.end(), [&](const MethodConfig& m) {
          const auto& offered = find_method(m.method).artifacts;
          return std::find(offered.begin(), offered.end(), a.kind) != offered.end();
        }))
      throw std::invalid_argument(where + ": [[artifacts]] " + a.kind +
                                  ": no method of the spec offers it; methods that do: " + methods_offering(a.kind));
  for (const auto& m : spec.methods) {
    // A data set the registry does not know is a typo; one the spec does not use is allowed
    // (a spec copied to run on other data keeps working).
    const auto at_line = [&](long line) { return line > 0 ? ", line " + std::to_string(line) : std::string(); };
    for (const auto& [name, unused] : m.dataset_options) try {
        registry.find(name);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(
            where + at_line(m.dataset_option_lines.count(name) ? m.dataset_option_lines.at(name) : m.line) +
            ": [[method]] " + m.label + ": dataset_options: " + e.what());
      }
    for (const auto& a : spec.artifacts) {
      const auto& offered = find_method(m.method).artifacts;
      const bool offers = std::find(offered.begin(), offered.end(), a.kind) != offered.end();
      if (!offers && contains(a.methods, m.label))
        throw std::invalid_argument(where + ": [[artifacts]] " + a.kind + ": method " + m.label + " (" + m.method +
                                    ") does not offer it; methods that do: " + methods_offering(a.kind));
    }
    for (const auto& name : m.datasets) try {  // like dataset_options: unknown is a typo, unused is fine
        registry.find(name);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(where + at_line(m.line) + ": [[method]] " + m.label + ": datasets: " + e.what());
      }
    for (const auto* ds : used) try {
        if (!m.runs_on(ds->name, ds->aliases)) continue;
        find_method(m.method).canonical_config(m.options_for(ds->name, ds->aliases));
      } catch (const std::invalid_argument& e) {
        long line = m.line;  // the dataset_options entry of this data set, if it has one
        for (const auto& [name, entry_line] : m.dataset_option_lines)
          if (registry.try_find(name) == ds) line = entry_line;
        throw std::invalid_argument(where + at_line(line) + ": [[method]] " + m.label + " on " + ds->name + ": " +
                                    e.what());
      }
  }
}
}  // namespace

std::vector<std::string> checked_selection(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                           const std::vector<std::string>& method_labels,
                                           const std::vector<std::string>& dataset_names) {
  std::vector<std::string> canonical;
  for (const auto& name : dataset_names) canonical.push_back(registry.find(name).name);
  for (const auto& label : method_labels)
    if (std::none_of(spec.methods.begin(), spec.methods.end(),
                     [&](const MethodConfig& m) { return m.label == label; })) {
      std::string known;
      for (const auto& m : spec.methods) known += (known.empty() ? "" : ", ") + m.label;
      throw std::invalid_argument("--methods: " + spec.name + " has no method '" + label + "'; its methods: " + known);
    }
  for (const auto& name : canonical)
    if (std::none_of(spec.datasets.begin(), spec.datasets.end(),
                     [&](const DatasetConfig& d) { return registry.find(d.name).name == name; }))
      throw std::invalid_argument("--datasets: " + spec.name + " does not use data set '" + name + "'");
  return canonical;
}

Plan make_plan(const ExperimentSpec& spec, const data::DatasetRegistry& registry, const PlanOptions& options) {
  check_spec(spec, registry);
  Plan plan;
  const std::vector<std::string> wanted_datasets =
      checked_selection(spec, registry, options.only_methods, options.only_datasets);

  std::vector<const MethodConfig*> methods;
  for (const auto& m : spec.methods) {
    if (!options.only_methods.empty() && !contains(options.only_methods, m.label)) continue;
    methods.push_back(&m);
  }

  for (const auto& dc : spec.datasets) {
    const data::DatasetSpec& ds = registry.find(dc.name);
    if (!wanted_datasets.empty() && !contains(wanted_datasets, ds.name)) continue;
    const bool explicit_request = !wanted_datasets.empty();
    if (!ds.is_public() && !ds.is_synthetic()) {
      if (explicit_request) throw std::runtime_error(ds.name + " is not publicly available: " + ds.notes);
      plan.notes.push_back("data set " + ds.name + " is not publicly available: skipped");
      continue;
    }
    if (!ds.is_synthetic()) {
      const auto status = data::dataset_status(ds, options.data_dir);
      if (!status.present) {
        const std::string why = ds.name + ": " + status.detail + " (run `bnnbench datasets fetch " + ds.name + "`)";
        if (explicit_request) throw std::runtime_error(why);
        plan.notes.push_back("data set " + why + ": skipped");
        continue;
      }
    }
    PreparedDataset pd;
    pd.spec = &ds;
    pd.config = dc;
    pd.protocol = spec.protocol_for(dc);
    pd.normalize = spec.normalization != "none";
    pd.data = data::load_dataset(ds, options.data_dir);
    for (const auto& note : pd.data.notes) plan.notes.push_back(ds.name + ": " + note);
    data::apply_target_transform(pd.data, dc.target_transform);
    pd.warnings = data::data_warnings(pd.data);
    for (const auto& warning : pd.warnings) plan.notes.push_back("warning: " + warning);
    if (dc.irrelevant_inputs > 0) {
      Rng rng(derive_seed(derive_seed(spec.seed, "irrelevant-inputs"), ds.name));
      data::append_irrelevant_uniform_inputs(pd.data, dc.irrelevant_inputs, rng);
    }
    pd.splits = data::make_splits(pd.protocol, pd.data.X.rows(), split_seed(spec, ds.name), ds.name,
                                  [&] { return data::read_published_splits(ds, options.data_dir, pd.data.X.rows()); });
    const std::size_t dataset_index = plan.datasets.size();
    std::vector<std::string> split_hashes;
    const std::uint64_t table = table_hash(pd.data);
    for (const auto& split : pd.splits) split_hashes.push_back(data_hash(table, split));
    for (const MethodConfig* m : methods) {
      if (!m->runs_on(ds.name, ds.aliases)) continue;
      const ConfigIdentity id = config_identity(spec, dc, ds, *m);
      for (std::size_t s = 0; s < pd.splits.size(); ++s) {
        if (!options.only_splits.empty() &&
            !std::binary_search(options.only_splits.begin(), options.only_splits.end(), static_cast<int>(s)))
          continue;
        Job job;
        job.key = {spec.name, ds.name, m->label, id.hash, static_cast<int>(s)};
        job.method = m;
        job.params = m->options_for(ds.name, ds.aliases);
        job.config = id.canonical;
        job.dataset = dataset_index;
        job.seed = job_seed(spec, job.key);
        job.fit_seed = experiment_kind(spec).fit_seed(spec, ds.name, id.canonical, static_cast<int>(s), job.seed);
        job.artifacts = artifact_requests(spec, job.key, dc.name);
        job.data_hash = split_hashes[s];
        plan.jobs.push_back(std::move(job));
      }
    }
    if (!options.only_splits.empty() && options.only_splits.back() >= static_cast<int>(pd.splits.size()))
      plan.notes.push_back(ds.name + " has only " + std::to_string(pd.splits.size()) + " splits");
    plan.datasets.push_back(std::move(pd));
  }
  return plan;
}

namespace {
std::string_view bytes_of(const auto* values, std::size_t count) {
  return {reinterpret_cast<const char*>(values), count * sizeof(*values)};
}
}  // namespace

std::uint64_t table_hash(const data::Dataset& data) {
  std::uint64_t h = hash_bytes("inputs " + std::to_string(data.X.rows()) + "x" + std::to_string(data.X.cols()));
  h = hash_bytes(bytes_of(data.X.data(), static_cast<std::size_t>(data.X.size())), h);
  return hash_bytes(bytes_of(data.y.data(), static_cast<std::size_t>(data.y.size())), h);
}

std::string data_hash(std::uint64_t table, const data::Split& split) {
  std::uint64_t h = hash_bytes("train " + std::to_string(split.train.size()), table);
  h = hash_bytes(bytes_of(split.train.data(), split.train.size()), h);
  h = hash_bytes("test " + std::to_string(split.test.size()), h);
  return hex16(hash_bytes(bytes_of(split.test.data(), split.test.size()), h));
}

std::vector<Job> shard_jobs(const std::vector<Job>& jobs, int k, int n) {
  if (n < 1 || k < 1 || k > n)
    throw std::invalid_argument("--shard " + std::to_string(k) + "/" + std::to_string(n) + ": need 1 <= K <= N");
  std::vector<Job> out;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (static_cast<int>(i % static_cast<std::size_t>(n)) == k - 1) out.push_back(jobs[i]);
  return out;
}

}  // namespace bnn::exp
