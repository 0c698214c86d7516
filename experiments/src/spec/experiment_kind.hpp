#pragma once
// What kind of experiment a spec is, and everything that differs between the kinds: a table of
// metrics over splits, a figure of predictions on a grid ([grid]), an active-learning sequence
// ([active_learning]). Each kind is one file of experiments/src/kinds/; the planner, the runner,
// the store's reader and the report ask the spec's kind through this interface instead of
// branching on the spec. A new kind is a new file there and one line in kinds/kinds.cpp.
// Artifacts ([[artifacts]]) are not a kind: a job of a table or a figure may produce them
// besides its predictions (kinds/single_fit.cpp).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

struct Plan;
struct Job;
struct JobRecord;
class ReportContext;

class ExperimentKind {
 public:
  virtual ~ExperimentKind() = default;
  virtual std::string name() const = 0;

  // Planning. What the kind adds to a job's identity text (hashed into its key and seed), and
  // the seed a job's fits draw from (the job's own unless the kind says otherwise).
  virtual std::string identity(const ExperimentSpec& /*spec*/, const MethodConfig& /*method*/) const { return ""; }
  virtual std::uint64_t fit_seed(const ExperimentSpec& /*spec*/, const std::string& /*dataset*/,
                                 const std::string& /*identity*/, int /*split*/, std::uint64_t job_seed) const {
    return job_seed;
  }

  // Running one job (runner.hpp's execute_job; never throws). A kind that resumes a job stopped
  // part way continues after `resume`'s evaluations and gives `checkpoint` the record as it goes.
  virtual JobRecord run(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads,
                        const JobRecord* resume, const std::function<void(const JobRecord&)>& checkpoint) const = 0;
  // Whether a run reads its stored jobs back with their per-point predictions (to resume them).
  virtual bool resumes_part_way() const { return false; }

  // Reporting. Whether a format publishes its figure file instead of its table file
  // (publish.cpp's ReportFormat), the name and drawing of the main figure, a published file's
  // name, the report header's lines about the kind's own outputs, Markdown sections after the
  // tables (from the finished jobs shown), and files drawn from the shown jobs.
  virtual bool is_figure() const { return false; }
  virtual std::string main_figure_file() const { return "report.svg"; }
  virtual std::string figure_svg(ReportContext& context) const = 0;
  virtual std::string published_name(const std::string& file) const { return file; }
  virtual std::vector<std::string> header_lines(const ExperimentSpec& /*spec*/) const { return {}; }
  virtual std::string sections(const ExperimentSpec& /*spec*/, const std::vector<std::string>& /*datasets*/,
                               const std::vector<const JobRecord*>& /*finished*/) const {
    return "";
  }
  virtual void add_files(ReportContext& /*context*/,
                         std::vector<std::pair<std::string, std::string>>& /*files*/) const {}
};

// The spec's kind (kinds/kinds.cpp).
const ExperimentKind& experiment_kind(const ExperimentSpec& spec);

}  // namespace bnn::exp
