// Tests of the data-set layer (datasets/src): the shipped registry, loading from the local
// mirror (BNNBENCH_TEST_MIRROR, laid out like a data directory), published splits, the derived
// Crime table, error reports for bad data directories, split protocols, standardization and
// the synthetic generators.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "datasets/src/data_error.hpp"
#include "datasets/src/dataset.hpp"
#include "datasets/src/derive.hpp"
#include "datasets/src/fetch.hpp"
#include "datasets/src/load.hpp"
#include "datasets/src/normalize.hpp"
#include "datasets/src/protocol.hpp"
#include "datasets/src/registry.hpp"
#include "datasets/src/synthetic.hpp"
#include "datasets/src/target_transform.hpp"
#include "datasets/src/text_table.hpp"
#include "methods/core/rng.hpp"
#include "tests/support/data_mirror.hpp"

namespace fs = std::filesystem;
using namespace bnn::data;
using bnn::test::load_from_mirror;
using bnn::test::mirror_dir;
using bnn::test::published_splits_from_mirror;
using bnn::test::shipped_registry;
using bnn::test::shipped_registry_file;

namespace {

// A fresh, empty scratch directory for one test.
fs::path scratch(const std::string& name) { return bnn::test::scratch_dir("datasets", name); }

void write_file(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  REQUIRE(out.good());
}

template <class F>
std::optional<DataError> data_error(F&& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e;
  }
  return std::nullopt;
}

// The error names `file` (accessor and start of what()), the line and column (when given, -1:
// do not check), and contains `fragment`.
void require_error(const std::optional<DataError>& e, const std::string& file, long line, long column,
                   const std::string& fragment) {
  REQUIRE(e.has_value());
  const std::string what = e->what();
  CAPTURE(what);
  CHECK(e->file() == file);
  CHECK(what.rfind(file, 0) == 0);
  if (line >= 0) {
    CHECK(e->line() == line);
    if (line > 0) CHECK(what.find(", line " + std::to_string(line)) != std::string::npos);
  }
  if (column >= 0) {
    CHECK(e->column() == column);
    if (column > 0) CHECK(what.find(", column " + std::to_string(column)) != std::string::npos);
  }
  if (!fragment.empty()) CHECK(what.find(fragment) != std::string::npos);
}

// A small data directory holding one data set "fake" in folder "set", with its own registry.
struct Fake {
  fs::path root;
  std::string registry;
  std::string data_dir;
  fs::path folder;
  DatasetSpec spec() const { return DatasetRegistry::load({registry}).find("fake"); }
  std::string file(const std::string& name) const { return (folder / name).string(); }
};

const std::string kSixRows =  // two features and a target
    "1 2 10\n"
    "2 1 11\n"
    "3 5 12\n"
    "4 4 13\n"
    "5 3 15\n"
    "6 6 14\n";

Fake make_fake(const std::string& name, const std::string& toml_body, const std::map<std::string, std::string>& files) {
  Fake f;
  f.root = scratch(name);
  f.registry = (f.root / "registry.toml").string();
  f.data_dir = (f.root / "data").string();
  f.folder = f.root / "data" / "set";
  fs::create_directories(f.folder);
  write_file(f.registry, "[[dataset]]\nname = \"fake\"\navailability = \"public\"\nfolder = \"set\"\n" + toml_body);
  for (const auto& [file, content] : files) write_file(f.folder / file, content);
  return f;
}

const std::string kSplitsToml =
    "table = { file = \"data.txt\", features = [0, 1], target = 2 }\n"
    "splits = { count = 1, train = \"index_train_{k}.txt\", test = \"index_test_{k}.txt\" }\n";

void require_partition(const Split& s, Eigen::Index rows) {
  std::vector<int> count(static_cast<std::size_t>(rows), 0);
  long out_of_range = 0;
  for (const auto* part : {&s.train, &s.test})
    for (Eigen::Index r : *part) {
      if (r < 0 || r >= rows)
        ++out_of_range;
      else
        ++count[static_cast<std::size_t>(r)];
    }
  CHECK(out_of_range == 0);
  // Disjoint and covering: every row exactly once.
  CHECK(std::count(count.begin(), count.end(), 1) == rows);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------

TEST_CASE("registry: the shipped registry lists every data set", "[datasets]") {
  const DatasetRegistry& reg = shipped_registry();
  for (const char* name :
       {"boston", "concrete", "energy", "kin8nm", "naval", "power", "protein", "wine", "yacht", "year", "crime",
        "kin40k", "concrete-lv", "pbp-cubic", "epnn-case1", "epnn-case2", "epnn-case3", "bb-toy"}) {
    CAPTURE(name);
    const DatasetSpec* d = reg.try_find(name);
    REQUIRE(d != nullptr);
    CHECK(d->name == name);
    CHECK(d->defined_in.rfind(shipped_registry_file() + ":", 0) == 0);
  }
  CHECK(&reg.find("housing") == &reg.find("boston"));
  CHECK(&reg.find("BOSTON") == &reg.find("boston"));
  CHECK(reg.find("concrete-lv").availability == "not-public");
  CHECK_FALSE(reg.find("concrete-lv").is_public());
  CHECK(reg.find("year").availability == "url-only");
  CHECK(reg.find("boston").splits->count == 20);
  CHECK(reg.find("protein").splits->count == 5);
  CHECK_FALSE(reg.find("crime").splits.has_value());
  REQUIRE(reg.find("crime").derive.has_value());
  CHECK(reg.find("crime").derive->sha256 == "d19218d7cfe1bc5448b7efd918effd771677c5a6c487d0287f4b808e33f1cd5b");
  CHECK(reg.find("kin40k").table->target_files.size() == 2);
  for (const char* name : {"pbp-cubic", "epnn-case1", "epnn-case2", "epnn-case3", "bb-toy"}) {
    CAPTURE(name);
    const DatasetSpec& d = reg.find(name);
    CHECK(d.is_synthetic());
    REQUIRE(d.synthetic.has_value());
    CHECK(d.synthetic->generator == name);
    CHECK(d.synthetic->n == d.paper_n);
  }
  // Every file of a "public" data set has a checksum (only url-only sets may lack one).
  for (const auto& d : reg.all()) {
    if (d.availability != "public") continue;
    CAPTURE(d.name);
    CHECK_FALSE(d.files.empty());
    for (const auto& f : d.files) {
      CAPTURE(f.path);
      CHECK_FALSE(f.sha256.empty());
    }
  }
}

TEST_CASE("registry: an unknown name throws invalid_argument listing the names", "[datasets]") {
  CHECK(shipped_registry().try_find("no-such-set") == nullptr);
  try {
    shipped_registry().find("no-such-set");
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.find("no-such-set") != std::string::npos);
    for (const char* name : {"boston", "naval", "crime", "kin40k", "concrete-lv", "bb-toy"})
      CHECK(what.find(name) != std::string::npos);
  }
}

