#include "experiments/src/verify/split_file.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "experiments/src/export/job_csv.hpp"
#include "experiments/src/io/files.hpp"
#include "experiments/src/verify/split_comparison.hpp"
#include "experiments/src/verify/verify.hpp"

namespace bnn::exp {

SplitFileOutcome compare_with_split_file(const std::string& experiment, const std::vector<JobRecord>& ours,
                                         const std::string& ours_name, const std::string& file,
                                         const std::string& published, double tolerance) {
  EquivalentConfiguration equivalent;
  const std::string job_file = find_text_file(std::filesystem::path(file).parent_path().string(), "jobs.csv");
  if (!job_file.empty()) {
    std::map<std::string, std::string> our_configs;
    for (const auto& job : ours) our_configs[job.key.config_hash] = job.config;
    equivalent = older_configuration_rule(read_job_configs(read_text_file(job_file, "--compare"), job_file),
                                          std::move(our_configs));
  }
  const SplitComparison c = compare_split_tables(render_split_csv(ours), published, file, tolerance, equivalent);
  SplitFileOutcome out;
  std::ostringstream text;
  text << "# " << experiment << ": " << ours_name << " against " << file << ", split by split\n\n"
       << c.jobs_compared << " job(s) compared (" << c.values_compared << " values, timings excepted; " << c.jobs_older
       << " stored before options of ours existed, at their defaults): " << c.jobs_identical << " identical, "
       << (tolerance > 0
               ? std::to_string(c.jobs_within) + " within the relative tolerance " + format_tolerance(tolerance) + ", "
               : std::string())
       << c.jobs_differing << " differ; " << c.not_rerun << " published job(s) not rerun here ("
       << c.other_configuration << " of them under another "
       << "configuration here), " << c.not_published << " of ours not in the published file\n";
  if (c.jobs_compared == 0) {
    out.error = "no job of " + file + " is in " + ours_name + " (same data set, method, configuration and split)";
    out.status = 1;
  }
  constexpr std::size_t kShown = 100;
  if (!c.differing.empty()) {
    text << "\n| data set | method | split | metric | ours | published | relative difference |\n"
            "|---|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < std::min(c.differing.size(), kShown); ++i) {
      const auto& d = c.differing[i];
      text << "| " << d.dataset << " | " << d.method << " | " << d.split << " | " << d.metric << " | "
           << (d.ours.empty() ? "—" : d.ours) << " | " << d.theirs << " | " << d.relative << " |\n";
    }
    if (c.differing.size() > kShown) text << "\n(" << c.differing.size() - kShown << " more not shown)\n";
  }
  if (c.jobs_differing > 0) out.status = 1;
  out.text = text.str();
  return out;
}

}  // namespace bnn::exp
