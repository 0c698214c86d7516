// The spec reader on malformed specs found or checked by the fuzz target fuzz/fuzz_spec.cpp:
// each is refused with a one-line DataError naming the file and the line of the offending value.
#include <catch2/catch.hpp>
#include <fstream>
#include <stdexcept>
#include <string>

#include "datasets/src/data_error.hpp"
#include "experiments/src/spec/spec.hpp"
#include "tests/support/data_mirror.hpp"

using namespace bnn;

namespace {

// load_experiment on a spec file holding `text`.
exp::ExperimentSpec load_text(const std::string& text) {
  const std::string path = (test::scratch_dir("spec-parse", "spec") / "s.toml").string();
  std::ofstream(path, std::ios::binary) << text;
  return exp::load_experiment(path);
}

// The DataError that load_experiment throws for a spec file holding `text`.
data::DataError spec_error(const std::string& text) {
  try {
    load_text(text);
  } catch (const data::DataError& e) {
    return e;
  }
  FAIL("no DataError for: " << text);
  throw std::logic_error("unreachable");
}

void check_error(const std::string& text, long line, const std::string& fragment) {
  INFO(text);
  const data::DataError e = spec_error(text);
  const std::string what = e.what();
  CHECK(e.line() == line);
  CHECK_THAT(what, Catch::Contains(fragment) && Catch::Contains("s.toml"));
  CHECK(what.find_first_of("\r\n") == std::string::npos);
}

const std::string head = "name = \"x\"\ndatasets = [\"boston\"]\n";
const std::string linear_method = "[[method]]\nmethod = \"linear\"\n";

}  // namespace

TEST_CASE("spec errors are one line: control characters in a message are shown escaped", "[spec]") {
  check_error("name = \"a\\nb\"\n", 1, "'name' = 'a\\nb' must be letters");
  check_error(head + "protocol = { kind = \"kfold\" }\n\"se\\r\\ned\" = 2\n" + linear_method, 4,
              "unknown key 'se\\r\\ned' in the experiment");
  check_error(head + "protocol = { kind = \"random\\t\" }\n" + linear_method, 3,
              "protocol kind 'random\\t' is not one of");
  // toml++ quotes the characters it stopped at, a carriage return among them.
  check_error("name = \"x\"\nseed = na\r\n", 2, "Error while parsing");
}

TEST_CASE("spec integers too large for their field are errors, not wrapped", "[spec]") {
  // 4294967298 used to be read as 2 folds, -4294967294 too, 4294967296 as 0 repeats.
  check_error(head + "protocol = { kind = \"kfold\", folds = 4294967298 }\n" + linear_method, 3,
              "'folds' = 4294967298 is out of range");
  check_error(head + "protocol = { kind = \"kfold\", folds = -4294967294 }\n" + linear_method, 3,
              "'folds' = -4294967294 is out of range");
  check_error(head + "protocol = { kind = \"random\", n_train = 5, repeats = 4294967296 }\n" + linear_method, 3,
              "'repeats' = 4294967296 is out of range");
  // Split 4294967296 used to be split 0, and 2147483648 a negative split.
  const std::string body =
      head + "protocol = { kind = \"kfold\" }\n" + linear_method + "[[artifacts]]\nkind = \"chain-traces\"\n";
  check_error(body + "splits = [4294967296]\n", 8, "'splits' holds split numbers >= 0");
  check_error(body + "splits = [1, 2147483648]\n", 8, "'splits' holds split numbers >= 0");
  CHECK(load_text(body + "splits = [0, 2147483647]\n").artifacts.at(0).splits.back() == 2147483647);
}

TEST_CASE("a spec needs a data set, finite grid and posterior axes, and a known relative_time_to", "[spec]") {
  check_error("name = \"x\"\ndatasets = []\nprotocol = { kind = \"kfold\" }\n" + linear_method, 2,
              "'datasets' is empty: name at least one data set");
  // A grid or a quadrature box reaching infinity used to be accepted (from < to holds).
  const std::string figure = head + "protocol = { kind = \"all\" }\n" + linear_method;
  check_error(figure + "[grid]\naxes = [[-inf, inf, 11]]\n", 7, "a grid axis needs finite from < to");
  check_error(figure + "[grid]\naxes = [[0, 1, 3], [0, inf, 3]]\n", 7, "a grid axis needs finite from < to");
  check_error(figure + "[grid]\naxes = [[0, 1, 3]]\nfixed = nan\n", 8, "grid.fixed must be a finite number");
  CHECK(load_text(figure + "[grid]\naxes = [[0, 1, 3]]\nfixed = -2\n").grid->fixed == -2.0);
  const std::string posterior = head + "protocol = { kind = \"all\" }\n[[method]]\nmethod = \"vi-full\"\n" +
                                "[[artifacts]]\nkind = \"gaussian-posterior\"\nposterior_cells = 60\n";
  check_error(posterior + "posterior_box = [[-inf, 8.0], [-8.0, 8.0]]\n", 9, "an axis needs finite from < to");
  check_error(posterior + "posterior_box = [[-8.0, 8.0], [-8.0, 8.0]]\nposterior_plot = [[-1, 1, 9], [-1, inf, 9]]\n",
              10, "an axis needs finite from < to");
  // report.relative_time_to names a method label, as artifacts.methods does (a typo used to
  // leave the rel_time column empty without a word).
  const std::string body = head + "protocol = { kind = \"kfold\" }\n" + linear_method;
  check_error(body + "[report]\nmetrics = [\"rel_time\"]\nrelative_time_to = \"linaer\"\n", 8,
              "report.relative_time_to: no [[method]] is labelled 'linaer'");
  CHECK(load_text(body + "[report]\nrelative_time_to = \"linear\"\n").report.relative_time_to == "linear");
}

TEST_CASE("[cluster] threads: the threads of each process that slurm --cores lays out", "[spec]") {
  const std::string body = head + "protocol = { kind = \"kfold\" }\n" + linear_method;
  CHECK(load_text(body).cluster_threads == 1);
  CHECK(load_text(body + "[cluster]\nthreads = 16\n").cluster_threads == 16);
  check_error(body + "[cluster]\nthreads = 0\n", 7, "cluster.threads must be an integer from 1 to 4096");
  check_error(body + "[cluster]\nthreads = \"16\"\n", 7, "cluster.threads must be an integer from 1 to 4096");
  check_error(body + "[cluster]\nthread = 16\n", 7, "unknown key 'thread' in [cluster] (known: threads)");
  check_error(head + "cluster = 16\nprotocol = { kind = \"kfold\" }\n" + linear_method, 3,
              "expected a [cluster] table");
}