TEST_CASE("registry: malformed registry files give DataError at the right line", "[datasets]") {
  const fs::path dir = scratch("registry");
  const auto load_error = [&](const std::string& name, const std::string& content) {
    const std::string path = (dir / name).string();
    write_file(path, content);
    return std::make_pair(path, data_error([&] { DatasetRegistry::load({path}); }));
  };
  const std::string head = "# test registry\n[[dataset]]\nname = \"a\"\n";  // lines 1-3
  SECTION("TOML syntax error") {
    const auto [path, e] = load_error("syntax.toml", head + "availability = public\n");
    require_error(e, path, 4, 16, "");
  }
  SECTION("bad availability") {
    const auto [path, e] = load_error("availability.toml", head + "availability = \"open\"\n");
    require_error(e, path, 4, -1, "availability must be");
  }
  SECTION("missing name: reported at the [[dataset]] line") {
    const auto [path, e] =
        load_error("noname.toml", "# x\n\n[[dataset]]\ntitle = \"t\"\navailability = \"not-public\"\n");
    require_error(e, path, 3, -1, "missing required key 'name'");
  }
  SECTION("integer field given as a string") {
    const auto [path, e] = load_error("papern.toml", head + "availability = \"not-public\"\npaper_n = \"many\"\n");
    require_error(e, path, 5, -1, "'paper_n' must be an integer");
  }
  SECTION("bad sha256") {
    const auto [path, e] =
        load_error("sha.toml", head +
                                   "availability = \"public\"\nfolder = \"f\"\nfiles = [\n  { path = \"d.txt\" },\n"
                                   "  { path = \"e.txt\", sha256 = \"abc\" },\n]\n"
                                   "table = { file = \"d.txt\", features = \"all\", target = 1 }\n");
    require_error(e, path, 8, -1, "sha256 of 'e.txt' must be 64 hexadecimal digits");
  }
  SECTION("a misspelled key of a file entry: no silent loss of the checksum") {
    const auto [path, e] =
        load_error("sha265.toml", head +
                                      "availability = \"public\"\nfolder = \"f\"\nfiles = [\n"
                                      "  { path = \"d.txt\", sha265 = \"abc\" },\n]\n"
                                      "table = { file = \"d.txt\", features = \"all\", target = 1 }\n");
    require_error(e, path, 7, -1, "unknown key 'sha265' in an entry of 'files' (known: path, sha256, url, archive)");
  }
  SECTION("unknown keys of a data set, its table and the file") {
    require_error(load_error("k1.toml", head + "availability = \"not-public\"\npaper_nn = 5\n").second,
                  (dir / "k1.toml").string(), 5, -1, "unknown key 'paper_nn' in [[dataset]]");
    require_error(load_error("k2.toml", head + "availability = \"public\"\nfolder = \"f\"\n"
                                               "table = { file = \"d.txt\", features = \"all\", target = 1, "
                                               "delimeter = \"comma\" }\n")
                      .second,
                  (dir / "k2.toml").string(), 6, -1, "unknown key 'delimeter' in [dataset.table]");
    require_error(load_error("k3.toml", "datasets = 1\n" + head + "availability = \"not-public\"\n").second,
                  (dir / "k3.toml").string(), 1, -1, "unknown key 'datasets' in the registry");
  }
  SECTION("two target columns") {
    const auto [path, e] =
        load_error("target.toml", head +
                                      "availability = \"public\"\nfolder = \"f\"\n"
                                      "table = { file = \"d.txt\", features = [0], target = [1, 2] }\n");
    require_error(e, path, 6, -1, "target must be one column");
  }
  SECTION("empty column range") {
    const auto [path, e] =
        load_error("range.toml", head +
                                     "availability = \"public\"\nfolder = \"f\"\n"
                                     "table = { file = \"d.txt\", features = \"5..2\", target = 1 }\n");
    require_error(e, path, 6, -1, "column range '5..2'");
  }
  SECTION("negative column") {
    const auto [path, e] =
        load_error("negative.toml", head +
                                        "availability = \"public\"\nfolder = \"f\"\n"
                                        "table = { file = \"d.txt\", features = \"all\", target = -1 }\n");
    require_error(e, path, 6, -1, "must be from 0 to 999999");
  }
  SECTION("unknown delimiter") {
    const auto [path, e] =
        load_error("delimiter.toml",
                   head +
                       "availability = \"public\"\nfolder = \"f\"\n"
                       "table = { file = \"d.txt\", delimiter = \"semicolon\", features = \"all\", target = 1 }\n");
    require_error(e, path, 6, -1, "unknown delimiter 'semicolon'");
  }
  SECTION("splits.count 0") {
    const auto [path, e] =
        load_error("splits.toml", head +
                                      "availability = \"public\"\nfolder = \"f\"\n"
                                      "table = { file = \"d.txt\", features = \"all\", target = 1 }\n"
                                      "splits = { count = 0, train = \"a{k}\", test = \"b{k}\" }\n");
    require_error(e, path, 7, -1, "splits.count must be from 1 to 100000");
  }
  SECTION("public data set without a table") {
    const auto [path, e] = load_error("notable.toml", head + "availability = \"public\"\nfolder = \"f\"\n");
    require_error(e, path, 2, -1, "needs 'folder' and 'table'");
  }
  SECTION("synthetic data set without a generator") {
    const auto [path, e] = load_error("nosynth.toml", head + "availability = \"synthetic\"\n");
    require_error(e, path, 2, -1, "needs a [synthetic] table");
  }
  SECTION("a name that is already an alias") {
    const auto [path, e] = load_error("alias.toml", head +
                                                        "aliases = [\"b\"]\navailability = \"not-public\"\n\n"
                                                        "[[dataset]]\nname = \"B\"\navailability = \"not-public\"\n");
    require_error(e, path, 7, 0, "already an alias");
  }
  SECTION("paths that leave the data directory") {
    const std::string table = "table = { file = \"d.txt\", features = \"all\", target = 1 }\n";
    auto [path, e] = load_error("up.toml", head + "availability = \"public\"\nfolder = \"../up\"\n" + table);
    require_error(e, path, 5, 10, "'folder' = '../up' must be a relative path without '..'");
    std::tie(path, e) = load_error("abs.toml", head + "availability = \"public\"\nfolder = \"/etc\"\n" + table);
    require_error(e, path, 5, 10, "'folder' = '/etc' must be a relative path");
    std::tie(path, e) = load_error("file-up.toml", head +
                                                       "availability = \"public\"\nfolder = \"f\"\n"
                                                       "files = [ { path = \"a/../../d.txt\" } ]\n" +
                                                       table);
    require_error(e, path, 6, -1, "'path' = 'a/../../d.txt' must be a relative path");
    std::tie(path, e) =
        load_error("splits-up.toml", head + "availability = \"public\"\nfolder = \"f\"\n" + table +
                                         "splits = { count = 1, train = \"../a{k}\", test = \"b{k}\" }\n");
    require_error(e, path, 7, -1, "'train' = '../a{k}' must be a relative path");
    // ".." inside a name is no escape
    write_file(dir / "dots.toml", head + "availability = \"public\"\nfolder = \"f..g\"\n" + table);
    CHECK(DatasetRegistry::load({(dir / "dots.toml").string()}).find("a").folder == "f..g");
  }
  SECTION("a name defined twice in one file") {
    const auto [path, e] = load_error(
        "twice.toml",
        head + "availability = \"not-public\"\n\n[[dataset]]\nname = \"A\"\navailability = \"not-public\"\n");
    require_error(e, path, 6, 0, "data set 'A' is defined twice in this file");
  }
  SECTION("an alias that names another data set") {
    const auto [path, e] =
        load_error("clash.toml", head +
                                     "availability = \"not-public\"\n\n[[dataset]]\nname = \"b\"\naliases = [\"A\"]\n"
                                     "availability = \"not-public\"\n");
    require_error(e, path, 6, 0, "alias 'A' of 'b' already names 'a'");
  }
  SECTION("no [[dataset]] tables") {
    const auto [path, e] = load_error("empty.toml", "title = \"nothing\"\n");
    require_error(e, path, 0, 0, "expected [[dataset]] tables");
  }
  SECTION("unreadable file") {
    const std::string path = (dir / "does-not-exist.toml").string();
    require_error(data_error([&] { DatasetRegistry::load({path}); }), path, -1, -1, "");
  }
}

TEST_CASE("registry: a later file replaces a same-named data set", "[datasets]") {
  const fs::path dir = scratch("registry-override");
  write_file(dir / "a.toml",
             "[[dataset]]\nname = \"x\"\ntitle = \"first\"\navailability = \"not-public\"\n"
             "[[dataset]]\nname = \"y\"\navailability = \"not-public\"\n");
  write_file(dir / "b.toml", "[[dataset]]\nname = \"X\"\ntitle = \"second\"\navailability = \"not-public\"\n");
  const auto reg = DatasetRegistry::load({(dir / "a.toml").string(), (dir / "b.toml").string()});
  CHECK(reg.all().size() == 2);
  CHECK(reg.find("x").title == "second");
}

TEST_CASE("registry: the definition of an entry a later file adds or changes is marked", "[datasets]") {
  const fs::path dir = scratch("registry-redefined");
  const std::string entry =
      "[[dataset]]\nname = \"x\"\navailability = \"public\"\nfolder = \"x\"\n"
      "table = { file = \"d.txt\", features = [0, 1], target = 2 }\n";
  write_file(dir / "base.toml", entry);
  write_file(dir / "same.toml", "# a copy\n" + entry);
  write_file(dir / "fewer.toml",
             "[[dataset]]\nname = \"x\"\navailability = \"public\"\nfolder = \"x\"\n"
             "table = { file = \"d.txt\", features = [0], target = 2 }\n");
  write_file(dir / "new.toml",
             "[[dataset]]\nname = \"y\"\navailability = \"public\"\nfolder = \"y\"\n"
             "table = { file = \"d.txt\", features = [0], target = 1 }\n");
  const auto base = (dir / "base.toml").string();
  CHECK_FALSE(DatasetRegistry::load({base}).find("x").redefined());
  CHECK_FALSE(DatasetRegistry::load({base, (dir / "same.toml").string()}).find("x").redefined());
  const auto changed = DatasetRegistry::load({base, (dir / "fewer.toml").string(), (dir / "new.toml").string()});
  CHECK(changed.find("x").redefined());
  CHECK(changed.find("y").redefined());
  CHECK(changed.find("x").definition().find("features=0|") != std::string::npos);
}

