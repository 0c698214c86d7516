#include "experiments/src/report/paired_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

#include "experiments/src/metrics/metrics.hpp"
#include "experiments/src/plan/selection.hpp"
#include "experiments/src/report/html_page.hpp"
#include "experiments/src/report/latex_text.hpp"

namespace bnn::exp {
namespace {

std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

const std::map<int, double>& values_of(const SplitValues& values, const std::string& dataset,
                                       const std::string& method) {
  static const std::map<int, double> none;
  const auto it = values.find({dataset, method});
  return it == values.end() ? none : it->second;
}

// The methods with a value of this metric on some data set, in order.
std::vector<std::string> methods_with_values(const PairedInput& input, const SplitValues& values) {
  std::vector<std::string> out;
  for (const auto& method : input.methods)
    if (std::any_of(input.datasets.begin(), input.datasets.end(),
                    [&](const std::string& d) { return !values_of(values, d, method).empty(); }))
      out.push_back(method);
  return out;
}

// The splits that every one of `methods` has on the data set.
std::set<int> shared_splits(const SplitValues& values, const std::string& dataset,
                            const std::vector<std::string>& methods) {
  std::set<int> shared;
  for (const auto& [split, value] : values_of(values, dataset, methods.front())) shared.insert(split);
  for (const auto& method : methods)
    std::erase_if(shared, [&](int split) { return !values_of(values, dataset, method).contains(split); });
  return shared;
}

// Average ranks over the data sets where every ranked method has values; the others go to
// `comparison.left_out` with the reason.
void rank_methods(const PairedInput& input, const SplitValues& values, const std::vector<std::string>& ranked,
                  MetricComparison& comparison) {
  std::vector<double> rank_sums(ranked.size(), 0.0);
  int ranked_datasets = 0;
  for (const auto& dataset : input.datasets) {
    std::vector<std::string> missing;
    for (const auto& method : ranked)
      if (values_of(values, dataset, method).empty()) missing.push_back(method);
    if (missing.size() == ranked.size()) {
      comparison.left_out.push_back(dataset + " (no finished split of any method)");
      continue;
    }
    if (!missing.empty()) {
      comparison.left_out.push_back(dataset + " (no finished split of " + joined(missing) + ")");
      continue;
    }
    const std::set<int> shared = shared_splits(values, dataset, ranked);
    if (shared.empty()) {
      comparison.left_out.push_back(dataset + " (no split that all of them finished)");
      continue;
    }
    std::vector<double> means;
    for (const auto& method : ranked) {
      double sum = 0.0;
      for (int split : shared) sum += values_of(values, dataset, method).at(split);
      means.push_back(sum / static_cast<double>(shared.size()));
    }
    const std::vector<double> ranks = average_ranks(means, comparison.higher_is_better);
    for (std::size_t i = 0; i < ranks.size(); ++i) rank_sums[i] += ranks[i];
    ++ranked_datasets;
  }
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    MethodRank rank{ranked[i], std::numeric_limits<double>::quiet_NaN(), ranked_datasets};
    if (ranked_datasets > 0) rank.average_rank = rank_sums[i] / ranked_datasets;
    comparison.ranks.push_back(rank);
  }
}

MetricComparison compare_metric(const PairedInput& input, const SplitValues& values, const std::string& metric,
                                const std::string& baseline) {
  MetricComparison comparison;
  comparison.metric = metric;
  comparison.higher_is_better = higher_is_better(metric);
  const std::vector<std::string> with_values = methods_with_values(input, values);
  for (const auto& method : input.methods)
    if (std::find(with_values.begin(), with_values.end(), method) == with_values.end())
      comparison.without_values.push_back(method);
  for (const auto& dataset : input.datasets) {
    std::vector<std::string> unpaired;
    for (const auto& method : with_values) {
      if (method == baseline) continue;
      PairedDifference difference = paired_difference(
          values_of(values, dataset, method), values_of(values, dataset, baseline), comparison.higher_is_better);
      if (difference.n == 0) {
        unpaired.push_back(method);
        continue;
      }
      difference.dataset = dataset;
      difference.method = method;
      comparison.differences.push_back(difference);
    }
    if (!unpaired.empty()) comparison.unpaired.push_back(dataset + " (" + joined(unpaired) + ")");
  }
  if (!with_values.empty()) rank_methods(input, values, with_values, comparison);
  return comparison;
}

// ---- rendering ----

std::string printf_text(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string printf_text(const char* format, int digits, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, digits, value);
  return buffer;
}

// Decimals that show the standard error to two significant digits (0: print 4 significant digits).
int decimals_for(double se) {
  if (!std::isfinite(se) || se <= 0) return 0;
  return std::clamp(1 - static_cast<int>(std::floor(std::log10(se))), 1, 9);
}

std::string mean_text(const PairedDifference& p) {
  const int d = decimals_for(p.se);
  return d > 0 ? printf_text("%.*f", d, p.mean) : printf_text("%.4g", p.mean);
}

std::string se_text(const PairedDifference& p, const std::string& dash) {
  if (!std::isfinite(p.se)) return dash;
  const int d = decimals_for(p.se);
  return d > 0 ? printf_text("%.*f", d, p.se) : "0";
}

std::string z_text(const PairedDifference& p, const std::string& dash) {
  return std::isfinite(p.z) ? printf_text("%.2f", p.z) : dash;
}

std::string record_text(const PairedDifference& p) {
  return std::to_string(p.wins) + "/" + std::to_string(p.ties) + "/" + std::to_string(p.losses);
}

std::string rank_text(const MethodRank& r, const std::string& dash) {
  return std::isfinite(r.average_rank) ? printf_text("%.2f", r.average_rank) : dash;
}

std::string metric_title(const std::string& metric) {
  const MetricInfo* info = find_metric(metric);
  return (info ? info->title : metric) + " (" + metric + ")";
}

std::string direction(const MetricComparison& m) { return m.higher_is_better ? "higher is better" : "lower is better"; }

// Every method ranked on some metric, in the order of the first metric that ranks it.
std::vector<std::string> ranked_methods(const PairedComparison& c) {
  std::vector<std::string> out;
  for (const auto& m : c.metrics)
    for (const auto& r : m.ranks)
      if (std::find(out.begin(), out.end(), r.method) == out.end()) out.push_back(r.method);
  return out;
}

const MethodRank* find_rank(const MetricComparison& m, const std::string& method) {
  for (const auto& r : m.ranks)
    if (r.method == method) return &r;
  return nullptr;
}

std::string better_clause(const PairedComparison& c) {
  std::vector<std::string> parts;
  for (const auto& m : c.metrics) {
    const MetricInfo* info = find_metric(m.metric);
    parts.push_back(std::string(m.higher_is_better ? "higher " : "lower ") + (info ? info->title : m.metric));
  }
  return parts.empty() ? std::string("—") : joined(parts, " and ");
}

}  // namespace

