// A figure ([grid]): each job also predicts on the spec's grid of inputs; the report draws the
// predictions with the training points (and a synthetic problem's true function), and publishes
// the figure, the grid and the observations instead of the tables' files.
#include "experiments/src/kinds/kinds.hpp"
#include "experiments/src/kinds/single_fit.hpp"
#include "experiments/src/plot/svg_plot.hpp"
#include "experiments/src/report/grid_figure.hpp"
#include "experiments/src/report/report_context.hpp"

namespace bnn::exp {
namespace {

class FigureKind final : public ExperimentKind {
 public:
  std::string name() const override { return "figure"; }
  JobRecord run(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads, const JobRecord*,
                const std::function<void(const JobRecord&)>&) const override {
    return run_single_fit(spec, plan, job, threads, &*spec.grid);
  }
  bool is_figure() const override { return true; }
  std::string main_figure_file() const override { return "figure.svg"; }
  std::string figure_svg(ReportContext& context) const override {
    const ReportSource& s = context.source();
    return plot::render_svg(grid_figure(s.spec, context.grids(), spec_datasets(s), synthetic_truth(s)));
  }
  std::vector<std::string> header_lines(const ExperimentSpec& spec) const override {
    return {"Figure data (predictions on a grid): `bnnbench report " + spec.name +
            " --format grid`; training points: `--format observations`; the figure drawn: `--format svg`."};
  }
};

}  // namespace

const ExperimentKind& figure_kind() {
  static const FigureKind kind;
  return kind;
}

}  // namespace bnn::exp
