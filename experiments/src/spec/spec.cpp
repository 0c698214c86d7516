#include "experiments/src/spec/spec.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

#include "datasets/src/data_error.hpp"
#include "experiments/src/io/files.hpp"
#include "experiments/src/metrics/metrics.hpp"
#include "experiments/src/spec/artifact_kinds.hpp"
#include "methods/registry.hpp"

#ifndef BNNBENCH_SOURCE_DIR
#define BNNBENCH_SOURCE_DIR "."
#endif

namespace fs = std::filesystem;

namespace bnn::exp {
namespace {

class SpecReader {
 public:
  explicit SpecReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::node& node, const std::string& message) const {
    throw data::DataError(file_, static_cast<long>(node.source().begin.line),
                          static_cast<long>(node.source().begin.column), message);
  }

  // A key the reader does not know is a mistake (a typo would otherwise fall back to a default).
  void allow_keys(const toml::table& t, std::initializer_list<std::string_view> known, const std::string& where) const {
    for (const auto& [key, value] : t)
      if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
        std::string list;
        for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(value, "unknown key '" + std::string(key.str()) + "' in " + where + " (known: " + list + ")");
      }
  }

  std::string text(const toml::table& t, std::string_view key, bool required = false) const {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) fail(t, "missing required key '" + std::string(key) + "'");
      return {};
    }
    if (!n->is_string()) fail(*n, "'" + std::string(key) + "' must be a string");
    return *n->value<std::string>();
  }

  // Any scalar or array of scalars as option text ("50", "0.1", "true", "50,50").
  std::string scalar_text(const toml::node& n) const {
    if (n.is_string()) return *n.value<std::string>();
    if (n.is_integer()) return std::to_string(*n.value<std::int64_t>());
    if (n.is_floating_point()) return option_detail::format_double(*n.value<double>());
    if (n.is_boolean()) return *n.value<bool>() ? "true" : "false";
    if (const toml::array* a = n.as_array()) {
      // A list of numbers or booleans is comma-separated text (the built-in methods' lists);
      // any other array, and a table, is JSON (the external method's command and settings).
      if (std::all_of(a->begin(), a->end(),
                      [](const toml::node& item) { return item.is_number() || item.is_boolean(); })) {
        std::string out;
        for (const auto& item : *a) out += (out.empty() ? "" : ",") + scalar_text(item);
        return out;
      }
      return json_text(n);
    }
    if (n.is_table()) return json_text(n);
    fail(n, "expected a string, number, boolean, array or table");
  }

  static std::string json_text(const toml::node& n) {
    std::ostringstream out;
    if (const toml::table* t = n.as_table())
      out << toml::json_formatter{*t, toml::format_flags::none};
    else
      out << toml::json_formatter{*n.as_array(), toml::format_flags::none};
    return out.str();
  }

  ReferenceSpec reference(const toml::table& ref, const ExperimentSpec& s) const {
    allow_keys(ref,
               {"file", "source", "methods", "dataset_column", "dataset", "dataset_names", "method_column", "values",
                "errors"},
               "[reference]");
    ReferenceSpec r;
    r.file = text(ref, "file", true);
    r.source = text(ref, "source");
    if (const toml::node* m = ref.get("methods")) {
      const toml::array* list = m->as_array();
      if (!list) fail(*m, "reference.methods must be an array of method labels");
      for (const auto& item : *list) {
        if (!item.is_string()) fail(item, "reference.methods must be an array of method labels");
        const std::string label = *item.value<std::string>();
        if (std::none_of(s.methods.begin(), s.methods.end(), [&](const MethodConfig& c) { return c.label == label; }))
          fail(item, "reference.methods names '" + label + "', which is no [[method]] label of this spec");
        r.methods.push_back(label);
      }
    }
    if (const std::string dc = text(ref, "dataset_column"); !dc.empty()) r.dataset_column = dc;
    r.fixed_dataset = text(ref, "dataset");
    r.dataset_names = string_map(ref, "dataset_names");
    r.method_column = text(ref, "method_column");
    r.values = string_map(ref, "values");
    r.errors = string_map(ref, "errors");
    if (r.values.empty()) fail(ref, "reference.values must map metrics to columns");
    return r;
  }

  ParamMap params(const toml::table& t) const {
    ParamMap out;
    for (const auto& [key, value] : t) out[std::string(key.str())] = scalar_text(value);
    return out;
  }

  std::map<std::string, std::string> string_map(const toml::table& t, std::string_view key) const {
    std::map<std::string, std::string> out;
    const toml::node* n = t.get(key);
    if (!n) return out;
    if (!n->is_table()) fail(*n, "'" + std::string(key) + "' must be a table");
    for (const auto& [k, v] : *n->as_table()) out[std::string(k.str())] = scalar_text(v);
    return out;
  }

  data::Protocol protocol(const toml::node& n) const {
    const toml::table* t = n.as_table();
    if (!t) fail(n, "protocol must be a table like { kind = \"kfold\", folds = 10 }");
    data::Protocol p;
    const std::string kind = text(*t, "kind", true);
    if (kind == "published")
      p.kind = data::Protocol::Kind::published;
    else if (kind == "kfold")
      p.kind = data::Protocol::Kind::kfold;
    else if (kind == "random")
      p.kind = data::Protocol::Kind::random;
    else if (kind == "all")
      p.kind = data::Protocol::Kind::all;
    else
      fail(n, "protocol kind '" + kind + "' is not one of published, kfold, random, all");
    switch (p.kind) {
      case data::Protocol::Kind::kfold:
        allow_keys(*t, {"kind", "folds"}, "a kfold protocol");
        break;
      case data::Protocol::Kind::random:
        allow_keys(*t, {"kind", "repeats", "train_fraction", "n_train", "n_test"}, "a random protocol");
        break;
      default:
        allow_keys(*t, {"kind"}, "a " + kind + " protocol");
    }
    const auto integer = [&](std::string_view key, long fallback, bool is_int = false) {
      const toml::node* v = t->get(key);
      if (!v) return fallback;
      if (!v->is_integer()) fail(*v, "'" + std::string(key) + "' must be an integer");
      const std::int64_t value = *v->value<std::int64_t>();
      if (is_int && (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()))
        fail(*v, "'" + std::string(key) + "' = " + std::to_string(value) + " is out of range");
      return static_cast<long>(value);
    };
    p.folds = static_cast<int>(integer("folds", p.folds, true));
    p.repeats = static_cast<int>(integer("repeats", p.repeats, true));
    p.n_train = integer("n_train", 0);
    p.n_test = integer("n_test", 0);
    if (const toml::node* f = t->get("train_fraction")) {
      if (!f->is_number()) fail(*f, "'train_fraction' must be a number");
      p.train_fraction = *f->value<double>();
    }
    try {
      p.validate();
    } catch (const std::invalid_argument& e) {
      fail(n, e.what());
    }
    return p;
  }

  std::vector<std::string> names(const toml::table& t, std::string_view key) const {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (!n) return out;
    const toml::array* list = n->as_array();
    if (!list) fail(*n, "'" + std::string(key) + "' must be an array of names");
    for (const auto& item : *list) {
      if (!item.is_string()) fail(item, "'" + std::string(key) + "' holds names (strings)");
      out.push_back(*item.value<std::string>());
    }
    return out;
  }

  // [from, to] or [from, to, points] of numbers (points an integer >= 2).
  GridSpec::Axis axis(const toml::node& n, bool with_points) const {
    const toml::array* a = n.as_array();
    const std::size_t size = with_points ? 3 : 2;
    if (!a || a->size() != size || !(*a)[0].is_number() || !(*a)[1].is_number() ||
        (with_points && !(*a)[2].is_integer()))
      fail(n, with_points ? "expected [from, to, points] with an integer number of points" : "expected [from, to]");
    GridSpec::Axis out{*(*a)[0].value<double>(), *(*a)[1].value<double>(),
                       with_points ? static_cast<long>(*(*a)[2].value<std::int64_t>()) : 0};
    if (!(out.to > out.from) || !std::isfinite(out.from) || !std::isfinite(out.to) || (with_points && out.points < 2))
      fail(n, "an axis needs finite from < to (and at least 2 points)");
    return out;
  }

  ArtifactSpec artifact(const toml::table& t, const ExperimentSpec& s) const {
    allow_keys(t, {"kind", "methods", "datasets", "splits", "posterior_box", "posterior_cells", "posterior_plot"},
               "an [[artifacts]] table");
    ArtifactSpec a;
    a.kind = text(t, "kind", true);
    try {
      find_artifact_kind(a.kind);
    } catch (const std::invalid_argument& e) {
      fail(*t.get("kind"), e.what());
    }
    a.methods = names(t, "methods");
    for (const auto& label : a.methods)
      if (std::none_of(s.methods.begin(), s.methods.end(), [&](const MethodConfig& m) { return m.label == label; }))
        fail(*t.get("methods"), "artifacts." + a.kind + ": no [[method]] is labelled '" + label + "'");
    a.datasets = names(t, "datasets");
    for (const auto& name : a.datasets)
      if (std::none_of(s.datasets.begin(), s.datasets.end(), [&](const DatasetConfig& d) { return d.name == name; }))
        fail(*t.get("datasets"), "artifacts." + a.kind + ": '" + name + "' is not in 'datasets'");
    if (const toml::node* splits = t.get("splits")) {
      const toml::array* list = splits->as_array();
      if (!list) fail(*splits, "'splits' must be an array of split numbers");
      for (const auto& item : *list) {
        if (!item.is_integer() || *item.value<std::int64_t>() < 0 ||
            *item.value<std::int64_t>() > std::numeric_limits<int>::max())
          fail(item, "'splits' holds split numbers >= 0");
        a.splits.push_back(static_cast<int>(*item.value<std::int64_t>()));
      }
    }
    const toml::node* box = t.get("posterior_box");
    const toml::node* cells = t.get("posterior_cells");
    const toml::node* plot = t.get("posterior_plot");
    if (box || cells || plot) {
      if (a.kind != "gaussian-posterior")
        fail(box     ? *box
             : cells ? *cells
                     : *plot,
             "posterior_box, posterior_cells and posterior_plot belong to kind gaussian-posterior");
      if (!box || !cells) fail(t, "gaussian-posterior: give posterior_box and posterior_cells together");
      ArtifactSpec::PosteriorGrid g;
      const toml::array* b = box->as_array();
      if (!b || b->size() != 2) fail(*box, "posterior_box is [[from, to], [from, to]], one axis per parameter");
      for (std::size_t i = 0; i < 2; ++i) g.box[i] = axis((*b)[i], false);
      if (plot) {
        const toml::array* p = plot->as_array();
        if (!p || p->size() != 2) fail(*plot, "posterior_plot is [[from, to, points], [from, to, points]]");
        for (std::size_t i = 0; i < 2; ++i) g.plot[i] = axis((*p)[i], true);
      }
      // A cells x cells quadrature grid of the posterior, 8 bytes a cell.
      if (!cells->is_integer() || *cells->value<std::int64_t>() < 50 || *cells->value<std::int64_t>() > 10'000)
        fail(*cells,
             "posterior_cells must be an integer from 50 to 10000 (a grid of cells x cells, 8 bytes a cell: "
             "0.8 GB at the largest)");
      g.cells = static_cast<long>(*cells->value<std::int64_t>());
      a.posterior = g;
    }
    return a;
  }

  ExperimentSpec experiment(const toml::table& root) const {
    ExperimentSpec s;
    s.path = file_;
    allow_keys(root,
               {"name", "title", "paper", "notes", "seed", "scale", "normalization", "protocol", "datasets",
                "per_dataset", "method", "report", "grid", "artifacts", "active_learning", "reference", "cluster"},
               "the experiment");
    s.name = text(root, "name", true);
    // the name is a folder of results/: one plain component
    if (s.name.empty() || s.name.front() == '.' ||
        s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
            std::string::npos)
      fail(*root.get("name"), "'name' = '" + s.name +
                                  "' must be letters, digits, '.', '_' or '-', not starting with '.' (it names the "
                                  "results folder)");
    s.title = text(root, "title");
    s.paper = text(root, "paper");
    s.notes = text(root, "notes");
    if (const toml::node* seed = root.get("seed")) {
      if (!seed->is_integer() || *seed->value<std::int64_t>() < 0) fail(*seed, "'seed' must be a non-negative integer");
      s.seed = static_cast<std::uint64_t>(*seed->value<std::int64_t>());
    }
    s.scale = text(root, "scale");
    if (s.scale.empty()) s.scale = "original";
    if (s.scale != "original" && s.scale != "normalized")
      fail(*root.get("scale"), "'scale' must be \"original\" or \"normalized\"");
    s.normalization = text(root, "normalization");
    if (s.normalization.empty()) s.normalization = "training-part";
    if (s.normalization != "training-part" && s.normalization != "none")
      fail(*root.get("normalization"), "'normalization' must be \"training-part\" or \"none\"");
    const toml::node* protocol_node = root.get("protocol");
    if (!protocol_node) fail(root, "missing required key 'protocol'");
    s.protocol = protocol(*protocol_node);

    const toml::node* ds = root.get("datasets");
    if (!ds || !ds->is_array()) fail(root, "'datasets' must be an array of data-set names");
    if (ds->as_array()->empty()) fail(*ds, "'datasets' is empty: name at least one data set");
    const toml::table* per_dataset = root.get_as<toml::table>("per_dataset");
    const auto apply_per_dataset = [&](const toml::table& pd, DatasetConfig& d) {
      allow_keys(pd, {"protocol", "irrelevant_inputs", "target_transform", "constant_inputs"}, "per_dataset." + d.name);
      if (const toml::node* p = pd.get("protocol")) d.protocol = protocol(*p);
      if (const toml::node* ir = pd.get("irrelevant_inputs")) {
        // Each is a column of every row, 8 bytes a value.
        if (!ir->is_integer() || *ir->value<std::int64_t>() < 0 || *ir->value<std::int64_t>() > 10'000)
          fail(*ir, "'irrelevant_inputs' must be an integer from 0 to 10000 (each is a column of every row)");
        d.irrelevant_inputs = static_cast<long>(*ir->value<std::int64_t>());
      }
      // A string setting read by `parse`, whose errors are reported at the setting's line.
      const auto string_setting = [&](const char* key, const char* values, auto parse, auto& target) {
        const toml::node* node = pd.get(key);
        if (!node) return;
        if (!node->is_string()) fail(*node, "'" + std::string(key) + "' must be a string: " + values);
        try {
          target = parse(*node->value<std::string>());
        } catch (const std::invalid_argument& e) {
          fail(*node, e.what());
        }
      };
      string_setting("target_transform", "none, sqrt or log1p", data::parse_target_transform, d.target_transform);
      string_setting("constant_inputs", "zero or numpy", data::parse_constant_inputs, d.constant_inputs);
    };
    for (const auto& item : *ds->as_array()) {
      if (!item.is_string()) fail(item, "'datasets' holds data-set names");
      DatasetConfig d;
      d.name = *item.value<std::string>();
      if (per_dataset)
        if (const toml::table* pd = per_dataset->get_as<toml::table>(d.name)) apply_per_dataset(*pd, d);
      s.datasets.push_back(std::move(d));
    }
    if (per_dataset)
      for (const auto& [key, value] : *per_dataset) {
        DatasetConfig other;
        other.name = std::string(key.str());
        if (!value.is_table()) fail(value, "per_dataset." + other.name + " must be a table");
        if (std::any_of(s.datasets.begin(), s.datasets.end(),
                        [&](const DatasetConfig& d) { return d.name == other.name; }))
          continue;
        apply_per_dataset(*value.as_table(), other);
        s.other_per_dataset.push_back(other.name);
      }

    if (const toml::table* al = root.get_as<toml::table>("active_learning")) {
      allow_keys(*al, {"additions", "curves"}, "[active_learning]");
      ActiveLearningSpec a;
      const toml::node* additions = al->get("additions");
      if (!additions || !additions->is_integer() || *additions->value<std::int64_t>() < 1 ||
          *additions->value<std::int64_t>() > 100000)
        fail(additions ? *additions : static_cast<const toml::node&>(*al),
             "active_learning.additions must be an integer >= 1 (points moved from the pool, one per step)");
      a.additions = static_cast<int>(*additions->value<std::int64_t>());
      a.curves = names(*al, "curves");
      for (const auto& name : a.curves)
        if (std::none_of(s.datasets.begin(), s.datasets.end(), [&](const DatasetConfig& d) { return d.name == name; }))
          fail(*al->get("curves"), "active_learning.curves: '" + name + "' is not in 'datasets'");
      if (root.get("grid")) fail(*al, "an experiment is either a figure on a [grid] or [active_learning], not both");
      s.active_learning = a;
    }
    const toml::node* ms = root.get("method");
    if (!ms || !ms->is_array_of_tables()) fail(root, "expected one or more [[method]] tables");
    std::set<std::string> labels;
    for (const auto& node : *ms->as_array()) {
      const toml::table& m = *node.as_table();
      allow_keys(
          m, {"method", "label", "options", "dataset_options", "datasets", "paper_name", "paper_filter", "selection"},
          "a [[method]]");
      MethodConfig c;
      c.line = static_cast<long>(m.source().begin.line);
      c.method = text(m, "method", true);
      c.label = text(m, "label");
      if (c.label.empty()) c.label = c.method;
      if (!labels.insert(c.label).second) fail(m, "method label '" + c.label + "' is used twice");
      if (c.label.find_first_of(" ./=,") != std::string::npos)
        fail(m, "method label '" + c.label + "' may not contain spaces, '.', '/', '=' or ','");
      if (const toml::table* o = m.get_as<toml::table>("options")) c.options = params(*o);
      // A method that runs files beside the spec (external) is told where the spec is.
      const auto entry = std::find_if(method_registry().begin(), method_registry().end(),
                                      [&](const MethodEntry& e) { return e.name == c.method; });
      if (entry != method_registry().end() &&
          std::any_of(entry->options.begin(), entry->options.end(),
                      [](const OptionInfo& o) { return o.name == kSpecFolderOption; })) {
        if (c.options.count(std::string(kSpecFolderOption)))
          fail(m, std::string(kSpecFolderOption) + " is set by bnnbench, not in a spec");
        c.options[std::string(kSpecFolderOption)] =
            std::filesystem::absolute(std::filesystem::path(file_)).lexically_normal().parent_path().string();
      }
      if (const toml::table* dopt = m.get_as<toml::table>("dataset_options"))
        for (const auto& [dname, dvalue] : *dopt) {
          if (!dvalue.is_table()) fail(dvalue, "dataset_options." + std::string(dname.str()) + " must be a table");
          c.dataset_options[std::string(dname.str())] = params(*dvalue.as_table());
          c.dataset_option_lines[std::string(dname.str())] = static_cast<long>(dvalue.source().begin.line);
        }
      if (const toml::node* d = m.get("datasets")) {
        const toml::array* list = d->as_array();
        if (!list || list->empty()) fail(*d, "a [[method]]'s 'datasets' must be a non-empty array of data-set names");
        for (const auto& item : *list) {
          if (!item.is_string()) fail(item, "a [[method]]'s 'datasets' must be an array of data-set names");
          c.datasets.push_back(*item.value<std::string>());
        }
      }
      c.paper_name = text(m, "paper_name");
      c.paper_filter = string_map(m, "paper_filter");
      c.selection = text(m, "selection");
      if (!c.selection.empty() && c.selection != "variance" && c.selection != "random")
        fail(*m.get("selection"), "selection '" + c.selection + "' must be \"variance\" or \"random\"");
      if (s.active_learning && c.selection.empty())
        fail(m, "[[method]] " + c.label + ": [active_learning] needs selection = \"variance\" or \"random\"");
      if (!s.active_learning && !c.selection.empty())
        fail(*m.get("selection"), "selection is for [active_learning] experiments");
      s.methods.push_back(std::move(c));
    }

    if (const toml::table* r = root.get_as<toml::table>("report")) {
      allow_keys(*r, {"layout", "metrics", "relative_time_to"}, "[report]");
      s.report.layout = text(*r, "layout");
      if (s.report.layout.empty()) s.report.layout = "dataset-rows";
      if (s.report.layout != "dataset-rows" && s.report.layout != "method-rows")
        fail(*r, "report.layout must be \"dataset-rows\" or \"method-rows\"");
      if (const toml::node* metrics_node = r->get("metrics")) {
        const toml::array* metrics = metrics_node->as_array();
        if (!metrics || metrics->empty())
          fail(*metrics_node, "report.metrics must be a non-empty array of metric names");
        for (const auto& item : *metrics) {
          const std::string name = scalar_text(item);
          if (!find_metric(name)) {
            std::string known;
            for (const auto& m : metric_catalog()) known += (known.empty() ? "" : ", ") + m.name;
            fail(item, "unknown metric '" + name + "' (known: " + known + ")");
          }
          s.report.metrics.push_back(name);
        }
      }
      s.report.relative_time_to = text(*r, "relative_time_to");
      if (!s.report.relative_time_to.empty() && !labels.contains(s.report.relative_time_to))
        fail(*r->get("relative_time_to"),
             "report.relative_time_to: no [[method]] is labelled '" + s.report.relative_time_to + "'");
    }
    if (s.report.metrics.empty()) s.report.metrics = {"rmse", "test_ll", "fit_seconds"};

    if (const toml::table* g = root.get_as<toml::table>("grid")) {
      allow_keys(*g, {"mode", "axes", "fixed"}, "[grid]");
      GridSpec grid;
      const std::string mode = text(*g, "mode");
      if (mode.empty() || mode == "product")
        grid.mode = GridSpec::Mode::product;
      else if (mode == "one-at-a-time")
        grid.mode = GridSpec::Mode::one_at_a_time;
      else
        fail(*g, "grid.mode must be \"product\" or \"one-at-a-time\"");
      const toml::array* axes = g->get_as<toml::array>("axes");
      if (!axes || axes->empty()) fail(*g, "grid.axes must list [from, to, points] per input");
      for (const auto& a : *axes) {
        const toml::array* triple = a.as_array();
        if (!triple || triple->size() != 3 || !(*triple)[0].is_number() || !(*triple)[1].is_number() ||
            !(*triple)[2].is_integer())
          fail(a, "each grid axis is [from, to, points] with an integer number of points");
        GridSpec::Axis axis{*(*triple)[0].value<double>(), *(*triple)[1].value<double>(),
                            static_cast<long>(*(*triple)[2].value<std::int64_t>())};
        if (axis.points < 2 || !(axis.to > axis.from) || !std::isfinite(axis.from) || !std::isfinite(axis.to))
          fail(a, "a grid axis needs finite from < to and at least 2 points");
        grid.axes.push_back(axis);
      }
      // Every job stores its predictions at every grid point (six numbers, 48 bytes a point):
      // bounded before any is made.
      constexpr double kMaxGridPoints = 10'000'000;
      double points = grid.mode == GridSpec::Mode::product ? 1.0 : 0.0;
      for (const auto& axis : grid.axes)
        points = grid.mode == GridSpec::Mode::product ? points * static_cast<double>(axis.points)
                                                      : points + static_cast<double>(axis.points);
      if (points > kMaxGridPoints) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "grid.axes make %.4g points, but must make <= 10000000 (each job stores 48 bytes a point: %.3g "
                      "GB a job)",
                      points, points * 48.0 / 1e9);
        fail(*axes, text);
      }
      if (const toml::node* f = g->get("fixed")) {
        if (!f->is_number() || !std::isfinite(*f->value<double>())) fail(*f, "grid.fixed must be a finite number");
        grid.fixed = *f->value<double>();
      }
      s.grid = std::move(grid);
    }

    if (const toml::node* a = root.get("artifacts")) {
      if (!a->is_array_of_tables()) fail(*a, "expected [[artifacts]] tables");
      for (const auto& node : *a->as_array()) s.artifacts.push_back(artifact(*node.as_table(), s));
    }

    if (const toml::node* cluster = root.get("cluster")) {
      const toml::table* c = cluster->as_table();
      if (!c) fail(*cluster, "expected a [cluster] table");
      allow_keys(*c, {"threads"}, "[cluster]");
      if (const toml::node* t = c->get("threads")) {
        if (!t->is_integer() || *t->value<std::int64_t>() < 1 || *t->value<std::int64_t>() > 4096)
          fail(*t, "cluster.threads must be an integer from 1 to 4096");
        s.cluster_threads = static_cast<int>(*t->value<std::int64_t>());
      }
    }

    if (const toml::node* refs = root.get("reference")) {
      if (const toml::table* one = refs->as_table())
        s.references.push_back(reference(*one, s));
      else if (refs->is_array_of_tables())
        for (const auto& node : *refs->as_array()) s.references.push_back(reference(*node.as_table(), s));
      else
        fail(*refs, "expected a [reference] table or [[reference]] tables");
    }
    return s;
  }

 private:
  std::string file_;
};

}  // namespace