const std::vector<std::string>& paired_metrics() {
  static const std::vector<std::string> metrics = {"rmse", "test_ll"};
  return metrics;
}

bool higher_is_better(const std::string& metric) { return metric == "test_ll"; }

void check_baseline_label(const std::string& baseline, const std::vector<std::string>& labels,
                          const std::string& experiment) {
  if (std::find(labels.begin(), labels.end(), baseline) != labels.end()) return;
  throw std::invalid_argument("--paired-against '" + baseline + "': " + experiment +
                              " has no method of that label (its labels: " + joined(labels) + ")");
}

PairedDifference paired_difference(const std::map<int, double>& method, const std::map<int, double>& baseline,
                                   bool higher_is_better) {
  PairedDifference p;
  std::vector<double> differences;
  for (const auto& [split, value] : method) {
    const auto base = baseline.find(split);
    if (base == baseline.end()) continue;
    differences.push_back(value - base->second);
    if (value == base->second)
      ++p.ties;
    else if (higher_is_better ? value > base->second : value < base->second)
      ++p.wins;
    else
      ++p.losses;
  }
  p.n = static_cast<int>(differences.size());
  if (p.n == 0) return p;
  const Summary summary = mean_and_se(differences);  // se: sample sd (n - 1) / sqrt(n)
  p.mean = summary.value;
  p.se = summary.se;
  if (p.n >= 2 && summary.se > 0) p.z = summary.value / summary.se;
  return p;
}

std::vector<double> average_ranks(const std::vector<double>& means, bool higher_is_better) {
  // Rank 1 + (how many are strictly better) + (how many others are equal) / 2: the average of
  // the ranks a group of equal means spans.
  std::vector<double> ranks;
  for (std::size_t i = 0; i < means.size(); ++i) {
    int better = 0, equal = 0;
    for (std::size_t j = 0; j < means.size(); ++j) {
      if (j == i) continue;
      if (means[j] == means[i])
        ++equal;
      else if (higher_is_better ? means[j] > means[i] : means[j] < means[i])
        ++better;
    }
    ranks.push_back(1.0 + better + equal / 2.0);
  }
  return ranks;
}

