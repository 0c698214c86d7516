#include "registry.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "data_error.hpp"

#ifndef BNNBENCH_SOURCE_DIR
#define BNNBENCH_SOURCE_DIR "."
#endif

namespace bnn::data {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Empty (no checksum known) or 64 lowercase hexadecimal digits.
bool is_sha256(const std::string& text) {
  return text.empty() || (text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos);
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::node& node, const std::string& message) const {
    throw DataError(file_, static_cast<long>(node.source().begin.line), static_cast<long>(node.source().begin.column),
                    message);
  }

  std::string text(const toml::table& t, std::string_view key, bool required = false) const {
    const toml::node* node = t.get(key);
    if (!node) {
      if (required) fail(t, "missing required key '" + std::string(key) + "'");
      return {};
    }
    if (!node->is_string()) fail(*node, "'" + std::string(key) + "' must be a string");
    return *node->value<std::string>();
  }

  long integer(const toml::table& t, std::string_view key, long fallback) const {
    const toml::node* node = t.get(key);
    if (!node) return fallback;
    if (!node->is_integer()) fail(*node, "'" + std::string(key) + "' must be an integer");
    return static_cast<long>(*node->value<std::int64_t>());
  }

  std::vector<std::string> strings(const toml::table& t, std::string_view key) const {
    std::vector<std::string> out;
    const toml::node* node = t.get(key);
    if (!node) return out;
    const toml::array* arr = node->as_array();
    if (!arr) fail(*node, "'" + std::string(key) + "' must be an array of strings");
    for (const auto& item : *arr) {
      if (!item.is_string()) fail(item, "'" + std::string(key) + "' must hold strings");
      out.push_back(*item.value<std::string>());
    }
    return out;
  }

  const toml::table* subtable(const toml::table& t, std::string_view key) const {
    const toml::node* node = t.get(key);
    if (!node) return nullptr;
    if (!node->is_table()) fail(*node, "'" + std::string(key) + "' must be a table");
    return node->as_table();
  }

  static constexpr long kMaxColumns = 1'000'000;  // a bound on tables, and on a typo's memory

  ColumnSelector columns(const toml::table& t, std::string_view key) const {
    const toml::node* node = t.get(key);
    if (!node) fail(t, "missing required key '" + std::string(key) + "'");
    ColumnSelector sel;
    if (node->is_integer()) {
      sel.columns = {static_cast<long>(*node->value<std::int64_t>())};
    } else if (const toml::array* arr = node->as_array()) {
      for (const auto& item : *arr) {
        if (!item.is_integer()) fail(item, "column lists hold 0-based integers");
        sel.columns.push_back(static_cast<long>(*item.value<std::int64_t>()));
      }
    } else if (node->is_string()) {
      const std::string s = *node->value<std::string>();
      const auto dots = s.find("..");
      if (s == "all") {
        sel.kind = ColumnSelector::Kind::all;
      } else if (dots != std::string::npos) {
        long first = 0, last = 0;
        const auto whole_number = [](std::string_view digits, long& out) {
          const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
          return !digits.empty() && error == std::errc() && end == digits.data() + digits.size();
        };
        if (!whole_number(std::string_view(s).substr(0, dots), first) ||
            !whole_number(std::string_view(s).substr(dots + 2), last))
          fail(*node, "column range '" + s + "' must look like \"0..12\"");
        if (first < 0 || last < first) fail(*node, "column range '" + s + "' is empty or negative");
        if (last >= kMaxColumns)
          fail(*node, "column range '" + s + "' goes beyond column " + std::to_string(kMaxColumns - 1));
        for (long c = first; c <= last; ++c) sel.columns.push_back(c);
      } else {
        sel.kind = ColumnSelector::Kind::index_file;
        sel.index_file = s;
      }
    } else {
      fail(*node, "'" + std::string(key) + "' must be a column number, a list, \"a..b\", \"all\" or an index file");
    }
    for (long c : sel.columns)
      if (c < 0 || c >= kMaxColumns)
        fail(*node, "column numbers are 0-based and must be from 0 to " + std::to_string(kMaxColumns - 1));
    if (sel.kind == ColumnSelector::Kind::list && sel.columns.empty())
      fail(*node, "'" + std::string(key) + "' names no column");
    if (sel.kind == ColumnSelector::Kind::index_file) check_relative(*node, key, sel.index_file);
    return sel;
  }

