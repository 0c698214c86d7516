#pragma once
// Experiment specs: one TOML file per paper table or figure (experiments/*.toml). A spec names
// the data sets and their protocol, the method configurations, the scale of the metrics,
// the report layout and where the paper's own numbers are.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "datasets/src/normalize.hpp"
#include "datasets/src/protocol.hpp"
#include "datasets/src/target_transform.hpp"
#include "methods/core/options.hpp"

namespace bnn::exp {

struct DatasetConfig {
  std::string name;                        // as written in the spec (resolved via the registry)
  std::optional<data::Protocol> protocol;  // overrides the experiment's protocol
  long irrelevant_inputs = 0;              // uniform noise inputs appended (EP-NN Kin40k)
  data::TargetTransform target_transform = data::TargetTransform::none;  // applied on loading
  data::ConstantInputs constant_inputs = data::ConstantInputs::zero;     // how constant columns standardize
};

struct MethodConfig {
  std::string label;   // unique name of this configuration (report column)
  std::string method;  // registry name
  ParamMap options;
  std::map<std::string, ParamMap, std::less<>> dataset_options;  // extra options per data set
  std::vector<std::string> datasets;                // the data sets it runs on (as the registry names them); empty: all
  std::string paper_name;                           // the method's name in the reference table
  std::map<std::string, std::string> paper_filter;  // extra column = value conditions
  // Active learning ([active_learning]): how the next point leaves the pool, "variance" (the
  // largest predictive variance, the maximum-entropy choice of the PBP paper's eq. (19)) or
  // "random" (uniform over the pool). Empty otherwise.
  std::string selection;
  long line = 0;                                                  // of its [[method]] table in the spec file
  std::map<std::string, long, std::less<>> dataset_option_lines;  // of each dataset_options entry
  // Options for one data set: spec options overlaid with that data set's options.
  ParamMap options_for(const std::string& dataset, const std::vector<std::string>& aliases) const;
  bool runs_on(const std::string& dataset, const std::vector<std::string>& aliases) const;
};

struct ReferenceSpec {
  std::string file;                  // in results/reference/
  std::string source;                // the publication, when not the spec's paper (named in the report's header)
  std::vector<std::string> methods;  // the method labels it has numbers for; empty: every method
  std::string dataset_column = "dataset";
  std::string fixed_dataset;                         // for single-data-set tables without a dataset column
  std::map<std::string, std::string> dataset_names;  // paper name -> registry name
  std::string method_column;                         // empty: methods are encoded in column names via {paper}
  std::map<std::string, std::string> values;         // metric -> column pattern
  std::map<std::string, std::string> errors;         // metric -> column pattern of its standard error
};

struct ReportSpec {
  std::string layout = "dataset-rows";  // or "method-rows"
  std::vector<std::string> metrics;
  std::string relative_time_to;  // method label that rel_time is relative to
};

// Predictions on a grid of inputs (original units), for figures: a full product of the axes,
// or each input varied in turn along one axis with the others fixed (EP-NN Figure 3).
struct GridSpec {
  enum class Mode { product, one_at_a_time };
  Mode mode = Mode::product;
  struct Axis {
    double from = 0.0, to = 0.0;
    long points = 0;
  };
  std::vector<Axis> axes;  // product: one per input; one_at_a_time: one for all, or one per input
  double fixed = 0.0;      // one_at_a_time: value of the inputs not varied
};

// Artifacts a spec asks for ([[artifacts]]): a kind (artifacts/kinds.hpp) for the jobs of the
// listed methods, data sets and splits (empty lists: all; methods: those that offer the kind).
struct ArtifactSpec {
  std::string kind;
  std::vector<std::string> methods;   // labels
  std::vector<std::string> datasets;  // names as written in the spec
  std::vector<int> splits;
  // gaussian-posterior of a model with two parameters: KL(Q||P) against the exact posterior by
  // the midpoint rule on `cells` x `cells` cells of the box (extended to 8 sd of Q), repeated on
  // twice as many per axis, and, if `plot` has points, the normalized log posterior on that grid
  // (one axis per parameter).
  struct PosteriorGrid {
    GridSpec::Axis box[2];  // points unused
    long cells = 0;
    GridSpec::Axis plot[2];
  };
  std::optional<PosteriorGrid> posterior;
  // The request's canonical text: stored with the artifacts, so that a changed request is rerun.
  std::string canonical() const;
};

// Active learning (PBP paper, section 5.4): each split's training part is the initial set, its
// test part the test set and every other row the pool, whose targets are read only once a
// point leaves it. A job fits, evaluates, moves one pool point to the training set (chosen by
// its method's `selection`) and refits from scratch, `additions` times: additions + 1
// evaluations.
struct ActiveLearningSpec {
  int additions = 0;
  // Data sets whose learning curves (test RMSE against the number of evaluations) the report
  // draws; empty: all.
  std::vector<std::string> curves;
};

struct ExperimentSpec {
  std::string name;
  std::string title;
  std::string paper;
  std::string notes;
  std::string path;
  std::uint64_t seed = 1;
  std::string scale = "original";  // or "normalized"
  // "training-part": inputs and target standardized with the training part's statistics (every
  // table); "none": methods see the data as they are (Barber & Bishop's Figure 2).
  std::string normalization = "training-part";
  data::Protocol protocol;
  std::vector<DatasetConfig> datasets;
  // per_dataset settings of data sets the spec does not use (a spec copied to run on other data
  // keeps working): checked like the others, and that the registry knows them
  std::vector<std::string> other_per_dataset;
  std::vector<MethodConfig> methods;
  ReportSpec report;
  // [reference], or several [[reference]] tables (the paper's own numbers, then later papers'
  // numbers for other methods on the same data).
  std::vector<ReferenceSpec> references;
  std::optional<GridSpec> grid;
  std::vector<ArtifactSpec> artifacts;
  std::optional<ActiveLearningSpec> active_learning;
  // [cluster] threads: threads of each process when `bnnbench slurm --cores N` lays the run
  // out (N / threads processes); more than 1 where jobs have pieces that threads share.
  int cluster_threads = 1;

  const data::Protocol& protocol_for(const DatasetConfig& d) const { return d.protocol ? *d.protocol : protocol; }
};

// Parses a spec file; errors are DataError with file and line.
ExperimentSpec load_experiment(const std::string& path);
// Loads a spec by name or path and applies --set overrides (apply_settings, with the options
// the method registry knows).
ExperimentSpec load_spec(const std::string& name_or_path, const std::vector<std::string>& settings);
// results/EXPERIMENT, where a run keeps its store unless told otherwise.
std::string default_results_dir(const std::string& experiment);

// Resolves a name ("pbp-table1") or a path to a spec file; std::invalid_argument listing
// the known experiments when neither exists.
std::string find_experiment_file(const std::string& name_or_path);
std::vector<std::string> experiment_files();  // all shipped specs
std::string source_dir();                     // project root (compiled in, $BNNBENCH_HOME overrides)

// Applies --set overrides: "seed=N", "LABEL.option=value" (one method configuration) or
// "option=value" (every configuration whose method has that option). `has_option(method,
// option)` tells which methods know an option. Throws std::invalid_argument on bad input.
void apply_settings(ExperimentSpec& spec, const std::vector<std::string>& settings,
                    const std::function<bool(const std::string&, const std::string&)>& has_option);

}  // namespace bnn::exp
