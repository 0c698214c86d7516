// A table: each job fits once and scores its split's test part; the report's tables put our
// metrics beside the paper's, and its figure draws them.
#include "experiments/src/kinds/kinds.hpp"
#include "experiments/src/kinds/single_fit.hpp"
#include "experiments/src/plot/svg_plot.hpp"
#include "experiments/src/report/comparison_figure.hpp"
#include "experiments/src/report/report_context.hpp"

namespace bnn::exp {
namespace {

class TableKind final : public ExperimentKind {
 public:
  std::string name() const override { return "table"; }
  JobRecord run(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads, const JobRecord*,
                const std::function<void(const JobRecord&)>&) const override {
    return run_single_fit(spec, plan, job, threads, nullptr);
  }
  std::string figure_svg(ReportContext& context) const override {
    return plot::render_svg(comparison_figure(context.report()));
  }
};

}  // namespace

const ExperimentKind& table_kind() {
  static const TableKind kind;
  return kind;
}

}  // namespace bnn::exp