PairedComparison paired_comparison(const PairedInput& input, const std::string& baseline) {
  check_baseline_label(baseline, input.methods, input.experiment);
  PairedComparison comparison{input.experiment, baseline, input.source, input.notes, {}};
  for (const auto& metric : paired_metrics()) {
    const auto values = input.values.find(metric);
    if (values != input.values.end() && !values->second.empty())
      comparison.metrics.push_back(compare_metric(input, values->second, metric, baseline));
  }
  return comparison;
}

PairedInput paired_input(const ExperimentSpec& spec, const data::DatasetRegistry& registry,
                         const std::vector<JobRecord>& jobs, const ReportSelection& selection,
                         const std::string& source) {
  PairedInput input;
  input.experiment = spec.name;
  input.source = source;
  for (const auto& d : spec.datasets)
    if (const std::string& name = registry.find(d.name).name; selection.shows_dataset(name))
      input.datasets.push_back(name);
  for (const auto& m : spec.methods)
    if (selection.shows_method(m.label)) input.methods.push_back(m.label);
  if (!selection.all())
    input.notes.push_back("part of the experiment: methods " + joined(input.methods) + "; data sets " +
                          joined(input.datasets));
  const std::set<JobKey> current = selected_job_keys(spec, registry, jobs);
  for (const JobRecord& job : jobs) {
    if (job.status != "ok" || !current.contains(job.key) || !selection.shows(job.key) || job.evaluations.empty())
      continue;
    const auto last = std::max_element(job.evaluations.begin(), job.evaluations.end(),
                                       [](const Evaluation& a, const Evaluation& b) { return a.step < b.step; });
    for (const auto& metric : paired_metrics())
      if (const auto value = last->metrics.find(metric); value != last->metrics.end() && std::isfinite(value->second))
        input.values[metric][{job.key.dataset, job.key.method_label}][job.key.split] = value->second;
  }
  return input;
}

std::string render_paired_markdown(const PairedComparison& c) {
  std::ostringstream out;
  const std::string& base = c.baseline;
  out << "# " << c.experiment << ": paired differences against " << base << "\n\n"
      << "- Results: " << c.source << "\n"
      << "- Per data set and method, over the splits where both it and " << base
      << " have a finished value (paired by split index): n is the number of shared splits, mean the mean of "
         "(method − "
      << base << "), se the sample sd of the differences / sqrt(n), z = mean / se (— where se is 0 or n < 2)\n"
      << "- w/t/l: the splits where the method is better than " << base << ", exactly equal, worse; better is "
      << better_clause(c) << "\n";
  for (const auto& note : c.notes) out << "- Note: " << note << "\n";
  out << "\n";
  if (c.metrics.empty()) out << "No finished split has a value of " << joined(paired_metrics(), " or ") << ".\n";
  for (const auto& m : c.metrics) {
    out << "## " << metric_title(m.metric) << ": method − " << base << " (" << direction(m) << ")\n\n"
        << "| data set | method | n | mean | se | z | w/t/l |\n|---|---|---|---|---|---|---|\n";
    for (const auto& p : m.differences)
      out << "| " << p.dataset << " | " << p.method << " | " << p.n << " | " << mean_text(p) << " | " << se_text(p, "—")
          << " | " << z_text(p, "—") << " | " << record_text(p) << " |\n";
    out << "\n";
    if (!m.without_values.empty())
      out << "No finished split of " << m.metric << ": " << joined(m.without_values) << ".\n";
    if (!m.unpaired.empty()) out << "No split shared with " << base << ": " << joined(m.unpaired, "; ") << ".\n";
    if (!m.without_values.empty() || !m.unpaired.empty()) out << "\n";
  }
  const std::vector<std::string> ranked = ranked_methods(c);
  if (ranked.empty()) return out.str();
  out << "## Average ranks (1 = best)\n\n"
      << "Per metric, the methods ranked within each data set by their mean over the splits all of them finished "
         "(equal means share the average of their ranks), then averaged over the data sets; \"data sets\": how "
         "many it was ranked on.\n\n| method |";
  std::string rule = "|---|";
  for (const auto& m : c.metrics) {
    out << " " << m.metric << " | data sets |";
    rule += "---|---|";
  }
  out << "\n" << rule << "\n";
  for (const auto& method : ranked) {
    out << "| " << method << " |";
    for (const auto& m : c.metrics) {
      const MethodRank* r = find_rank(m, method);
      out << " " << (r ? rank_text(*r, "—") : "—") << " | " << (r ? std::to_string(r->datasets) : "—") << " |";
    }
    out << "\n";
  }
  out << "\n";
  for (const auto& m : c.metrics)
    if (!m.left_out.empty()) out << "- " << m.metric << ": left out of the ranks: " << joined(m.left_out, "; ") << "\n";
  return out.str();
}