  // A key the table does not know (a misspelled `sha265` would otherwise turn a check off).
  void known_keys(const toml::table& t, std::string_view where, std::initializer_list<std::string_view> keys) const {
    for (const auto& [key, node] : t)
      if (std::find(keys.begin(), keys.end(), key.str()) == keys.end()) {
        std::string list;
        for (const auto k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(node, "unknown key '" + std::string(key.str()) + "' in " + std::string(where) + " (known: " + list + ")");
      }
  }

  // Folder and file names stay inside the data directory: relative, without '..'.
  void check_relative(const toml::node& node, std::string_view key, const std::string& value) const {
    if (value.empty()) fail(node, "'" + std::string(key) + "' is empty");
    if (std::any_of(value.begin(), value.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
      fail(node, "'" + std::string(key) + "' holds a control character");
    const std::filesystem::path path(value);
    if (path.is_absolute() || std::any_of(path.begin(), path.end(), [](const auto& part) { return part == ".."; }))
      fail(node, "'" + std::string(key) + "' = '" + value + "' must be a relative path without '..'");
  }
  std::string relative_path(const toml::table& t, std::string_view key, bool required = false) const {
    const std::string value = text(t, key, required);
    if (t.get(key)) check_relative(*t.get(key), key, value);
    return value;
  }
  std::vector<std::string> relative_paths(const toml::table& t, std::string_view key) const {
    std::vector<std::string> values = strings(t, key);
    for (const auto& value : values) check_relative(*t.get(key), key, value);
    return values;
  }

  DatasetSpec dataset(const toml::table& t) const {
    known_keys(t, "[[dataset]]",
               {"name", "aliases", "title", "papers", "availability", "paper_n", "paper_d", "paper_note", "folder",
                "source", "url_base", "notes", "files", "derive", "table", "splits", "synthetic"});
    DatasetSpec d;
    d.defined_in = file_ + ":" + std::to_string(t.source().begin.line);
    d.name = text(t, "name", true);
    if (d.name.empty() || std::any_of(d.name.begin(), d.name.end(), [](char c) {
          return static_cast<unsigned char>(c) <= 0x20 || c == '/' || c == ',';
        }))
      fail(*t.get("name"), "name '" + d.name + "' must be non-empty, without spaces, '/', ',' or control characters");
    d.aliases = strings(t, "aliases");
    d.title = text(t, "title");
    d.papers = strings(t, "papers");
    d.availability = text(t, "availability", true);
    static const std::vector<std::string> kinds = {"public", "url-only", "not-public", "synthetic"};
    if (std::find(kinds.begin(), kinds.end(), d.availability) == kinds.end())
      fail(*t.get("availability"), "availability must be public, url-only, not-public or synthetic");
    d.paper_n = integer(t, "paper_n", 0);
    d.paper_d = integer(t, "paper_d", 0);
    d.paper_note = text(t, "paper_note");
    d.folder = relative_path(t, "folder");
    d.source = text(t, "source");
    d.url_base = text(t, "url_base");
    d.notes = text(t, "notes");
    if (const toml::node* files = t.get("files")) {
      const toml::array* arr = files->as_array();
      if (!arr) fail(*files, "'files' must be an array of tables");
      for (const auto& item : *arr) {
        const toml::table* f = item.as_table();
        if (!f) fail(item, "each entry of 'files' must be a table { path = ..., sha256 = ... }");
        known_keys(*f, "an entry of 'files'", {"path", "sha256", "url", "archive"});
        SourceFile sf{relative_path(*f, "path", true), lower(text(*f, "sha256")), text(*f, "url"), text(*f, "archive"),
                      ""};
        if (!is_sha256(sf.sha256)) fail(*f, "sha256 of '" + sf.path + "' must be 64 hexadecimal digits");
        d.files.push_back(std::move(sf));
      }
    }
    if (const toml::table* dv = subtable(t, "derive")) {
      known_keys(*dv, "[dataset.derive]", {"recipe", "output", "sha256"});
      d.derive = DeriveSpec{text(*dv, "recipe", true), relative_path(*dv, "output", true), lower(text(*dv, "sha256"))};
      if (!is_sha256(d.derive->sha256)) fail(*dv, "derive.sha256 must be 64 hexadecimal digits");
    }
    if (const toml::table* tb = subtable(t, "table")) {
      known_keys(
          *tb, "[dataset.table]",
          {"file", "files", "target_files", "delimiter", "header", "features", "target", "categorical", "missing"});
      TableSpec ts;
      if (const std::string single = relative_path(*tb, "file"); !single.empty()) ts.files = {single};
      for (auto& f : relative_paths(*tb, "files")) ts.files.push_back(f);
      ts.target_files = relative_paths(*tb, "target_files");
      if (ts.files.empty()) fail(*tb, "table needs 'file' or 'files'");
      try {
        ts.delimiter = parse_delimiter(text(*tb, "delimiter").empty() ? "auto" : text(*tb, "delimiter"));
      } catch (const std::invalid_argument& e) {
        fail(*tb, e.what());
      }
      if (const toml::node* h = tb->get("header")) {
        if (!h->is_boolean()) fail(*h, "'header' must be true or false");
        ts.header = *h->value<bool>();
      }
      ts.features = columns(*tb, "features");
      ts.target = columns(*tb, "target");
      if (ts.target.kind == ColumnSelector::Kind::all ||
          (ts.target.kind == ColumnSelector::Kind::list && ts.target.columns.size() != 1))
        fail(*tb, "target must be one column");
      if (const toml::node* node = tb->get("categorical")) {
        const ColumnSelector categorical = columns(*tb, "categorical");
        if (categorical.kind != ColumnSelector::Kind::list)
          fail(*node, "'categorical' must be a list of 0-based column numbers");
        ts.categorical = categorical.columns;
        for (long c : ts.categorical) {
          if (!ts.target_files.empty() || ts.target.kind != ColumnSelector::Kind::list) continue;
          if (c == ts.target.columns.front())
            fail(*node, "column " + std::to_string(c) + " is the target; a regression target cannot be categorical");
        }
        if (ts.features.kind == ColumnSelector::Kind::list)
          for (long c : ts.categorical)
            if (std::find(ts.features.columns.begin(), ts.features.columns.end(), c) == ts.features.columns.end())
              fail(*node, "categorical column " + std::to_string(c) + " is not one of the features");
      }
      if (const std::string missing = text(*tb, "missing"); missing == "drop-rows") {
        ts.missing = MissingValues::drop_rows;
      } else if (!missing.empty() && missing != "error") {
        fail(*tb->get("missing"), "missing = '" + missing + "' must be \"error\" or \"drop-rows\"");
      }
      d.table = std::move(ts);
    }
    if (const toml::table* sp = subtable(t, "splits")) {
      known_keys(*sp, "[dataset.splits]", {"count", "train", "test", "manifest"});
      const long count = integer(*sp, "count", 0);
      if (count < 1 || count > 100'000) fail(*sp, "splits.count must be from 1 to 100000");
      PublishedSplits ps{static_cast<int>(count), relative_path(*sp, "train", true), relative_path(*sp, "test", true),
                         relative_path(*sp, "manifest")};
      if (ps.count > 1 &&
          (ps.train_pattern.find("{k}") == std::string::npos || ps.test_pattern.find("{k}") == std::string::npos))
        fail(*sp, "splits.train and splits.test must hold {k}, the split's number (as \"index_train_{k}.txt\")");
      const auto listed = [&](const std::string& path) {
        return std::any_of(d.files.begin(), d.files.end(), [&](const SourceFile& f) { return f.path == path; });
      };
      if (!ps.manifest.empty() && !listed(ps.manifest)) d.files.push_back(SourceFile{ps.manifest, "", "", "", ""});
      for (int k = 0; k < ps.count; ++k)
        for (const std::string& path : {ps.train_file(k), ps.test_file(k)})
          if (!listed(path)) d.files.push_back(SourceFile{path, "", "", "", ps.manifest});
      if (d.table && d.table->missing == MissingValues::drop_rows)
        fail(*sp,
             "published splits number the rows of the file, so the table cannot drop rows (missing = "
             "\"drop-rows\")");
      d.splits = ps;
    }
    if (const toml::table* sy = subtable(t, "synthetic")) {
      known_keys(*sy, "[dataset.synthetic]", {"generator", "n", "seed"});
      d.synthetic = SyntheticSpec{text(*sy, "generator", true), integer(*sy, "n", 0),
                                  static_cast<std::uint64_t>(integer(*sy, "seed", 0))};
    }
    if (d.is_synthetic() && !d.synthetic) fail(t, "a synthetic data set needs a [synthetic] table");
    if (d.is_public() && (!d.table || d.folder.empty()))
      fail(t, "data set '" + d.name + "' needs 'folder' and 'table'");
    return d;
  }

 private:
  std::string file_;
};

}  // namespace

namespace {
std::string with_split(std::string pattern, int k) {
  const auto at = pattern.find("{k}");
  if (at != std::string::npos) pattern.replace(at, 3, std::to_string(k));
  return pattern;
}
}  // namespace

std::string PublishedSplits::train_file(int k) const { return with_split(train_pattern, k); }
std::string PublishedSplits::test_file(int k) const { return with_split(test_pattern, k); }

std::string DatasetSpec::url_of(const SourceFile& file) const {
  if (!file.url.empty()) return file.url;
  return url_base + (file.archive.empty() ? file.path : file.archive);
}

std::string DatasetSpec::definition() const {
  std::ostringstream out;
  // every text length-prefixed, so that no two definitions read the same ("a;b" vs "a", "b")
  const auto text = [](const std::string& t) { return std::to_string(t.size()) + "'" + t; };
  const auto list = [&](const std::vector<long>& v) {
    for (std::size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << v[i];
  };
  const auto columns = [&](const ColumnSelector& c) {
    if (c.kind == ColumnSelector::Kind::all) out << "all";
    if (c.kind == ColumnSelector::Kind::index_file) out << "file:" << text(c.index_file);
    if (c.kind == ColumnSelector::Kind::list) list(c.columns);
  };
  out << "availability=" << text(availability) << "|folder=" << text(folder);
  for (const auto& f : files)
    out << "|file=" << text(f.path) << text(f.sha256) << (f.manifest.empty() ? "" : "|in=" + text(f.manifest));
  if (derive) out << "|derive=" << text(derive->recipe) << text(derive->output) << text(derive->sha256);
  if (table) {
    out << "|table=";
    for (const auto& f : table->files) out << text(f);
    out << "|labels=";
    for (const auto& f : table->target_files) out << text(f);
    out << "|delimiter=" << static_cast<int>(table->delimiter) << "|header=" << table->header << "|features=";
    columns(table->features);
    out << "|target=";
    columns(table->target);
    out << "|categorical=";
    list(table->categorical);
    out << "|missing=" << (table->missing == MissingValues::drop_rows ? "drop-rows" : "error");
  }
  if (synthetic) out << "|synthetic=" << text(synthetic->generator) << ":" << synthetic->n << ":" << synthetic->seed;
  return out.str();
}

DatasetRegistry DatasetRegistry::load(const std::vector<std::string>& paths) {
  DatasetRegistry registry;
  for (const auto& path : paths) {
    const bool base = &path == &paths.front();
    toml::table root;
    try {
      root = toml::parse_file(path);
    } catch (const toml::parse_error& e) {
      throw DataError(path, static_cast<long>(e.source().begin.line), static_cast<long>(e.source().begin.column),
                      std::string(e.description()));
    }
    Reader reader(path);
    const toml::node* list = root.get("dataset");
    if (!list || !list->is_array_of_tables()) throw DataError(path, 0, 0, "expected [[dataset]] tables");
    reader.known_keys(root, "the registry", {"dataset"});
    std::vector<std::string> defined_here;  // a later file may replace an entry; one file may not define it twice
    for (const auto& node : *list->as_array()) {
      DatasetSpec spec = reader.dataset(*node.as_table());
      const auto line = static_cast<long>(node.source().begin.line);
      if (std::find(defined_here.begin(), defined_here.end(), lower(spec.name)) != defined_here.end())
        throw DataError(path, line, 0, "data set '" + spec.name + "' is defined twice in this file");
      defined_here.push_back(lower(spec.name));
      auto same = std::find_if(registry.datasets_.begin(), registry.datasets_.end(),
                               [&](const DatasetSpec& d) { return lower(d.name) == lower(spec.name); });
      for (const auto& alias : spec.aliases)
        if (const DatasetSpec* clash = registry.try_find(alias);
            clash != nullptr && (same == registry.datasets_.end() || clash != &*same))
          throw DataError(path, line, 0,
                          "alias '" + alias + "' of '" + spec.name + "' already names '" + clash->name + "' (" +
                              clash->defined_in + ")" +
                              (base ? std::string()
                                    : "; an entry copied under a new name must drop the aliases it was copied with"));
      spec.base_definition = base ? spec.definition() : "";
      if (same != registry.datasets_.end()) {
        spec.base_definition = same->base_definition;
        *same = std::move(spec);
      } else {
        if (const DatasetSpec* clash = registry.try_find(spec.name))
          throw DataError(path, static_cast<long>(node.source().begin.line), 0,
                          "name '" + spec.name + "' is already an alias of '" + clash->name + "'");
        registry.datasets_.push_back(std::move(spec));
      }
    }
  }
  return registry;
}

const DatasetSpec* DatasetRegistry::try_find(std::string_view name) const {
  const std::string key = lower(name);
  for (const auto& d : datasets_) {
    if (lower(d.name) == key) return &d;
    for (const auto& a : d.aliases)
      if (lower(a) == key) return &d;
  }
  return nullptr;
}

const DatasetSpec& DatasetRegistry::find(std::string_view name) const {
  if (const DatasetSpec* d = try_find(name)) return *d;
  std::string known;
  for (const auto& d : datasets_) known += (known.empty() ? "" : ", ") + d.name;
  throw std::invalid_argument("unknown data set '" + std::string(name) + "'; known data sets: " + known);
}

std::string default_registry_path() {
  if (const char* env = std::getenv("BNNBENCH_REGISTRY"); env && *env) return env;
  return std::string(BNNBENCH_SOURCE_DIR) + "/datasets/registry.toml";
}

}  // namespace bnn::data
