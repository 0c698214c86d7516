// libFuzzer target for the data-set registry reader (DatasetRegistry::load, datasets/src/registry.cpp).
//
// The input is a registry file. A line "#@file2" (a TOML comment) splits it into two files, A
// and B; without one, A and B have the same text. The target loads {A}, {B} and {A, B} (B may
// replace or add to A's data sets). bnn::data::DataError is the only accepted failure; any other
// exception, a crash, a sanitizer report or a broken invariant (reported with abort()) is a
// finding. The checks are listed in fuzz/README.md.
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/src/registry.hpp"
#include "fuzz/fuzz_common.hpp"

namespace {

using bnn::data::ColumnSelector;
using bnn::data::DataError;
using bnn::data::DatasetRegistry;
using bnn::data::DatasetSpec;
using bnn::fuzz::finding;

constexpr std::string_view kSecondFile = "\n#@file2\n";

const bnn::fuzz::ScratchFile& file_a() {
  static const bnn::fuzz::ScratchFile file("registry-a.toml");
  return file;
}
const bnn::fuzz::ScratchFile& file_b() {
  static const bnn::fuzz::ScratchFile file("registry-b.toml");
  return file;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Outcome {
  std::optional<DatasetRegistry> registry;
  std::optional<DataError> error;
};

Outcome load(const std::vector<std::string>& paths) {
  try {
    return {DatasetRegistry::load(paths), std::nullopt};
  } catch (const DataError& e) {
    return {std::nullopt, e};
  }
  // Anything else propagates out of LLVMFuzzerTestOneInput: libFuzzer reports it as a crash.
}

// A path the registry hands to the loaders: set, relative, without a ".." part or a NUL byte.
void check_path(const DatasetSpec& d, const char* what, const std::string& path) {
  const std::string where = std::string(what) + " '" + bnn::fuzz::printable(path) + "' of data set '" +
                            bnn::fuzz::printable(d.name) + "' (" + d.defined_in + ")";
  if (path.empty()) finding("empty-path", "empty " + where);
  if (path.find('\0') != std::string::npos) finding("nul-in-path", "NUL byte in " + where);
  if (!path.empty() && path.front() == '/') finding("path-escapes", "absolute " + where);
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = std::min(path.find('/', start), path.size());
    if (path.compare(start, slash - start, "..") == 0) finding("path-escapes", "'..' in " + where);
    start = slash + 1;
  }
}

bool is_sha256(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

void check_selector(const DatasetSpec& d, const char* what, const ColumnSelector& s) {
  const std::string where = std::string(what) + " of data set '" + bnn::fuzz::printable(d.name) + "'";
  if (s.kind == ColumnSelector::Kind::index_file) check_path(d, what, s.index_file);
  if (s.kind == ColumnSelector::Kind::list && s.columns.empty()) finding("empty-columns", "no columns in " + where);
  for (long c : s.columns)
    if (c < 0) finding("negative-column", "negative column in " + where);
}

// Invariants of a loaded registry read from `paths`.
void check_registry(const DatasetRegistry& registry, const std::vector<std::string>& paths) {
  const auto& all = registry.all();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const DatasetSpec& d = all[i];
    const std::string name = "'" + bnn::fuzz::printable(d.name) + "' (" + d.defined_in + ")";
    if (d.name.empty()) finding("empty-name", "a data set without a name (" + d.defined_in + ")");
    if (d.availability != "public" && d.availability != "url-only" && d.availability != "not-public" &&
        d.availability != "synthetic")
      finding("availability", "unknown availability of " + name);
    bool located = false;
    for (const auto& path : paths)
      if (d.defined_in.rfind(path + ":", 0) == 0) {
        const std::string line = d.defined_in.substr(path.size() + 1);
        located = !line.empty() && line.find_first_not_of("0123456789") == std::string::npos && std::stol(line) > 0;
      }
    if (!located) finding("defined-in", "defined_in is not FILE:LINE for " + name);
    if (d.is_public() && (!d.table || d.folder.empty())) finding("public-needs-table", "no table or folder: " + name);
    if (d.is_synthetic() && !d.synthetic) finding("synthetic-needs-generator", "no [synthetic] table: " + name);
    if (!d.folder.empty()) check_path(d, "folder", d.folder);
    for (const auto& f : d.files) {
      check_path(d, "files.path", f.path);
      if (!f.sha256.empty() && !is_sha256(f.sha256)) finding("sha256-format", "files.sha256 of " + name);
    }
    if (d.derive) {
      check_path(d, "derive.output", d.derive->output);
      if (!d.derive->sha256.empty() && !is_sha256(d.derive->sha256))
        finding("sha256-format", "derive.sha256 '" + bnn::fuzz::printable(d.derive->sha256) +
                                     "' is not 64 hexadecimal digits, but accepted: " + name);
    }
    if (d.table) {
      if (d.table->files.empty()) finding("table-files", "a table without files: " + name);
      for (const auto& f : d.table->files) check_path(d, "table.files", f);
      for (const auto& f : d.table->target_files) check_path(d, "table.target_files", f);
      check_selector(d, "table.features", d.table->features);
      check_selector(d, "table.target", d.table->target);
      if (d.table->target.kind == ColumnSelector::Kind::all ||
          (d.table->target.kind == ColumnSelector::Kind::list && d.table->target.columns.size() != 1))
        finding("target-one-column", "target is not one column: " + name);
      // Categorical columns are feature columns, never the target.
      const auto& features = d.table->features;
      for (long c : d.table->categorical) {
        if (c < 0) finding("negative-column", "negative categorical column: " + name);
        if (features.kind == ColumnSelector::Kind::list &&
            std::find(features.columns.begin(), features.columns.end(), c) == features.columns.end())
          finding("categorical", "categorical column " + std::to_string(c) + " is not a feature: " + name);
        if (d.table->target_files.empty() && d.table->target.kind == ColumnSelector::Kind::list &&
            d.table->target.columns.front() == c)
          finding("categorical", "the target column is categorical: " + name);
      }
    }
    if (d.splits) {
      if (d.table && d.table->missing == bnn::data::MissingValues::drop_rows)
        finding("drop-rows-with-splits", "missing = \"drop-rows\" with published splits: " + name);
      if (d.splits->count < 1) finding("splits-count", "splits.count < 1: " + name);
      check_path(d, "splits.train", d.splits->train_pattern);
      check_path(d, "splits.test", d.splits->test_pattern);
    }
    // Names and aliases identify one data set each (case-insensitive).
    if (registry.try_find(d.name) != &d) finding("find", "find(name) is another data set: " + name);
    for (const auto& alias : d.aliases)
      if (registry.try_find(alias) != &d)
        finding("alias-clash", "alias '" + bnn::fuzz::printable(alias) + "' of " + name + " finds another data set");
    for (std::size_t j = 0; j < i; ++j) {
      const DatasetSpec& other = all[j];
      if (lower(other.name) == lower(d.name)) finding("duplicate-name", "two data sets named " + name);
      for (const auto& a : d.aliases)
        for (const auto& b : other.aliases)
          if (lower(a) == lower(b)) finding("alias-clash", "alias '" + bnn::fuzz::printable(a) + "' given twice");
      for (const auto& a : d.aliases)
        if (lower(a) == lower(other.name)) finding("alias-clash", "alias of " + name + " names another data set");
      for (const auto& a : other.aliases)
        if (lower(a) == lower(d.name)) finding("alias-clash", "name " + name + " is another data set's alias");
    }
  }
}

// What std::stol makes of the two sides of "a..b", as the registry reads a column range.
bool stol_like(const std::string& s, long& out) {
  errno = 0;
  char* end = nullptr;
  out = std::strtol(s.c_str(), &end, 10);
  return end != s.c_str() && errno != ERANGE;
}

bool strict_range(const std::string& s, long& first, long& last) {
  const auto dots = s.find("..");
  const std::string a = s.substr(0, dots), b = s.substr(dots + 2);
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 18 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(a) || !digits(b)) return false;
  first = std::stol(a);
  last = std::stol(b);
  return true;
}