TEST_CASE("registry: fuzzing findings stay fixed (fuzz/findings)", "[datasets]") {
  const fs::path dir = scratch("registry-fuzz-findings");
  const std::string head = "[[dataset]]\nname = \"x\"\navailability = \"public\"\nfolder = \"x\"\n";  // lines 1-4
  const auto load_error = [&](const std::string& name, const std::string& content) {
    const std::string path = (dir / name).string();
    write_file(path, content);
    return std::make_pair(path, data_error([&] { DatasetRegistry::load({path}); }));
  };
  const auto one_line = [](const std::optional<DataError>& e) {
    return e && std::string(e->what()).find('\n') == std::string::npos;
  };
  SECTION("a huge column range is refused, not allocated") {
    const auto [path, e] = load_error(
        "range.toml", head + "table = { file = \"d\", features = \"1..9223372036854775807\", target = 0 }\n");
    require_error(e, path, 5, -1, "goes beyond column 999999");
  }
  SECTION("a range with trailing junk is refused (std::stol took '0..1O1' as 0..1)") {
    const auto [path, e] =
        load_error("lenient.toml", head + "table = { file = \"d\", features = \"0..1O1\", target = 0 }\n");
    require_error(e, path, 5, -1, "must look like \"0..12\"");
  }
  SECTION("no features, empty names and paths, control characters in paths") {
    require_error(load_error("nofeatures.toml", head + "table = { file = \"d\", features = [], target = 1 }\n").second,
                  (dir / "nofeatures.toml").string(), 5, -1, "'features' names no column");
    require_error(load_error("emptyname.toml", "[[dataset]]\nname = \"\"\navailability = \"not-public\"\n").second,
                  (dir / "emptyname.toml").string(), 2, -1, "must be non-empty");
    require_error(
        load_error("emptyfile.toml", head + "table = { files = [\"\"], features = [0], target = 1 }\n").second,
        (dir / "emptyfile.toml").string(), 5, -1, "'files' is empty");
    require_error(
        load_error("nul.toml", head + "table = { file = \"d.txt\\u0000.gz\", features = [0], target = 1 }\n").second,
        (dir / "nul.toml").string(), 5, -1, "holds a control character");
  }
  SECTION("a derivation's checksum is checked; a split count does not wrap") {
    require_error(
        load_error("derive.toml", head + "derive = { recipe = \"r\", output = \"d.txt\", sha256 = \"nope\" }\n"
                                         "table = { file = \"d.txt\", features = [0], target = 1 }\n")
            .second,
        (dir / "derive.toml").string(), 5, -1, "derive.sha256 must be 64 hexadecimal digits");
    require_error(load_error("count.toml", head + "table = { file = \"d\", features = [0], target = 1 }\n"
                                                  "splits = { count = 4294967297, train = \"a\", test = \"b\" }\n")
                      .second,
                  (dir / "count.toml").string(), 6, -1, "splits.count must be from 1 to 100000");
  }
  SECTION("messages stay one line when the input holds a newline") {
    CHECK(one_line(load_error("key.toml", "[[dataset]]\n\"na\\nme\" = \"x\"\n").second));
    CHECK(one_line(load_error("toml.toml", "[[dataset]]\nname = n\n").second));
  }
  SECTION("definitions do not collide: file lists are length-prefixed") {
    write_file(dir / "a.toml", head + "table = { files = [\"a;b\"], features = [0], target = 1 }\n");
    write_file(dir / "b.toml", head + "table = { files = [\"a\", \"b\"], features = [0], target = 1 }\n");
    CHECK(DatasetRegistry::load({(dir / "a.toml").string()}).find("x").definition() !=
          DatasetRegistry::load({(dir / "b.toml").string()}).find("x").definition());
  }
}

TEST_CASE("registry: categorical, missing and delimiter keys are checked", "[datasets]") {
  const fs::path dir = scratch("registry-table-keys");
  const auto load_error = [&](const std::string& name, const std::string& table_lines) {
    const std::string path = (dir / name).string();
    write_file(path,
               "[[dataset]]\nname = \"a\"\navailability = \"public\"\nfolder = \"a\"\n[dataset.table]\n" + table_lines);
    return std::make_pair(path, data_error([&] { DatasetRegistry::load({path}); }));
  };
  SECTION("a categorical target") {
    const auto [path, e] =
        load_error("target.toml", "file = \"d\"\nfeatures = [0, 1]\ntarget = 2\ncategorical = [2]\n");
    require_error(e, path, 9, -1, "a regression target cannot be categorical");
  }
  SECTION("a categorical column that is not a feature") {
    const auto [path, e] =
        load_error("notfeature.toml", "file = \"d\"\nfeatures = [0, 1]\ntarget = 2\ncategorical = [3]\n");
    require_error(e, path, 9, -1, "categorical column 3 is not one of the features");
  }
  SECTION("categorical must be a list of columns") {
    const auto [path, e] =
        load_error("all.toml", "file = \"d\"\nfeatures = \"all\"\ntarget = 2\ncategorical = \"all\"\n");
    require_error(e, path, 9, -1, "must be a list of 0-based column numbers");
  }
  SECTION("an unknown missing policy") {
    const auto [path, e] =
        load_error("missing.toml", "file = \"d\"\nfeatures = [0]\ntarget = 1\nmissing = \"impute\"\n");
    require_error(e, path, 9, -1, "must be \"error\" or \"drop-rows\"");
  }
  SECTION("drop-rows with published splits") {
    const std::string path = (dir / "splits.toml").string();
    write_file(path,
               "[[dataset]]\nname = \"a\"\navailability = \"public\"\nfolder = \"a\"\n"
               "table = { file = \"d\", features = [0], target = 1, missing = \"drop-rows\" }\n"
               "splits = { count = 1, train = \"tr\", test = \"te\" }\n");
    require_error(data_error([&] { DatasetRegistry::load({path}); }), path, 6, -1, "cannot drop rows");
  }
  SECTION("an unknown delimiter") {
    const auto [path, e] =
        load_error("delimiter.toml", "file = \"d\"\nfeatures = [0]\ntarget = 1\ndelimiter = \"semicolon\"\n");
    require_error(e, path, -1, -1, "expected auto, whitespace, comma or tab");
  }
}

TEST_CASE("fake data: categorical columns are one-hot encoded, rows with missing values dropped", "[datasets]") {
  const std::string table =
      "grade,name,size,price\n"
      "E,\"chevrolet, malibu\",1.5,10\n"
      "A,buick,2.5,11\n"
      "C,?,,12\n"      // size missing
      "A,ford,3.5,\n"  // target missing
      "E,\"amc\",4.5,14\n"
      "?,x,5.5,15\n";  // label missing
  SECTION("categorical + drop-rows") {
    const Fake f = make_fake("categorical",
                             "table = { file = \"data.csv\", header = true, features = [0, 2], target = 3, "
                             "categorical = [0], missing = \"drop-rows\" }\n",
                             {{"data.csv", table}});
    const Dataset d = load_dataset(f.spec(), f.data_dir);
    // kept: lines 2, 3, 6; inputs: grade=A, grade=E (C is only on a dropped row), size
    REQUIRE(d.X.rows() == 3);
    REQUIRE(d.X.cols() == 3);
    Eigen::MatrixXd expected(3, 3);
    expected << 0, 1, 1.5,  //
        1, 0, 2.5,          //
        0, 1, 4.5;
    CHECK(d.X == expected);
    CHECK(d.y == Eigen::Vector3d(10, 11, 14));
    REQUIRE(d.notes.size() == 2);
    CHECK(d.notes[0].find("3 of 6 rows dropped") != std::string::npos);
    CHECK(d.notes[0].find("lines 4, 5, 7") != std::string::npos);
    CHECK(d.notes[1].find("column 0 (grade) one-hot encoded: 2 inputs for its labels \"A\", \"E\"") !=
          std::string::npos);
  }
  SECTION("without drop-rows a missing value is an error at its line") {
    const Fake f = make_fake("categorical-error",
                             "table = { file = \"data.csv\", header = true, features = [0, 2], target = 3, "
                             "categorical = [0] }\n",
                             {{"data.csv", table}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("data.csv"), 4, 3,
                  "missing value ('?' or an empty field) in a feature column");
  }
  SECTION("without categorical the label column is an error") {
    const Fake f = make_fake("categorical-absent",
                             "table = { file = \"data.csv\", header = true, features = [0, 2], target = 3 }\n",
                             {{"data.csv", table}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("data.csv"), 2, 1,
                  "non-numeric value 'E'");
  }
  SECTION("stacked files share one encoding") {
    const Fake f = make_fake("categorical-stacked",
                             "table = { files = [\"a.txt\", \"b.txt\"], features = [0, 1], target = 2, "
                             "categorical = [0], delimiter = \"tab\" }\n",
                             {{"a.txt", "red\t1\t10\nblue\t2\t11\n"}, {"b.txt", "green\t3\t12\nred\t4\t13\n"}});
    const Dataset d = load_dataset(f.spec(), f.data_dir);
    REQUIRE(d.X.cols() == 4);  // blue, green, red, and the number
    CHECK(d.X.col(2) == Eigen::Vector4d(1, 0, 0, 1));
    CHECK(d.X.col(1) == Eigen::Vector4d(0, 0, 1, 0));
    CHECK(d.X.col(0) == Eigen::Vector4d(0, 1, 0, 0));
  }
}

TEST_CASE("fake data: a target constant but for rounding is warned about", "[datasets]") {
  Dataset d;
  d.name = d.origin = "t.txt";
  d.X = Eigen::MatrixXd::Zero(3, 1);
  // Set in place: assigning a fixed-size Vector3d temporary to the dynamic vector made GCC 12
  // warn (-Warray-bounds) about the 4-wide packet load Eigen guards at run time.
  d.y.resize(3);
  d.y << 0.3, 0.3, 0.30000000000000004;
  const auto warnings = bnn::data::data_warnings(d);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("constant but for rounding") != std::string::npos);
  d.y << 0.3, 0.31, 0.3;
  CHECK(bnn::data::data_warnings(d).empty());
}

TEST_CASE("fake data: a target constant but for a few rows is warned about", "[datasets]") {
  Dataset d;
  d.name = d.origin = "t.txt";
  d.X = Eigen::MatrixXd::Zero(250, 1);
  d.y = Eigen::VectorXd::Constant(250, 5.0);
  d.y[17] = 5.1;  // 249 x 5.0 and one 5.1
  auto warnings = bnn::data::data_warnings(d);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] ==
        "t.txt: the target is 5 on 249 of its 250 rows (1 row(s) differ); it is constant but for a few "
        "rows, so fits and metrics mean little");
  d.y[18] = 4.9;  // two of 250 differ: still at most 1%
  CHECK(bnn::data::data_warnings(d).size() == 1);
  d.y.head(3) << 4.0, 6.0, 7.0;  // five differ: a target with some variation
  CHECK(bnn::data::data_warnings(d).empty());
}