ParamMap MethodConfig::options_for(const std::string& dataset, const std::vector<std::string>& aliases) const {
  ParamMap out = options;
  const auto overlay = [&](const std::string& name) {
    if (auto it = dataset_options.find(name); it != dataset_options.end())
      for (const auto& [k, v] : it->second) out[k] = v;
  };
  overlay(dataset);
  for (const auto& a : aliases) overlay(a);
  return out;
}

bool MethodConfig::runs_on(const std::string& dataset, const std::vector<std::string>& aliases) const {
  if (datasets.empty()) return true;
  const auto listed = [&](const std::string& name) {
    return std::find(datasets.begin(), datasets.end(), name) != datasets.end();
  };
  return listed(dataset) || std::any_of(aliases.begin(), aliases.end(), listed);
}

std::string ArtifactSpec::canonical() const {
  std::string out = "kind=" + kind;
  if (posterior) {
    const auto axis = [](const GridSpec::Axis& a, bool points) {
      return option_detail::format_double(a.from) + ":" + option_detail::format_double(a.to) +
             (points ? ":" + std::to_string(a.points) : "");
    };
    out += "|box=" + axis(posterior->box[0], false) + "," + axis(posterior->box[1], false) +
           "|cells=" + std::to_string(posterior->cells);
    if (posterior->plot[0].points > 0)
      out += "|plot=" + axis(posterior->plot[0], true) + "," + axis(posterior->plot[1], true);
  }
  return out;
}