std::string render_paired_csv(const PairedComparison& c) {
  const auto number = [](double v) { return std::isfinite(v) ? printf_text("%.10g", v) : std::string(); };
  std::ostringstream out;
  out << "kind,metric,dataset,method,baseline,n,value,se,z,wins,ties,losses\n";
  for (const auto& m : c.metrics) {
    for (const auto& p : m.differences)
      out << "paired," << m.metric << "," << p.dataset << "," << p.method << "," << c.baseline << "," << p.n << ","
          << number(p.mean) << "," << number(p.se) << "," << number(p.z) << "," << p.wins << "," << p.ties << ","
          << p.losses << "\n";
    for (const auto& r : m.ranks)
      out << "rank," << m.metric << ",," << r.method << "," << c.baseline << "," << r.datasets << ","
          << number(r.average_rank) << ",,,,,\n";
  }
  return out.str();
}

std::string render_paired_latex(const PairedComparison& c) {
  std::ostringstream out;
  const std::string base = latex_escape(c.baseline);
  out << "% " << c.experiment << ": paired differences against " << c.baseline
      << "\n% generated by bnnbench; requires \\usepackage{booktabs}\n% Results: " << c.source
      << "\n% n: splits where both the method and " << c.baseline
      << " finished (paired by split index); se: sample sd of the differences / sqrt(n); z = mean / se; W/T/L: "
         "splits where the method is better, equal, worse\n";
  for (const auto& note : c.notes) out << "% Note: " << note << "\n";
  for (const auto& m : c.metrics) {
    out << "\\begin{table}\n\\centering\n\\caption{" << latex_escape(c.experiment + ": " + metric_title(m.metric))
        << ", method $-$ " << base << " (" << direction(m) << ")}\n"
        << "\\begin{tabular}{llrrrrr}\n\\toprule\nData set & Method & $n$ & Mean & SE & $z$ & W/T/L \\\\\n\\midrule\n";
    for (const auto& p : m.differences)
      out << latex_escape(p.dataset) << " & " << latex_escape(p.method) << " & " << p.n << " & $" << mean_text(p)
          << "$ & " << se_text(p, "--") << " & $" << z_text(p, "--") << "$ & " << record_text(p) << " \\\\\n";
    out << "\\bottomrule\n\\end{tabular}\n\\end{table}\n\n";
  }
  const std::vector<std::string> ranked = ranked_methods(c);
  if (ranked.empty()) return out.str();
  out << "\\begin{table}\n\\centering\n\\caption{" << latex_escape(c.experiment)
      << ": average rank (1 = best) over the data sets where every method has values}\n\\begin{tabular}{l"
      << std::string(2 * c.metrics.size(), 'r') << "}\n\\toprule\nMethod";
  for (const auto& m : c.metrics) out << " & " << latex_escape(m.metric) << " & data sets";
  out << " \\\\\n\\midrule\n";
  for (const auto& method : ranked) {
    out << latex_escape(method);
    for (const auto& m : c.metrics) {
      const MethodRank* r = find_rank(m, method);
      out << " & " << (r ? rank_text(*r, "--") : "--") << " & " << (r ? std::to_string(r->datasets) : "--");
    }
    out << " \\\\\n";
  }
  out << "\\bottomrule\n\\end{tabular}\n\\end{table}\n";
  for (const auto& m : c.metrics)
    if (!m.left_out.empty()) out << "% " << m.metric << ": left out of the ranks: " << joined(m.left_out, "; ") << "\n";
  return out.str();
}

std::string render_paired_html(const PairedComparison& c) {
  return html_page(c.experiment + ": paired differences against " + c.baseline, render_paired_markdown(c), {}, {});
}

}  // namespace bnn::exp