// ---------------------------------------------------------------------------------------------
// Loading from the mirror
// ---------------------------------------------------------------------------------------------

TEST_CASE("mirror: boston loads with 506 x 13 and target column 13", "[datasets]") {
  const DatasetSpec& spec = shipped_registry().find("housing");
  const Dataset d = load_dataset(spec, mirror_dir());
  CHECK(d.name == "boston");
  REQUIRE(d.X.rows() == 506);
  REQUIRE(d.X.cols() == 13);
  REQUIRE(d.y.size() == 506);
  CHECK(d.y.minCoeff() == 5.0);
  CHECK(d.y.maxCoeff() == 50.0);
  const std::string data = dataset_file(spec, mirror_dir(), "data.txt");
  CHECK(read_index_file(dataset_file(spec, mirror_dir(), "index_target.txt")) == std::vector<long>{13});
  const NumericTable raw = read_numeric_table(data);
  REQUIRE(raw.values.cols() == 14);
  CHECK(d.y == raw.values.col(13));
  CHECK(d.X == raw.values.leftCols(13));
  CHECK(d.origin == data);
}

TEST_CASE("mirror: naval, protein and kin40k shapes", "[datasets]") {
  SECTION("naval 11934 x 16, constant columns 8 and 11") {
    const Dataset d = load_from_mirror("naval");
    CHECK(d.X.rows() == 11934);
    CHECK(d.X.cols() == 16);
    CHECK(d.X.col(8).minCoeff() == d.X.col(8).maxCoeff());
    CHECK(d.X.col(11).minCoeff() == d.X.col(11).maxCoeff());
    CHECK(d.y.minCoeff() >= 0.95);
    CHECK(d.y.maxCoeff() <= 1.0);
    // The standardizer copes with the two constant features.
    const Standardizer s = Standardizer::fit(d.X, d.y, "naval");
    CHECK(s.x_scale[8] == 1.0);
    CHECK(s.x_scale[11] == 1.0);
    CHECK(s.transform_inputs(d.X).allFinite());
    // As the PBP authors' numpy code standardizes naval's training part of split 0: 0.998
    // summed 10741 times rounds (mean 0.99799999999976...), so column 11 becomes a constant
    // +1 input; 288 sums exactly and column 8 stays zeros; the other columns are unchanged.
    const auto splits = published_splits_from_mirror("naval", d.X.rows());
    const Eigen::MatrixXd X_train = select_rows(d.X, splits[0].train);
    const Eigen::VectorXd y_train = select_rows(d.y, splits[0].train);
    REQUIRE(X_train.rows() == 10741);
    const Standardizer zero = Standardizer::fit(X_train, y_train, "naval");
    const Standardizer numpy = Standardizer::fit(X_train, y_train, "naval", ConstantInputs::numpy);
    const Eigen::MatrixXd Z = numpy.transform_inputs(d.X);
    CHECK(Z.col(8).isZero(0.0));
    CHECK(Z.col(11).minCoeff() == Z.col(11).maxCoeff());
    CHECK(Z(0, 11) == Approx(1.0).epsilon(1e-12));
    CHECK(numpy.x_mean[11] < 0.998);
    CHECK(numpy.x_scale[11] < 1e-12);
    const Eigen::MatrixXd Z0 = zero.transform_inputs(d.X);
    CHECK(Z0.col(11).isZero(0.0));
    for (int j : {0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 12, 13, 14, 15}) CHECK(Z.col(j) == Z0.col(j));
  }
  SECTION("protein 45730 x 9 with 5 published splits") {
    const Dataset d = load_from_mirror("protein");
    CHECK(d.X.rows() == 45730);
    CHECK(d.X.cols() == 9);
    CHECK(d.y.minCoeff() >= 0.0);
    CHECK(d.y.maxCoeff() <= 21.0);
    const auto splits = published_splits_from_mirror("protein", d.X.rows());
    CHECK(splits.size() == 5);
  }
  SECTION("kin40k stacks 10000 + 30000 rows") {
    const DatasetSpec& spec = shipped_registry().find("kin40k");
    const Dataset d = load_dataset(spec, mirror_dir());
    REQUIRE(d.X.rows() == 40000);
    REQUIRE(d.X.cols() == 8);
    REQUIRE(d.y.size() == 40000);
    const NumericTable train_x = read_numeric_table(dataset_file(spec, mirror_dir(), "kin40k_train_data.asc"));
    const NumericTable test_y = read_numeric_table(dataset_file(spec, mirror_dir(), "kin40k_test_labels.asc"));
    const NumericTable train_y = read_numeric_table(dataset_file(spec, mirror_dir(), "kin40k_train_labels.asc"));
    CHECK(d.X.topRows(10000) == train_x.values);
    CHECK(d.y.head(10000) == train_y.values.col(0));
    CHECK(d.y.tail(30000) == test_y.values.col(0));
  }
}

TEST_CASE("mirror: published splits of every UCI set are disjoint partitions of the stated sizes", "[datasets]") {
  struct Expect {
    const char* name;
    Eigen::Index rows, cols, train, test;
    int count;
  };
  const Expect sets[] = {
      {"boston", 506, 13, 455, 51, 20},      {"concrete", 1030, 8, 927, 103, 20},   {"energy", 768, 8, 691, 77, 20},
      {"kin8nm", 8192, 8, 7373, 819, 20},    {"naval", 11934, 16, 10741, 1193, 20}, {"power", 9568, 4, 8611, 957, 20},
      {"protein", 45730, 9, 41157, 4573, 5}, {"wine", 1599, 11, 1439, 160, 20},     {"yacht", 308, 6, 277, 31, 20},
  };
  for (const Expect& e : sets) {
    CAPTURE(e.name);
    const Dataset d = load_from_mirror(e.name);
    CHECK(d.X.rows() == e.rows);
    CHECK(d.X.cols() == e.cols);
    CHECK(d.y.size() == e.rows);
    CHECK(d.X.allFinite());
    CHECK(d.y.allFinite());
    const auto splits = published_splits_from_mirror(e.name, d.X.rows());
    REQUIRE(splits.size() == static_cast<std::size_t>(e.count));
    std::set<std::vector<Eigen::Index>> distinct_tests;
    for (std::size_t k = 0; k < splits.size(); ++k) {
      CAPTURE(k);
      CHECK(static_cast<Eigen::Index>(splits[k].train.size()) == e.train);
      CHECK(static_cast<Eigen::Index>(splits[k].test.size()) == e.test);
      require_partition(splits[k], e.rows);
      auto sorted = splits[k].test;
      std::sort(sorted.begin(), sorted.end());
      distinct_tests.insert(sorted);
    }
    CHECK(distinct_tests.size() == splits.size());  // the splits really differ
    // make_splits with the published protocol hands them through unchanged.
    Protocol p;
    const auto through = make_splits(p, d.X.rows(), 1, e.name, [&] { return splits; });
    CHECK(through.size() == splits.size());
    CHECK(through.front().test == splits.front().test);
  }
}

TEST_CASE("mirror: sets that cannot be loaded say why", "[datasets]") {
  CHECK_THROWS_WITH(load_from_mirror("concrete-lv"), Catch::Contains("not publicly available"));
  CHECK_THROWS_WITH(load_from_mirror("year"), Catch::Contains("datasets fetch year"));
  CHECK_THROWS_AS(published_splits_from_mirror("crime", 1993), std::runtime_error);
}

// ---------------------------------------------------------------------------------------------
// Derived Crime table
// ---------------------------------------------------------------------------------------------

TEST_CASE("derive: the crime table is reproduced byte for byte", "[datasets]") {
  const DatasetSpec& spec = shipped_registry().find("crime");
  const std::string original = dataset_file(spec, mirror_dir(), "CommViolPredUnnormalizedData.txt");
  const std::string bytes = derive_crime_n1993_d102(read_file(original), original);
  CHECK(sha256_hex(bytes) == "d19218d7cfe1bc5448b7efd918effd771677c5a6c487d0287f4b808e33f1cd5b");
  CHECK(run_derivation(spec.derive->recipe, read_file(original), original) == bytes);
  CHECK_THROWS_AS(run_derivation("no-such-recipe", bytes, original), std::invalid_argument);

  const NumericTable derived = parse_numeric_table(bytes, "derived");
  CHECK(derived.values.rows() == 1993);
  CHECK(derived.values.cols() == 103);
  CHECK(derived.missing_count == 0);

  const Dataset d = load_dataset(spec, mirror_dir());
  CHECK(d.X.rows() == 1993);
  CHECK(d.X.cols() == 102);
  CHECK(d.y.minCoeff() == 0.0);
  CHECK(d.y.maxCoeff() == 4877.06);
  CHECK(d.y == derived.values.col(102));
}

