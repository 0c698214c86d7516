#include "experiments/src/plan/selection.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "methods/registry.hpp"

namespace bnn::exp {
namespace {

struct ParsedConfig {
  std::map<std::string, std::string> fields;   // method, seed, protocol, ... (not options)
  std::map<std::string, std::string> options;  // name -> value text
};

std::vector<std::string_view> split_on(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const auto cut = text.find(separator);
    parts.push_back(text.substr(0, cut));
    if (cut == std::string_view::npos) return parts;
    text.remove_prefix(cut + 1);
  }
}

// "name=value" -> {name, value}; nothing when there is no '=' or the name is empty.
std::optional<std::pair<std::string, std::string>> name_value(std::string_view item) {
  const auto eq = item.find('=');
  if (eq == std::string_view::npos || eq == 0) return std::nullopt;
  return std::pair{std::string(item.substr(0, eq)), std::string(item.substr(eq + 1))};
}

// Nothing when the text is not in config_identity's format (then it matches nothing older).
std::optional<ParsedConfig> parse_config(const std::string& text) {
  ParsedConfig parsed;
  for (std::string_view field : split_on(text, '|')) {
    auto nv = name_value(field);
    if (!nv || parsed.fields.count(nv->first)) return std::nullopt;
    if (nv->first != "options") {
      parsed.fields.insert(*nv);
      continue;
    }
    parsed.fields["options"] = "";  // compared option by option below
    if (nv->second.empty()) continue;
    for (std::string_view option : split_on(nv->second, ';')) {
      auto ov = name_value(option);
      if (!ov || !parsed.options.insert(*ov).second) return std::nullopt;
    }
  }
  if (!parsed.fields.count("method") || !parsed.fields.count("options")) return std::nullopt;
  return parsed;
}

// Lower is preferred: a finished job before a failed one, the current configuration first.
int preference(const JobRecord& job, ConfigMatch match) {
  return (job.status == "ok" ? 0 : 2) + (match == ConfigMatch::same ? 0 : 1);
}

}  // namespace

ConfigComparison compare_config(const std::string& stored, const std::string& current) {
  ConfigComparison result;
  if (stored == current) {
    result.match = ConfigMatch::same;
    return result;
  }
  const auto old_config = parse_config(stored);
  const auto new_config = parse_config(current);
  if (!old_config || !new_config || old_config->fields != new_config->fields) return result;
  const std::string& method = new_config->fields.at("method");
  if (!method_available(method)) return result;
  for (const auto& [name, value] : old_config->options) {
    auto it = new_config->options.find(name);
    if (it == new_config->options.end() || it->second != value) return result;
  }
  const auto& known = find_method(method).options;
  for (const auto& [name, value] : new_config->options) {
    if (old_config->options.count(name)) continue;
    auto d = std::find_if(known.begin(), known.end(), [&](const OptionInfo& o) { return o.name == name; });
    if (d == known.end() || d->earlier_value != value) return result;
    result.missing_options.push_back(name);
  }
  result.match = ConfigMatch::older;
  return result;
}

JobSelection select_jobs(const std::vector<JobRecord>& stored, const std::string& dataset,
                         const std::string& method_label, const ConfigIdentity& current) {
  JobSelection selection;
  struct Candidate {
    const JobRecord* job;
    ConfigComparison comparison;
  };
  std::map<int, Candidate> by_split;
  std::map<std::string, ConfigComparison> by_hash;  // one comparison per stored configuration
  for (const auto& job : stored) {
    if (job.key.dataset != dataset || job.key.method_label != method_label) continue;
    auto known = by_hash.find(job.key.config_hash);
    if (known == by_hash.end()) {
      ConfigComparison c;
      if (job.key.config_hash == current.hash)
        c.match = ConfigMatch::same;
      else
        c = compare_config(job.config, current.canonical);
      known = by_hash.emplace(job.key.config_hash, std::move(c)).first;
    }
    const ConfigComparison& comparison = known->second;
    if (comparison.match == ConfigMatch::different) {
      selection.other_configurations = true;
      continue;
    }
    auto [it, inserted] = by_split.try_emplace(job.key.split, Candidate{&job, comparison});
    if (inserted) continue;
    const int mine = preference(job, comparison.match),
              theirs = preference(*it->second.job, it->second.comparison.match);
    // Ties (two older configurations) go to the later finished, then to the hash: deterministic.
    if (mine < theirs || (mine == theirs && std::tie(job.finished_at, job.key.config_hash) >
                                                std::tie(it->second.job->finished_at, it->second.job->key.config_hash)))
      it->second = Candidate{&job, comparison};
  }
  for (const auto& [split, candidate] : by_split) {
    selection.jobs.push_back(candidate.job);
    if (candidate.comparison.match != ConfigMatch::older) continue;
    ++selection.older;
    selection.missing_options.insert(candidate.comparison.missing_options.begin(),
                                     candidate.comparison.missing_options.end());
  }
  return selection;
}