// The [dataset.table] features and target strings of a registry text ("a..b" ranges among them).
std::vector<std::pair<std::size_t, std::pair<std::string, std::string>>> selector_strings(std::string_view text,
                                                                                          const std::string& path) {
  std::vector<std::pair<std::size_t, std::pair<std::string, std::string>>> out;
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error&) {
    return out;
  }
  const toml::array* list = root["dataset"].as_array();
  if (!list) return out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const toml::table* t = (*list)[i].as_table();
    const toml::table* table = t ? (*t)["table"].as_table() : nullptr;
    if (!table) continue;
    for (const char* key : {"features", "target"})
      if (const auto* s = (*table)[key].as_string()) out.push_back({i, {key, s->get()}});
  }
  return out;
}

// A column range "a..b" makes b - a + 1 columns: with b near LONG_MAX the registry allocates until
// it runs out of memory (a known finding, see fuzz/README.md). With the id in $BNN_FUZZ_KNOWN such
// inputs are skipped, so that a long run can look for other findings.
bool skip_huge_range(std::string_view text, const std::string& path) {
  if (!bnn::fuzz::is_known("huge-column-range")) return false;
  for (const auto& [index, selector] : selector_strings(text, path)) {
    const std::string& s = selector.second;
    const auto dots = s.find("..");
    long first = 0, last = 0;
    if (s != "all" && dots != std::string::npos && stol_like(s.substr(0, dots), first) &&
        stol_like(s.substr(dots + 2), last) && first >= 0 && last >= first && last - first > 1000000) {
      bnn::fuzz::finding("huge-column-range", "column range '" + bnn::fuzz::printable(s) + "' (input skipped)");
      return true;
    }
  }
  return false;
}