TEST_CASE("derive: malformed crime input gives DataError", "[datasets]") {
  std::string row;  // 147 columns, all present
  for (int c = 1; c <= 147; ++c) row += (c > 1 ? "," : "") + std::to_string(c);
  require_error(data_error([&] { derive_crime_n1993_d102(row + "\r\r\n1,2,3\r\r\n", "crime.txt"); }), "crime.txt", 2, 4,
                "expected 147 comma-separated columns, found 3");
  std::string no_target = row;
  no_target.replace(no_target.rfind(",146,"), 5, ",?,");
  require_error(data_error([&] { derive_crime_n1993_d102(no_target + "\n", "crime.txt"); }), "crime.txt", 0, 0,
                "no complete rows");
  const std::string one = derive_crime_n1993_d102(row + "\n" + no_target + "\n", "crime.txt");
  CHECK(std::count(one.begin(), one.end(), '\n') == 1);
  CHECK(std::count(one.begin(), one.end(), ' ') == 102);
}

// ---------------------------------------------------------------------------------------------
// Fake data directories: errors in data, index and label files
// ---------------------------------------------------------------------------------------------

TEST_CASE("fake data: a good small data set loads with its splits", "[datasets]") {
  const Fake f =
      make_fake("good", kSplitsToml,
                {{"data.txt", kSixRows}, {"index_train_0.txt", "0\n1\n2\n3\n"}, {"index_test_0.txt", "4\n5\n"}});
  const DatasetSpec spec = f.spec();
  const Dataset d = load_dataset(spec, f.data_dir);
  REQUIRE(d.X.rows() == 6);
  REQUIRE(d.X.cols() == 2);
  CHECK(d.y[4] == 15.0);
  CHECK(d.X(2, 1) == 5.0);
  const auto splits = read_published_splits(spec, f.data_dir, d.X.rows());
  REQUIRE(splits.size() == 1);
  CHECK(splits[0].train == std::vector<Eigen::Index>{0, 1, 2, 3});
  CHECK(splits[0].test == std::vector<Eigen::Index>{4, 5});
}