std::set<JobKey> selected_job_keys(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                                   const std::vector<JobRecord>& stored) {
  std::set<JobKey> keys;
  for (const auto& dc : spec.datasets) {
    const data::DatasetSpec& ds = registry.find(dc.name);
    for (const auto& m : spec.methods) {
      if (!m.runs_on(ds.name, ds.aliases)) continue;
      for (const JobRecord* job : select_jobs(stored, ds.name, m.label, config_identity(spec, dc, ds, m)).jobs)
        keys.insert(job->key);
    }
  }
  return keys;
}

std::vector<const JobRecord*> stored_records(const std::vector<Job>& jobs, const std::vector<JobRecord>& stored) {
  std::map<std::pair<std::string, std::string>, std::map<int, const JobRecord*>> chosen;  // (data set, label)
  std::vector<const JobRecord*> out;
  out.reserve(jobs.size());
  for (const Job& job : jobs) {
    auto [it, inserted] = chosen.try_emplace({job.key.dataset, job.key.method_label});
    if (inserted)
      for (const JobRecord* r :
           select_jobs(stored, job.key.dataset, job.key.method_label, {job.config, job.key.config_hash}).jobs)
        it->second[r->key.split] = r;
    const auto found = it->second.find(job.key.split);
    out.push_back(found == it->second.end() ? nullptr : found->second);
  }
  return out;
}

bool data_changed(const Job& job, const JobRecord* record) {
  return record && !record->data_hash.empty() && !job.data_hash.empty() && record->data_hash != job.data_hash;
}

bool is_finished(const Job& job, const JobRecord* record) {
  if (!record || record->status != "ok" || data_changed(job, record)) return false;
  for (const ArtifactSpec* a : job.artifacts) {
    const auto it = record->artifact_requests.find(a->kind);
    if (it == record->artifact_requests.end() || it->second != a->canonical()) return false;
  }
  return true;
}

std::vector<PlanStatus> plan_status(const std::vector<Job>& jobs, const std::vector<JobRecord>& stored) {
  std::vector<PlanStatus> rows;
  std::map<std::pair<std::string, std::string>, std::size_t> row_of;
  const std::vector<const JobRecord*> records = stored_records(jobs, stored);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Job& job = jobs[j];
    auto [it, inserted] = row_of.try_emplace({job.key.dataset, job.key.method_label}, rows.size());
    if (inserted) rows.push_back({job.key.dataset, job.key.method_label});
    PlanStatus& row = rows[it->second];
    ++row.planned;
    const JobRecord* record = records[j];
    if (!record) {
      ++row.fresh;
    } else if (data_changed(job, record)) {
      ++row.data_changed;
    } else if (record->status == "partial") {
      ++row.partial;
    } else if (record->status != "ok") {
      ++row.retry;
    } else if (!is_finished(job, record)) {
      ++row.artifacts;
    } else {
      ++(record->key.config_hash == job.key.config_hash ? row.done : row.done_older);
      row.seconds += record->fit_seconds + record->predict_seconds;
    }
  }
  return rows;
}

}  // namespace bnn::exp