// The registry read from one file against the same text parsed here: one entry per [[dataset]]
// in file order, column ranges written strictly as "a..b", integers kept as written.
void check_against_toml(const DatasetRegistry& registry, std::string_view text, const std::string& path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    finding("reparse", "a registry loaded, but its text does not parse: " + std::string(e.description()));
    return;
  }
  const toml::array* list = root["dataset"].as_array();
  if (!list || list->size() != registry.all().size()) {
    finding("entry-count", "the registry does not hold one data set per [[dataset]] table");
    return;
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    const DatasetSpec& d = registry.all()[i];
    const toml::table& t = *(*list)[i].as_table();
    if (t["name"].value<std::string>() != d.name) finding("entry-order", "data set " + std::to_string(i) + " moved");
    if (const auto count = t["splits"]["count"].value<std::int64_t>(); count && d.splits && *count != d.splits->count)
      finding("int-truncation", "splits.count = " + std::to_string(*count) + " read as " +
                                    std::to_string(d.splits->count) + " (" + d.defined_in + ")");
  }
  for (const auto& [index, selector] : selector_strings(text, path)) {
    const auto& [key, s] = selector;
    if (s == "all" || s.find("..") == std::string::npos) continue;
    const DatasetSpec& d = registry.all()[index];
    const ColumnSelector& sel = key == "features" ? d.table->features : d.table->target;
    long first = 0, last = 0;
    if (!strict_range(s, first, last)) {
      finding("lenient-range",
              key + " = '" + bnn::fuzz::printable(s) + "' is accepted as a column range (" + d.defined_in + ")");
      continue;
    }
    if (sel.columns.size() != static_cast<std::size_t>(last - first + 1) || sel.columns.front() != first ||
        sel.columns.back() != last)
      finding("range-columns", key + " = '" + s + "' gives other columns (" + d.defined_in + ")");
  }
}

// Whether two entries define the same table: the fields DatasetSpec::definition() stands for,
// compared field by field.
bool same_selector(const ColumnSelector& a, const ColumnSelector& b) {
  return a.kind == b.kind && a.index_file == b.index_file && a.columns == b.columns;
}
bool same_definition(const DatasetSpec& a, const DatasetSpec& b) {
  if (a.availability != b.availability || a.folder != b.folder || a.files.size() != b.files.size()) return false;
  for (std::size_t i = 0; i < a.files.size(); ++i)
    if (a.files[i].path != b.files[i].path || a.files[i].sha256 != b.files[i].sha256) return false;
  if (a.derive.has_value() != b.derive.has_value() || a.table.has_value() != b.table.has_value() ||
      a.synthetic.has_value() != b.synthetic.has_value())
    return false;
  if (a.derive && (a.derive->recipe != b.derive->recipe || a.derive->output != b.derive->output ||
                   a.derive->sha256 != b.derive->sha256))
    return false;
  if (a.table) {
    const auto &x = *a.table, &y = *b.table;
    if (x.files != y.files || x.target_files != y.target_files || x.delimiter != y.delimiter || x.header != y.header ||
        !same_selector(x.features, y.features) || !same_selector(x.target, y.target) ||
        x.categorical != y.categorical || x.missing != y.missing)
      return false;
  }
  return !a.synthetic || (a.synthetic->generator == b.synthetic->generator && a.synthetic->n == b.synthetic->n &&
                          a.synthetic->seed == b.synthetic->seed);
}