TEST_CASE("fake data: bad index files give DataError naming file and line", "[datasets]") {
  struct Case {
    const char* name;
    const char* train;
    const char* test;
    const char* bad_file;
    long line, column;
    const char* fragment;
  };
  const Case cases[] = {
      {"out-of-range", "0\n1\n6\n", "4\n5\n", "index_train_0.txt", 3, 1, "row 6 is out of range"},
      {"duplicate-train", "0\n1\n1\n", "4\n5\n", "index_train_0.txt", 3, 1, "row 1 is listed twice"},
      {"duplicate-test", "0\n1\n", "4\n5\n4\n", "index_test_0.txt", 3, 1, "row 4 is listed twice"},
      {"overlap", "0\n1\n2\n", "4\n2\n", "index_test_0.txt", 2, 1, "row 2 is also a training row"},
      {"negative", "0\n-1\n", "4\n5\n", "index_train_0.txt", 2, 1, "non-negative integer"},
      {"non-integer", "0\n1.5\n", "4\n5\n", "index_train_0.txt", 2, 1, "non-negative integer"},
      {"non-numeric", "0\n1\n", "4\nfive\n", "index_test_0.txt", 2, 1, "non-numeric value 'five'"},
      {"empty", "", "4\n5\n", "index_train_0.txt", 0, 0, "the file is empty"},
      {"blank-inside", "0\n\n1\n", "4\n5\n", "index_train_0.txt", 2, 0, "blank line"},
      // Several indices per line: the line and column of the offending entry.
      {"two-per-line-range", "0 1\n2 9\n", "4 5\n", "index_train_0.txt", 2, 2, "row 9 is out of range"},
      {"two-per-line-overlap", "0 1\n2 3\n", "4 3\n", "index_test_0.txt", 1, 2, "row 3 is also a training row"},
      {"two-per-line-twice", "0 1 2\n3 1 4\n", "5 5\n", "index_train_0.txt", 2, 2, "row 1 is listed twice"},
      {"two-per-line-test-twice", "0 1\n2 3\n", "4 5\n5 4\n", "index_test_0.txt", 2, 1, "row 5 is listed twice"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const Fake f = make_fake(std::string("index-") + c.name, kSplitsToml,
                             {{"data.txt", kSixRows}, {"index_train_0.txt", c.train}, {"index_test_0.txt", c.test}});
    const DatasetSpec spec = f.spec();
    require_error(data_error([&] { read_published_splits(spec, f.data_dir, 6); }), f.file(c.bad_file), c.line, c.column,
                  c.fragment);
  }
}

TEST_CASE("fake data: bad tables and column selections give DataError naming the file", "[datasets]") {
  SECTION("target column out of range") {
    const Fake f = make_fake("target-range", "table = { file = \"data.txt\", features = [0, 1], target = 7 }\n",
                             {{"data.txt", kSixRows}});
    const DatasetSpec spec = f.spec();
    // The column comes from the registry: the error names the registry file and the data set's line.
    require_error(data_error([&] { load_dataset(spec, f.data_dir); }), f.registry + ":1", 0, 0,
                  "target column 7 (0-based) is out of range");
  }
  SECTION("feature index file with an out-of-range column") {
    const Fake f = make_fake("feature-range",
                             "table = { file = \"data.txt\", features = \"index_features.txt\", target = "
                             "\"index_target.txt\" }\n",
                             {{"data.txt", kSixRows}, {"index_features.txt", "0\n3\n"}, {"index_target.txt", "2\n"}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("index_features.txt"), -1, -1,
                  "feature column 3 (0-based) is out of range");
  }
  SECTION("target index file with a negative column") {
    const Fake f = make_fake("target-negative",
                             "table = { file = \"data.txt\", features = [0, 1], target = \"index_target.txt\" }\n",
                             {{"data.txt", kSixRows}, {"index_target.txt", "-2\n"}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("index_target.txt"), 1, 1,
                  "non-negative integer");
  }
  SECTION("target is also a feature") {
    const Fake f = make_fake("target-feature", "table = { file = \"data.txt\", features = \"all\", target = 2 }\n",
                             {{"data.txt", kSixRows}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.registry + ":1", 0, 0, "also a feature");
  }
  SECTION("'?' in a selected column") {
    const Fake f = make_fake("missing-selected", "table = { file = \"data.txt\", features = [0, 1], target = 2 }\n",
                             {{"data.txt", "1 2 10\n2 1 11\n3 ? 12\n4 4 13\n"}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("data.txt"), 3, 2,
                  "missing value ('?' or an empty field) in a feature column");
  }
  SECTION("'?' in the target column") {
    const Fake f = make_fake("missing-target", "table = { file = \"data.txt\", features = [0, 1], target = 2 }\n",
                             {{"data.txt", "1,2,10\r\n2,1,11\r\n3,5,?\r\n"}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("data.txt"), 3, 3,
                  "missing value ('?' or an empty field) in a target column");
  }
  SECTION("'?' or text in a column that is not used is fine: it is not parsed") {
    const Fake f = make_fake("missing-unused", "table = { file = \"data.txt\", features = [0, 2], target = 3 }\n",
                             {{"data.txt", "1 ? 2 10\n2 x 1 11\n3 ? 5 12\n"}});
    const Dataset d = load_dataset(f.spec(), f.data_dir);
    CHECK(d.X.rows() == 3);
    CHECK(d.X.cols() == 2);
    CHECK(d.X.allFinite());
    CHECK(d.X(1, 1) == 1.0);
    // ... but a non-number in a used column is an error at its place
    write_file(f.folder / "data.txt", "1 ? 2 10\n2 x y 11\n3 ? 5 12\n");
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("data.txt"), 2, 3,
                  "non-numeric value 'y'");
  }
  SECTION("constant target") {
    const Fake f = make_fake("constant", "table = { file = \"data.txt\", features = [0, 1], target = 2 }\n",
                             {{"data.txt", "1 2 7\n2 1 7\n3 5 7\n"}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("data.txt"), 0, 0,
                  "the target is constant");
  }
  SECTION("too few rows") {
    const Fake f = make_fake("one-row", "table = { file = \"data.txt\", features = [0, 1], target = 2 }\n",
                             {{"data.txt", "1 2 7\n"}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("data.txt"), 0, 0,
                  "has 1 rows, but at least 2 are needed");
  }
  SECTION("ragged data file") {
    const Fake f = make_fake("ragged", "table = { file = \"data.txt\", features = [0, 1], target = 2 }\n",
                             {{"data.txt", "1 2 7\n2 1 8\n3 5\n"}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("data.txt"), 3, 3,
                  "row has 2 columns");
  }
  SECTION("stacked files: '?' in the second file names that file") {
    const Fake f =
        make_fake("stacked-missing", "table = { files = [\"a.txt\", \"b.txt\"], features = [0], target = 1 }\n",
                  {{"a.txt", "1 10\n2 11\n"}, {"b.txt", "3 12\n? 13\n"}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("b.txt"), 2, 1,
                  "missing value ('?' or an empty field) in a feature column");
  }
  SECTION("stacked files with different widths") {
    const Fake f =
        make_fake("stacked-width", "table = { files = [\"a.txt\", \"b.txt\"], features = [0], target = 1 }\n",
                  {{"a.txt", "1 10\n2 11\n"}, {"b.txt", "\t3 12 5\n"}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("b.txt"), 1, 0, "has 3 columns but");
  }
  SECTION("label files with the wrong number of rows") {
    const Fake f = make_fake(
        "labels-rows", "table = { files = [\"x.txt\"], target_files = [\"y.txt\"], features = \"all\", target = 0 }\n",
        {{"x.txt", "1 2\n3 4\n5 6\n"}, {"y.txt", "1\n2\n"}});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("y.txt"), 0, 0, "has 2 rows but");
  }
  SECTION("a data file that is absent but not listed in `files`") {
    const Fake f = make_fake("absent", "table = { file = \"data.txt\", features = [0, 1], target = 2 }\n", {});
    require_error(data_error([&] { load_dataset(f.spec(), f.data_dir); }), f.file("data.txt"), 0, 0, "cannot open");
  }
  SECTION("a listed file that is absent or corrupted is not loaded") {
    const std::string sha = sha256_hex(kSixRows);
    const Fake f = make_fake("checksum",
                             "files = [ { path = \"data.txt\", sha256 = \"" + sha +
                                 "\" } ]\n"
                                 "table = { file = \"data.txt\", features = [0, 1], target = 2 }\n",
                             {{"data.txt", kSixRows}});
    CHECK(load_dataset(f.spec(), f.data_dir).X.rows() == 6);
    write_file(f.folder / "data.txt", kSixRows + "7 7 7\n");
    CHECK_THROWS_WITH(load_dataset(f.spec(), f.data_dir), Catch::Contains("checksum mismatch"));
    fs::remove(f.folder / "data.txt");
    CHECK_THROWS_WITH(load_dataset(f.spec(), f.data_dir), Catch::Contains("missing data.txt"));
  }
}

TEST_CASE("user tables: target by name, number or last", "[datasets]") {
  const fs::path dir = scratch("user");
  const std::string path = (dir / "mine.csv").string();
  write_file(path, "a,b,y\n1,2,3\n4,5,7\n7,8,8\n");
  const TextFormat csv{Delimiter::comma, Header::automatic, false};
  const Dataset last = load_user_table(path, "last", csv);
  CHECK(last.X.cols() == 2);
  CHECK(last.y == Eigen::Vector3d(3, 7, 8));
  const Dataset by_name = load_user_table(path, "a", csv);
  CHECK(by_name.y == Eigen::Vector3d(1, 4, 7));
  CHECK(by_name.X.col(1) == Eigen::Vector3d(3, 7, 8));
  const Dataset by_number = load_user_table(path, "1", csv);
  CHECK(by_number.y == Eigen::Vector3d(2, 5, 8));
  require_error(data_error([&] { load_user_table(path, "3", csv); }), path, 0, 0, "out of range");
  require_error(data_error([&] { load_user_table(path, "99999999999999999999", csv); }), path, 0, 0,
                "target column 99999999999999999999 (0-based) is out of range");
  CHECK_THROWS_AS(load_user_table(path, "zzz", csv), std::invalid_argument);
  CHECK_THROWS_AS(load_user_table(path, "", csv), std::invalid_argument);
  CHECK(by_name.feature_names == std::vector<std::string>{"b", "y"});
  // A UTF-8 byte-order mark is neither a header nor part of the first name.
  write_file(dir / "bom.csv",
             "\xEF\xBB\xBF"
             "a,b,y\n1,2,3\n4,5,7\n");
  CHECK(load_user_table((dir / "bom.csv").string(), "a", csv).y == Eigen::Vector2d(1, 4));
  write_file(dir / "bom-plain.csv",
             "\xEF\xBB\xBF"
             "1,2,3\n4,5,7\n");
  CHECK(load_user_table((dir / "bom-plain.csv").string(), "last", csv).y == Eigen::Vector2d(3, 7));
  // A name that two header columns share is ambiguous.
  write_file(dir / "twice.csv", "a,a,y\n1,2,3\n4,5,7\n");
  require_error(data_error([&] { load_user_table((dir / "twice.csv").string(), "a", csv); }),
                (dir / "twice.csv").string(), 0, 0, "names more than one column");
  CHECK_THROWS_WITH(load_user_table(dir.string(), "last", csv), Catch::Contains("is a directory"));
}

// ---------------------------------------------------------------------------------------------
// Protocols
// ---------------------------------------------------------------------------------------------

TEST_CASE("protocol: k-fold cross-validation", "[datasets]") {
  Protocol p;
  p.kind = Protocol::Kind::kfold;
  p.folds = 10;
  const Eigen::Index rows = 1993;
  const auto a = make_splits(p, rows, 42, "crime");
  REQUIRE(a.size() == 10);
  std::vector<int> in_test(rows, 0);
  std::size_t smallest = rows, largest = 0;
  for (const auto& s : a) {
    require_partition(s, rows);
    for (Eigen::Index r : s.test) ++in_test[static_cast<std::size_t>(r)];
    smallest = std::min(smallest, s.test.size());
    largest = std::max(largest, s.test.size());
  }
  // Folds are disjoint and cover every row: each row is a test row exactly once.
  CHECK(std::all_of(in_test.begin(), in_test.end(), [](int c) { return c == 1; }));
  CHECK(largest - smallest <= 1);
  CHECK(smallest == 199);
  const auto same = make_splits(p, rows, 42, "crime");
  for (std::size_t k = 0; k < a.size(); ++k) CHECK(same[k].test == a[k].test);
  const auto other = make_splits(p, rows, 43, "crime");
  CHECK(other[0].test != a[0].test);
  // The folds are shuffled, not contiguous blocks.
  CHECK(a[0].test.back() - a[0].test.front() > 1000);

  p.folds = 5;
  require_error(data_error([&] { make_splits(p, 9, 1, "tiny"); }), "tiny", 0, 0, "too small for 5-fold");
  CHECK(make_splits(p, 10, 1, "tiny").size() == 5);
}

TEST_CASE("protocol: random splits", "[datasets]") {
  Protocol p;
  p.kind = Protocol::Kind::random;
  SECTION("n_train and n_test") {
    p.n_train = 128;
    p.n_test = 250;
    p.repeats = 3;
    const auto splits = make_splits(p, 506, 7, "boston");
    REQUIRE(splits.size() == 3);
    for (const auto& s : splits) {
      CHECK(s.train.size() == 128);
      CHECK(s.test.size() == 250);
      CHECK(std::is_sorted(s.train.begin(), s.train.end()));
      std::vector<Eigen::Index> both;
      std::set_intersection(s.train.begin(), s.train.end(), s.test.begin(), s.test.end(), std::back_inserter(both));
      CHECK(both.empty());
      CHECK(s.test.back() < 506);
    }
    CHECK(splits[0].train != splits[1].train);
    CHECK(make_splits(p, 506, 7, "boston")[2].test == splits[2].test);
    CHECK(make_splits(p, 506, 8, "boston")[0].test != splits[0].test);
  }
  SECTION("train_fraction, the rest as test") {
    p.train_fraction = 0.9;
    const auto splits = make_splits(p, 308, 1, "yacht");
    REQUIRE(splits.size() == 1);
    CHECK(splits[0].train.size() == 277);
    CHECK(splits[0].test.size() == 31);
    require_partition(splits[0], 308);
  }
  SECTION("n_train with the rest as test") {
    p.n_train = 5000;
    const auto splits = make_splits(p, 40000, 3, "kin40k");
    CHECK(splits[0].train.size() == 5000);
    CHECK(splits[0].test.size() == 35000);
    require_partition(splits[0], 40000);
  }
  SECTION("too small") {
    p.n_train = 128;
    p.n_test = 250;
    require_error(data_error([&] { make_splits(p, 377, 1, "small"); }), "small", 0, 0, "too small");
    CHECK(make_splits(p, 378, 1, "small").size() == 1);
    Protocol q;
    q.kind = Protocol::Kind::random;
    q.train_fraction = 0.5;
    require_error(data_error([&] { make_splits(q, 2, 1, "two"); }), "two", 0, 0, "too small");
    q.train_fraction = 0.99;
    require_error(data_error([&] { make_splits(q, 50, 1, "fifty"); }), "fifty", 0, 0, "too small");
  }
}

TEST_CASE("protocol: validate rejects bad settings", "[datasets]") {
  const auto bad = [](auto change) {
    Protocol p;
    change(p);
    return p;
  };
  CHECK_THROWS_AS(bad([](Protocol& p) {
                    p.kind = Protocol::Kind::kfold;
                    p.folds = 1;
                  }).validate(),
                  std::invalid_argument);
  CHECK_THROWS_AS(bad([](Protocol& p) {
                    p.kind = Protocol::Kind::random;
                    p.n_train = 10;
                    p.repeats = 0;
                  }).validate(),
                  std::invalid_argument);
  CHECK_THROWS_AS(bad([](Protocol& p) { p.kind = Protocol::Kind::random; }).validate(), std::invalid_argument);
  CHECK_THROWS_AS(bad([](Protocol& p) {
                    p.kind = Protocol::Kind::random;
                    p.train_fraction = 0.5;
                    p.n_train = 10;
                  }).validate(),
                  std::invalid_argument);
  CHECK_THROWS_AS(bad([](Protocol& p) {
                    p.kind = Protocol::Kind::random;
                    p.train_fraction = 1.0;
                  }).validate(),
                  std::invalid_argument);
  CHECK_THROWS_AS(bad([](Protocol& p) {
                    p.kind = Protocol::Kind::random;
                    p.train_fraction = 1.5;
                  }).validate(),
                  std::invalid_argument);
  CHECK_THROWS_AS(bad([](Protocol& p) {
                    p.kind = Protocol::Kind::random;
                    p.n_train = 10;
                    p.n_test = -1;
                  }).validate(),
                  std::invalid_argument);
  CHECK_THROWS_AS(bad([](Protocol& p) {
                    p.kind = Protocol::Kind::random;
                    p.n_train = 10;
                    p.train_fraction = -0.5;
                  }).validate(),
                  std::invalid_argument);
  CHECK_THROWS_AS(bad([](Protocol& p) {
                    p.kind = Protocol::Kind::random;
                    p.n_train = 10;
                    p.train_fraction = std::nan("");
                  }).validate(),
                  std::invalid_argument);
  // make_splits validates too.
  CHECK_THROWS_AS(make_splits(bad([](Protocol& p) {
                                p.kind = Protocol::Kind::kfold;
                                p.folds = 0;
                              }),
                              100, 1, "x"),
                  std::invalid_argument);
  CHECK_THROWS_AS(make_splits(Protocol{}, 100, 1, "x"), std::invalid_argument);  // published, none given
  // Valid settings pass.
  CHECK_NOTHROW(bad([](Protocol& p) {
                  p.kind = Protocol::Kind::kfold;
                  p.folds = 2;
                }).validate());
  CHECK_NOTHROW(bad([](Protocol& p) {
                  p.kind = Protocol::Kind::random;
                  p.train_fraction = 0.9;
                }).validate());
  CHECK_NOTHROW(bad([](Protocol& p) {
                  p.kind = Protocol::Kind::random;
                  p.n_train = 128;
                  p.n_test = 250;
                }).validate());
}

// ---------------------------------------------------------------------------------------------
// Standardization
// ---------------------------------------------------------------------------------------------

TEST_CASE("standardizer: statistics from the training rows only", "[datasets]") {
  Eigen::MatrixXd X(6, 2);
  X << 1, 10,   //
      2, 20,    //
      3, 30,    //
      4, 40,    //
      100, -5,  //
      200, -7;
  Eigen::VectorXd y(6);
  y << 1, 2, 4, 5, 1000, -1000;
  const std::vector<Eigen::Index> train = {0, 1, 2, 3}, test = {4, 5};
  const Standardizer s = Standardizer::fit(select_rows(X, train), select_rows(y, train), "toy");
  CHECK(s.x_mean[0] == Approx(2.5));
  CHECK(s.x_mean[1] == Approx(25.0));
  CHECK(s.x_scale[0] == Approx(std::sqrt(1.25)));  // population sd of 1..4
  CHECK(s.x_scale[1] == Approx(std::sqrt(125.0)));
  CHECK(s.y_mean == Approx(3.0));
  CHECK(s.y_scale == Approx(std::sqrt(2.5)));
  // Changing the test rows changes nothing.
  Eigen::MatrixXd X2 = X;
  Eigen::VectorXd y2 = y;
  X2.row(4).setConstant(-1e6);
  y2[5] = 3e7;
  const Standardizer s2 = Standardizer::fit(select_rows(X2, train), select_rows(y2, train), "toy");
  CHECK(s2.x_mean == s.x_mean);
  CHECK(s2.x_scale == s.x_scale);
  CHECK(s2.y_mean == s.y_mean);
  CHECK(s2.y_scale == s.y_scale);
  // Training rows map to mean 0, population sd 1.
  const Eigen::MatrixXd Z = s.transform_inputs(select_rows(X, train));
  for (Eigen::Index j = 0; j < 2; ++j) {
    CHECK(Z.col(j).mean() == Approx(0.0).margin(1e-12));
    CHECK(std::sqrt(Z.col(j).squaredNorm() / 4.0) == Approx(1.0));
  }
  const Eigen::VectorXd zy = s.transform_targets(select_rows(y, test));
  CHECK(zy[0] == Approx((1000.0 - 3.0) / std::sqrt(2.5)));
  CHECK(select_rows(y, test) == Eigen::Vector2d(1000, -1000));
}

TEST_CASE("standardizer: constant columns and constant targets", "[datasets]") {
  Eigen::MatrixXd X(4, 2);
  X << 5, 1,  //
      5, 2,   //
      5, 3,   //
      5, 4;
  const Eigen::Vector4d y(1, 2, 3, 5);
  const Standardizer s = Standardizer::fit(X, y, "const");
  CHECK(s.x_scale[0] == 1.0);
  CHECK(s.x_mean[0] == 5.0);
  const Eigen::MatrixXd Z = s.transform_inputs(X);
  CHECK(Z.col(0).isZero(0.0));
  CHECK(Z.allFinite());
  Eigen::MatrixXd other(1, 2);
  other << 7, 2.5;
  CHECK(s.transform_inputs(other)(0, 0) == 2.0);  // (7 - 5) / 1
  // numpy's double-precision mean of 5, 5, 5, 5 is exact: the column stays zeros.
  CHECK(Standardizer::fit(X, y, "const", ConstantInputs::numpy).transform_inputs(X).col(0).isZero(0.0));
  // 0.1 + 0.1 + 0.1 = 0.30000000000000004: numpy's mean is 0.1 + 2^-56, its sd 2^-56 (not 0,
  // so unguarded), and the column becomes -1 (np.array([[.1], [.1], [.1]]).std(0) is 1.39e-17).
  Eigen::MatrixXd tenths(3, 2);
  tenths << 0.1, 1,  //
      0.1, 2,        //
      0.1, 4;
  const Eigen::VectorXd targets = Eigen::VectorXd::LinSpaced(3, 1.0, 3.0);  // 1, 2, 3
  const Standardizer np = Standardizer::fit(tenths, targets, "tenths", ConstantInputs::numpy);
  CHECK(np.x_scale[0] == std::ldexp(1.0, -56));
  CHECK(np.transform_inputs(tenths).col(0) == Eigen::Vector3d::Constant(-1.0));
  CHECK(Standardizer::fit(tenths, targets, "tenths").transform_inputs(tenths).col(0).isZero(0.0));
  CHECK(parse_constant_inputs(to_string(ConstantInputs::numpy)) == ConstantInputs::numpy);
  CHECK(parse_constant_inputs(to_string(ConstantInputs::zero)) == ConstantInputs::zero);
  CHECK_THROWS_WITH(parse_constant_inputs("ones"), Catch::Contains("'ones' is not one of: zero, numpy"));
  require_error(data_error([&] { Standardizer::fit(X, Eigen::Vector4d(2, 2, 2, 2), "boston split 3"); }),
                "boston split 3", 0, 0, "constant");
  require_error(data_error([&] { Standardizer::fit(X.topRows(1), Eigen::VectorXd::Ones(1), "one row"); }), "one row", 0,
                0, "constant");
  // Values whose square overflows would give an infinite sd and a column of zeros: named instead.
  Eigen::MatrixXd huge = X;
  huge(2, 1) = 1e200;
  require_error(data_error([&] { Standardizer::fit(huge, Eigen::Vector4d(1, 2, 3, 5), "huge.csv"); }), "huge.csv", 0, 2,
                "too large to standardize");
  require_error(data_error([&] { Standardizer::fit(X, Eigen::Vector4d(1, 2, 1e200, 5), "big target"); }), "big target",
                0, 0, "training target is too large");
}

// ---------------------------------------------------------------------------------------------
// Synthetic generators
// ---------------------------------------------------------------------------------------------

namespace {

struct Generator {
  const char* name;
  Dataset (*make)(long, bnn::Rng&);
  double noise_sd;
  Eigen::Index inputs;
  double lo, hi;
};

double latent(const std::string& name, const Eigen::MatrixXd& X, Eigen::Index i) {
  if (name == "pbp-cubic") return pbp_cubic_latent(X(i, 0));
  if (name == "epnn-case1") return epnn_case1_latent(X(i, 0), X(i, 1));
  if (name == "epnn-case2") {
    double f = 0.0;
    for (int j = 0; j < 10; ++j) f += epnn_case2_effect(j + 1, X(i, j));
    return f;
  }
  if (name == "epnn-case3") return epnn_case3_latent(X(i, 0));
  return bb_toy_latent(X(i, 0));
}

const Generator kGenerators[] = {
    {"pbp-cubic", make_pbp_cubic, 3.0, 1, -4.0, 4.0},
    {"epnn-case1", make_epnn_case1, 0.1, 2, -1.5, 1.5},
    {"epnn-case2", make_epnn_case2, 0.2, 10, -3.14159265358979323846, 3.14159265358979323846},
    {"epnn-case3", make_epnn_case3, 0.1, 1, -3.0, 3.0},
    {"bb-toy", make_bb_toy, 0.1, 1, -2.0, 2.0},
};

}  // namespace

TEST_CASE("synthetic: sizes, ranges, noise level and reproducibility", "[datasets]") {
  const long n = 20000;
  for (const Generator& g : kGenerators) {
    CAPTURE(g.name);
    bnn::Rng rng(11);
    const Dataset d = g.make(n, rng);
    REQUIRE(d.X.rows() == n);
    REQUIRE(d.X.cols() == g.inputs);
    REQUIRE(d.y.size() == n);
    CHECK(d.X.minCoeff() >= g.lo);
    CHECK(d.X.maxCoeff() <= g.hi);
    // Inputs fill their range (not stuck in a corner).
    CHECK(d.X.minCoeff() < g.lo + 0.01 * (g.hi - g.lo));
    CHECK(d.X.maxCoeff() > g.hi - 0.01 * (g.hi - g.lo));
    Eigen::VectorXd r(n);
    for (Eigen::Index i = 0; i < n; ++i) r[i] = d.y[i] - latent(g.name, d.X, i);
    const double mean = r.mean();
    const double sd = std::sqrt((r.array() - mean).square().sum() / static_cast<double>(n - 1));
    CHECK(std::abs(mean) < 4.0 * g.noise_sd / std::sqrt(static_cast<double>(n)));
    CHECK(sd == Approx(g.noise_sd).epsilon(0.03));
    // Same seed, same data; another seed, other data.
    bnn::Rng again(11), other(12);
    const Dataset d2 = g.make(n, again);
    CHECK(d2.X == d.X);
    CHECK(d2.y == d.y);
    const Dataset d3 = g.make(n, other);
    CHECK(d3.y != d.y);
  }
}

TEST_CASE("synthetic: generator details", "[datasets]") {
  SECTION("epnn-case1: three equal clusters in their boxes") {
    bnn::Rng rng(3);
    const Dataset d = make_epnn_case1(60, rng);
    const double lower[3] = {0.5, -0.5, -1.5};
    int in_box[3] = {0, 0, 0};
    for (Eigen::Index i = 0; i < 60; ++i)
      for (int c = 0; c < 3; ++c)
        if (d.X(i, 0) >= lower[c] && d.X(i, 0) < lower[c] + 1 && d.X(i, 1) >= lower[c] && d.X(i, 1) < lower[c] + 1)
          ++in_box[c];
    CHECK(in_box[0] == 20);
    CHECK(in_box[1] == 20);
    CHECK(in_box[2] == 20);
  }
  SECTION("latent functions") {
    CHECK(pbp_cubic_latent(-2.0) == -8.0);
    CHECK(epnn_case1_latent(1.0, 1.0) == 1.0);
    CHECK(epnn_case1_latent(0.0, 0.0) == 0.0);
    CHECK(epnn_case1_latent(-1.0, -1.0) == 0.8);
    CHECK(epnn_case2_effect(1, 2.0) == 0.0);
    CHECK(epnn_case2_effect(3, 2.0) == Approx(0.4));
    CHECK(epnn_case2_effect(8, 3.14159265358979323846 / 2) == Approx(0.8));
    CHECK_THROWS_AS(epnn_case2_effect(11, 0.0), std::invalid_argument);
    CHECK(epnn_case3_latent(-1e-9) == Approx(-0.6).margin(1e-6));
    CHECK(epnn_case3_latent(0.0) == 0.6);
    CHECK(erf_sigmoid(0.0) == 0.0);
    CHECK(erf_sigmoid(10.0) == Approx(1.0));
    CHECK(bb_toy_latent(0.0) == 0.0);
    CHECK(bb_toy_latent(2.0) == Approx(2.5 * std::erf(0.26 / std::sqrt(2.0))));
  }
  SECTION("bad n and unknown generators") {
    bnn::Rng rng(1);
    CHECK_THROWS_AS(make_pbp_cubic(1, rng), std::invalid_argument);
    CHECK_THROWS_AS(make_epnn_case1(2, rng), std::invalid_argument);
    CHECK_THROWS_AS(generate_synthetic("x", SyntheticSpec{"no-such-generator", 10, 1}), std::invalid_argument);
  }
}

TEST_CASE("synthetic: the registry's synthetic sets", "[datasets]") {
  for (const char* name : {"pbp-cubic", "epnn-case1", "epnn-case2", "epnn-case3", "bb-toy"}) {
    CAPTURE(name);
    const DatasetSpec& spec = shipped_registry().find(name);
    const Dataset a = load_dataset(spec, "/nonexistent-data-dir");  // built in: no files needed
    const Dataset b = generate_synthetic(spec.name, *spec.synthetic);
    CHECK(a.name == name);
    CHECK(a.X.rows() == spec.paper_n);
    CHECK(a.X.cols() == spec.paper_d);
    CHECK(a.X == b.X);
    CHECK(a.y == b.y);
    SyntheticSpec reseeded = *spec.synthetic;
    reseeded.seed += 1;
    CHECK(generate_synthetic(name, reseeded).y != a.y);
  }
}

TEST_CASE("synthetic: irrelevant uniform inputs", "[datasets]") {
  bnn::Rng rng(5);
  Dataset d = make_epnn_case2(2000, rng);
  const Eigen::MatrixXd before = d.X;
  Dataset copy = d;
  bnn::Rng r1(99), r2(99);
  append_irrelevant_uniform_inputs(d, 92, r1);
  append_irrelevant_uniform_inputs(copy, 92, r2);
  REQUIRE(d.X.rows() == 2000);
  REQUIRE(d.X.cols() == 102);
  CHECK(d.X.leftCols(10) == before);
  const auto added = d.X.rightCols(92);
  CHECK(added.minCoeff() >= 0.0);
  CHECK(added.maxCoeff() < 1.0);
  CHECK(added.mean() == Approx(0.5).margin(0.01));
  CHECK(added.col(0) != added.col(1));
  CHECK(copy.X == d.X);
  append_irrelevant_uniform_inputs(d, 0, r1);
  CHECK(d.X.cols() == 102);
}

TEST_CASE("target transforms: values, domain errors, names", "[datasets]") {
  Dataset d;
  d.name = "counts";
  d.origin = "counts/data.txt";
  d.X = Eigen::MatrixXd::Zero(4, 1);
  d.y = Eigen::Vector4d(0.0, 1.0, 4.0, 2.25);
  Dataset logged = d;
  apply_target_transform(d, TargetTransform::sqrt);
  CHECK(d.y == Eigen::Vector4d(0.0, 1.0, 2.0, 1.5));
  apply_target_transform(logged, TargetTransform::log1p);
  CHECK(logged.y(2) == Approx(std::log(5.0)).epsilon(1e-15));
  Dataset untouched = d;
  apply_target_transform(untouched, TargetTransform::none);
  CHECK(untouched.y == d.y);

  Dataset negative = d;
  negative.y(2) = -0.5;
  const auto e = data_error([&] { apply_target_transform(negative, TargetTransform::sqrt); });
  REQUIRE(e);
  CHECK(e->file() == "counts/data.txt");
  CHECK_THAT(std::string(e->what()),
             Catch::Contains("counts") && Catch::Contains("data row 3") && Catch::Contains("sqrt(y)"));
  CHECK(negative.y(0) == 0.0);
  negative.y(2) = -1.0;
  CHECK(data_error([&] { apply_target_transform(negative, TargetTransform::log1p); }));

  for (const auto t : {TargetTransform::none, TargetTransform::sqrt, TargetTransform::log1p})
    CHECK(parse_target_transform(to_string(t)) == t);
  CHECK_THROWS_WITH(parse_target_transform("log"), Catch::Contains("'log' is not one of none, sqrt, log1p"));
}

TEST_CASE("synthetic_latent: the generators' noise-free functions by name", "[datasets]") {
  using bnn::data::synthetic_latent;
  Eigen::VectorXd x(10);
  for (int j = 0; j < 10; ++j) x[j] = 0.3 * (j + 1) - 1.0;
  double sum = 0.0;
  for (int j = 1; j <= 10; ++j) sum += bnn::data::epnn_case2_effect(j, x[j - 1]);
  CHECK(synthetic_latent("epnn-case2")(x) == Approx(sum));
  CHECK(synthetic_latent("pbp-cubic")(Eigen::VectorXd::Constant(1, 2.0)) == Approx(8.0));
  CHECK(synthetic_latent("epnn-case1")(Eigen::Vector2d(1.0, 1.0)) == Approx(1.0));
  CHECK(synthetic_latent("epnn-case3")(Eigen::VectorXd::Constant(1, -0.1)) ==
        Approx(bnn::data::epnn_case3_latent(-0.1)));
  CHECK(synthetic_latent("bb-toy")(Eigen::VectorXd::Constant(1, 1.5)) == Approx(bnn::data::bb_toy_latent(1.5)));
  CHECK(std::isnan(synthetic_latent("pbp-cubic")(Eigen::Vector2d(1.0, 2.0))));  // a row of the wrong length
  CHECK_FALSE(synthetic_latent("boston"));
}