ExperimentSpec load_experiment(const std::string& path) {
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw data::DataError(path, static_cast<long>(e.source().begin.line), static_cast<long>(e.source().begin.column),
                          std::string(e.description()));
  }
  return SpecReader(path).experiment(root);
}

ExperimentSpec load_spec(const std::string& name_or_path, const std::vector<std::string>& settings) {
  const std::string file = find_experiment_file(name_or_path);
  register_input(file, "the experiment's spec");
  ExperimentSpec spec = load_experiment(file);
  const ExperimentSpec as_written = spec;
  apply_settings(spec, settings, [](const std::string& method, const std::string& option) {
    for (const auto& entry : method_registry())
      if (entry.name == method)
        for (const auto& o : entry.options)
          if (o.name == option) return true;
    return false;
  });
  // A value that --set gave and the method rejects is --set's error, not the spec line's: the
  // options as written pass where the ones with the settings fail.
  const auto rejected = [](const MethodConfig& m) -> std::string {
    const auto entry = std::find_if(method_registry().begin(), method_registry().end(),
                                    [&](const MethodEntry& e) { return e.name == m.method; });
    if (entry == method_registry().end()) return "";
    try {
      entry->canonical_config(m.options);
      for (const auto& [dataset, options] : m.dataset_options) {
        ParamMap merged = m.options;
        for (const auto& [key, value] : options) merged[key] = value;
        entry->canonical_config(merged);
      }
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  for (std::size_t i = 0; i < spec.methods.size(); ++i)
    if (const std::string problem = rejected(spec.methods[i]);
        !problem.empty() && rejected(as_written.methods[i]).empty())
      throw std::invalid_argument("--set: " + problem);
  return spec;
}

std::string default_results_dir(const std::string& experiment) { return (fs::path("results") / experiment).string(); }

std::string source_dir() {
  if (const char* env = std::getenv("BNNBENCH_HOME"); env && *env) return env;
  return BNNBENCH_SOURCE_DIR;
}

std::vector<std::string> experiment_files() {
  std::vector<std::string> files;
  const fs::path dir = fs::path(source_dir()) / "experiments";
  if (fs::is_directory(dir))
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string find_experiment_file(const std::string& name_or_path) {
  if (fs::is_regular_file(name_or_path)) return name_or_path;
  const fs::path shipped = fs::path(source_dir()) / "experiments" / (name_or_path + ".toml");
  if (fs::is_regular_file(shipped)) return shipped.string();
  std::string known;
  for (const auto& f : experiment_files()) known += (known.empty() ? "" : ", ") + fs::path(f).stem().string();
  throw std::invalid_argument("unknown experiment '" + name_or_path +
                              "' (neither a spec file nor a shipped experiment); known experiments: " + known);
}

void apply_settings(ExperimentSpec& spec, const std::vector<std::string>& settings,
                    const std::function<bool(const std::string&, const std::string&)>& has_option) {
  for (const auto& setting : settings) {
    const auto eq = setting.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument("--set '" + setting + "' must look like KEY=VALUE");
    const std::string key = setting.substr(0, eq);
    const std::string value = setting.substr(eq + 1);
    if (key == "seed") {
      std::uint64_t seed = 0;
      if (!option_detail::parse_integer(value, seed))
        throw std::invalid_argument("--set seed=" + value + ": the seed must be a non-negative integer");
      spec.seed = seed;
      continue;
    }
    if (key.starts_with("per_dataset.")) {  // per_dataset.NAME.FIELD=VALUE
      const std::string rest = key.substr(std::string_view("per_dataset.").size());
      const auto dot = rest.rfind('.');
      const std::string name = rest.substr(0, dot == std::string::npos ? 0 : dot);
      auto it = std::find_if(spec.datasets.begin(), spec.datasets.end(),
                             [&](const DatasetConfig& d) { return d.name == name; });
      if (it == spec.datasets.end()) {
        std::string known;
        for (const auto& d : spec.datasets) known += (known.empty() ? "" : ", ") + d.name;
        throw std::invalid_argument("--set " + setting + ": " + spec.name + " has no data set '" + name +
                                    "'; its data sets: " + known);
      }
      const std::string field = rest.substr(dot + 1);
      if (field != "target_transform" && field != "constant_inputs")
        throw std::invalid_argument("--set " + setting +
                                    ": of a data set only target_transform and constant_inputs can be set");
      try {
        if (field == "target_transform")
          it->target_transform = data::parse_target_transform(value);
        else
          it->constant_inputs = data::parse_constant_inputs(value);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("--set " + setting + ": " + e.what());
      }
      continue;
    }
    const auto dot = key.find('.');
    if (dot != std::string::npos) {
      const std::string label = key.substr(0, dot);
      const std::string option = key.substr(dot + 1);
      auto it = std::find_if(spec.methods.begin(), spec.methods.end(),
                             [&](const MethodConfig& m) { return m.label == label; });
      if (it == spec.methods.end())
        throw std::invalid_argument("--set " + setting + ": no method labelled '" + label + "' in " + spec.name);
      if (const auto last = option.rfind('.'); last != std::string::npos) {  // LABEL.DATASET.OPTION
        const std::string dataset = option.substr(0, last);
        if (std::none_of(spec.datasets.begin(), spec.datasets.end(),
                         [&](const DatasetConfig& d) { return d.name == dataset; }))
          throw std::invalid_argument("--set " + setting + ": " + spec.name + " has no data set '" + dataset + "'");
        it->dataset_options[dataset][option.substr(last + 1)] = value;
        continue;
      }
      it->options[option] = value;
      for (auto& [dataset, opts] : it->dataset_options) opts.erase(option);  // explicit wins
      continue;
    }
    bool used = false;
    for (auto& m : spec.methods)
      if (has_option(m.method, key)) {
        m.options[key] = value;
        for (auto& [dataset, opts] : m.dataset_options) opts.erase(key);
        used = true;
      }
    if (!used)
      throw std::invalid_argument("--set " + setting + ": no method of " + spec.name + " has an option '" + key + "'");
  }
}

}  // namespace bnn::exp