// redefined(): false for every entry of the first file; for {A, B}, true for B's new entries and,
// for B's replacements, exactly when the definition differs from A's.
void check_redefined(const DatasetRegistry& base, const DatasetRegistry* merged) {
  if (!merged) {
    for (const auto& d : base.all())
      if (d.redefined()) finding("definition", "an entry of the first file is redefined(): " + d.defined_in);
    return;
  }
  for (const auto& d : merged->all()) {
    const DatasetSpec* before = nullptr;
    for (const auto& b : base.all())
      if (lower(b.name) == lower(d.name)) before = &b;
    const bool expected =
        before == nullptr ? d.defined_in.rfind(file_b().path(), 0) == 0 : !same_definition(*before, d);
    if (d.redefined() != expected)
      finding("definition", std::string("redefined() is ") + (d.redefined() ? "true" : "false") + " for '" +
                                bnn::fuzz::printable(d.name) + "' (" + d.defined_in + "): definition '" +
                                bnn::fuzz::printable(d.definition()) + "'");
  }
}

// Each data set as (name, defined_in), in registry order.
std::vector<std::pair<std::string, std::string>> entries_of(const DatasetRegistry& registry) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& d : registry.all()) out.emplace_back(d.name, d.defined_in);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view text_a = input, text_b = input;
  if (const auto at = input.find(kSecondFile); at != std::string_view::npos) {
    text_a = input.substr(0, at + 1);
    text_b = input.substr(at + kSecondFile.size());
  }
  const std::string& a = file_a().path();
  const std::string& b = file_b().path();
  if (skip_huge_range(text_a, a) || skip_huge_range(text_b, b)) return 0;
  file_a().write(text_a);
  file_b().write(text_b);

  const Outcome one_a = load({a});
  const Outcome one_b = load({b});
  const Outcome both = load({a, b});
  if (bnn::fuzz::verbose())
    for (const Outcome* o : {&one_a, &one_b, &both})
      std::fprintf(stderr, "%s: %s\n",
                   o == &one_a   ? "{A}"
                   : o == &one_b ? "{B}"
                                 : "{A, B}",
                   o->error ? bnn::fuzz::printable(o->error->what()).c_str()
                            : (std::to_string(o->registry->all().size()) + " data sets").c_str());
  if (one_a.error) bnn::fuzz::check_data_error(*one_a.error, a, text_a);
  if (one_b.error) bnn::fuzz::check_data_error(*one_b.error, b, text_b);
  if (one_a.registry) {
    check_redefined(*one_a.registry, nullptr);
    check_registry(*one_a.registry, {a});
    check_against_toml(*one_a.registry, text_a, a);
  }
  if (one_b.registry) {
    check_registry(*one_b.registry, {b});
    check_against_toml(*one_b.registry, text_b, b);
  }

  // {A, B}: A is read as on its own; B replaces A's data sets of the same name (in place) and
  // adds the others. It fails where A fails, or with an error in B.
  if (both.error) {
    bnn::fuzz::check_data_error(*both.error, both.error->file() == a ? a : b,
                                both.error->file() == a ? text_a : text_b);
    if (one_a.error) {
      if (std::string(both.error->what()) != one_a.error->what())
        finding("merge", "{A, B} fails differently from {A}: '" + bnn::fuzz::printable(both.error->what()) + "'");
    } else if (both.error->file() != b) {
      finding("merge", "{A, B} fails in A, but A alone loads: '" + bnn::fuzz::printable(both.error->what()) + "'");
    }
    return 0;
  }
  if (!one_a.registry || !one_b.registry) {
    finding("merge", "{A, B} loads, but A or B alone does not");
    return 0;
  }
  check_registry(*both.registry, {a, b});
  check_redefined(*one_a.registry, &*both.registry);
  auto expected = entries_of(*one_a.registry);
  for (const auto& entry : entries_of(*one_b.registry)) {
    const auto same = std::find_if(expected.begin(), expected.end(),
                                   [&](const auto& e) { return lower(e.first) == lower(entry.first); });
    if (same != expected.end())
      *same = entry;
    else
      expected.push_back(entry);
  }
  if (entries_of(*both.registry) != expected)
    finding("merge", "{A, B} is not A with B's data sets replacing or added to A's");
  return 0;
}
