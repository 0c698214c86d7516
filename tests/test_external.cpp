// The external method (methods/external): programs run through the protocol of PROTOCOL.md.
// Each failure path gives its one line; the forms come back exactly; a run's folder is private
// and removed; a timeout kills the program's whole process group.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "methods/external/external.hpp"
#include "methods/external/npy.hpp"
#include "methods/external/scratch_folder.hpp"
#include "methods/registry.hpp"

using namespace bnn;
namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  const fs::path folder = fs::path(BNNBENCH_TEST_SCRATCH) / "external";
  fs::create_directories(folder);
  return folder;
}

RegressionData small_data() {
  RegressionData d{Eigen::MatrixXd(6, 2), Eigen::VectorXd(6)};
  for (int i = 0; i < 6; ++i) {
    d.X(i, 0) = 0.1 * i;
    d.X(i, 1) = 1.0 - 0.2 * i;
    d.y[i] = 0.5 * i - 1.0;
  }
  return d;
}

// A Python program: the preamble reads the request; `body` answers it (m is the number of points
// of the first set; arr(name, values) writes a .npy; answer(prediction, **fields) the response).
std::string program(const std::string& name, const std::string& body) {
  const fs::path path = scratch() / (name + ".py");
  std::ofstream out(path);
  out << "import json, os, sys, time\nimport numpy as np\n"
         "req = json.load(open(sys.argv[-1])); d = os.path.dirname(sys.argv[-1])\n"
         "m = np.load(os.path.join(d, req['predict'][0]['X'])).shape[0] if req['predict'] else 0\n"
         "def arr(name, a):\n    np.save(os.path.join(d, name), np.asarray(a, dtype=np.float64)); return name\n"
         "def answer(p, **fields):\n"
         "    r = {'protocol': 1, 'status': 'ok', 'predictions': [p]}; r.update(fields)\n"
         "    json.dump(r, open(os.path.join(d, 'response.json'), 'w'))\n"
      << body << "\n";
  return path.string();
}

ParamMap options_for(const std::string& script, const std::string& extra = "") {
  ParamMap options{{"command", "[\"python3\", \"" + script + "\"]"}};
  if (!extra.empty()) options["timeout_seconds"] = extra;
  return options;
}

std::unique_ptr<Model> run(const std::string& script, const Eigen::MatrixXd& X, const std::string& timeout = "") {
  const RegressionData train = small_data();
  Rng rng(3);
  return find_method("external").fit_for_points(train, options_for(script, timeout), rng, {&X});
}

// The one-line message a run fails with.
std::string failure(const std::string& name, const std::string& body, const std::string& timeout = "") {
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(5, 2);
  try {
    run(program(name, body), X, timeout);
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    CHECK(message.find('\n') == std::string::npos);
    return message;
  }
  FAIL("the run of " << name << " did not fail");
  return "";
}

const std::string kGaussianOk =
    "answer({'form': 'gaussian', 'mean': arr('m.npy', np.zeros(m)), "
    "'variance': arr('v.npy', np.ones(m))})";

}  // namespace

TEST_CASE("external: a Gaussian answer comes back exactly, with the fit's report", "[external]") {
  const std::string script = program("gaussian_ok",
                                     "X = np.load(os.path.join(d, req['predict'][0]['X']))\n"
                                     "answer({'form': 'gaussian', 'mean': arr('m.npy', X[:, 0] * 2), "
                                     "'variance': arr('v.npy', 1 + X[:, 1] ** 2)}, iterations=7, "
                                     "diagnostics={'loss': 0.25}, warnings=['slow'], status='not_converged')");
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(4, 2);
  const auto model = run(script, X);
  const auto predictive = model->predict(X);
  REQUIRE(predictive->size() == 4);
  for (Eigen::Index i = 0; i < 4; ++i) {
    CHECK(predictive->mean(i) == 2 * X(i, 0));
    CHECK(predictive->variance(i) == 1 + X(i, 1) * X(i, 1));
  }
  CHECK(model->report().status == FitStatus::not_converged);
  CHECK(model->report().iterations == 7);
  REQUIRE(model->report().diagnostics.size() == 1);
  CHECK(model->report().diagnostics[0].second == 0.25);
  CHECK(model->report().warnings == std::vector<std::string>{"slow"});
  CHECK(model->report().cpu_seconds_in_children > 0.0);
}

TEST_CASE("external: student-t, mixture and draws answers are the predictives they describe", "[external]") {
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(3, 2);
  SECTION("student_t") {
    const auto model = run(program("student_ok",
                                   "answer({'form': 'student_t', 'location': arr('l.npy', [1, 2, 3]), "
                                   "'scale': arr('s.npy', [1, 1, 2]), 'dof': 5})"),
                           X);
    const auto p = model->predict(X);
    CHECK(p->kind() == "student-t");
    CHECK(p->mean(2) == 3.0);
    CHECK(p->variance(2) == Approx(4.0 * 5.0 / 3.0).epsilon(1e-14));
  }
  SECTION("mixture") {
    const auto model = run(program("mixture_ok",
                                   "answer({'form': 'mixture', 'weights': arr('w.npy', [0.25, 0.75]), "
                                   "'means': arr('mu.npy', [[0, 4], [1, 1], [2, 2]]), "
                                   "'variances': arr('v.npy', np.ones((3, 2)))})"),
                           X);
    const auto p = model->predict(X);
    CHECK(p->kind() == "gaussian-mixture");
    CHECK(p->mean(0) == 3.0);
    CHECK(p->variance(0) == Approx(1.0 + 0.25 * 9.0 + 0.75 * 1.0).epsilon(1e-14));
  }
  SECTION("draws") {
    const auto model = run(program("draws_ok",
                                   "answer({'form': 'draws', 'draws': arr('dr.npy', [[0, 2], [1, 1], "
                                   "[5, 7]]), 'noise_variance': 0.5})"),
                           X);
    const auto p = model->predict(X);
    CHECK(p->mean(2) == 6.0);
    CHECK(p->variance(2) == Approx(0.5 + 1.0).epsilon(1e-12));
  }
}

TEST_CASE("external: each way a run can fail is one line naming the file and the field", "[external]") {
  CHECK_THAT(failure("exit3", "sys.stderr.write('first\\nsecond problem\\n'); sys.exit(3)"),
             Catch::Contains("exit3.py exited with status 3") && Catch::Contains("stderr: first | second problem"));
  CHECK_THAT(failure("no_response", "pass"), Catch::Contains("response.json: missing"));
  CHECK_THAT(failure("bad_json", "open(os.path.join(d, 'response.json'), 'w').write('{\"protocol\": 1,')"),
             Catch::Contains("response.json: not valid JSON"));
  CHECK_THAT(failure("wrong_shape",
                     "answer({'form': 'gaussian', 'mean': arr('m.npy', np.zeros(3)), "
                     "'variance': arr('v.npy', np.ones(m))})"),
             Catch::Contains("response.json: predictions[0].mean (m.npy) has shape (3,), but must be (5,)"));
  CHECK_THAT(failure("nan_mean",
                     "answer({'form': 'gaussian', 'mean': arr('m.npy', [0, 0, np.nan, 0, 0]), "
                     "'variance': arr('v.npy', np.ones(m))})"),
             Catch::Contains("response.json: predictions[0].mean has a non-finite value at index 2"));
  CHECK_THAT(failure("negative_variance",
                     "answer({'form': 'gaussian', 'mean': arr('m.npy', np.zeros(m)), "
                     "'variance': arr('v.npy', [1, 1, 1, -0.5, 1])})"),
             Catch::Contains("response.json: predictions[0].variance must be > 0, but is -0.5") &&
                 Catch::Contains("at index 3"));
  CHECK_THAT(failure("weights",
                     "answer({'form': 'mixture', 'weights': arr('w.npy', [0.5, 0.4]), "
                     "'means': arr('mu.npy', np.zeros((m, 2))), 'variances': arr('v.npy', np.ones((m, 2)))})"),
             Catch::Contains("response.json: predictions[0].weights sum to 0.9") && Catch::Contains("must sum to 1"));
  CHECK_THAT(failure("missing_array",
                     "answer({'form': 'gaussian', 'mean': 'nothing.npy', 'variance': "
                     "arr('v.npy', np.ones(m))})"),
             Catch::Contains("response.json: predictions[0].mean (nothing.npy): missing"));
  CHECK_THAT(failure("int_array",
                     "np.save(os.path.join(d, 'i.npy'), np.zeros(m, dtype=np.int64))\n"
                     "answer({'form': 'gaussian', 'mean': 'i.npy', 'variance': arr('v.npy', np.ones(m))})"),
             Catch::Contains("predictions[0].mean (i.npy): the array's dtype is '<i8'"));
  CHECK_THAT(failure("protocol2", kGaussianOk + ".replace('', '') if False else None\n"
                                                "r = json.load(open(os.path.join(d, 'response.json'))) if False else "
                                                "{'protocol': 2, 'status': 'ok', 'predictions': []}\n"
                                                "json.dump(r, open(os.path.join(d, 'response.json'), 'w'))"),
             Catch::Contains("response.json: protocol is 2, but this bnnbench speaks protocol 1"));
  CHECK_THAT(
      failure("bad_status", kGaussianOk + "\nanswer({'form': 'gaussian'}, status='fine')"),
      Catch::Contains("response.json: status is 'fine', but must be ok, not_converged, numerical_error or failed"));
  CHECK_THAT(failure("bad_form", "answer({'form': 'laplace'})"),
             Catch::Contains("response.json: predictions[0].form is 'laplace', but must be gaussian, student_t"));
  CHECK_THAT(failure("too_few",
                     "json.dump({'protocol': 1, 'status': 'ok', 'predictions': []}, "
                     "open(os.path.join(d, 'response.json'), 'w'))"),
             Catch::Contains("response.json: predictions must be an array of 1 (one per point set asked for)"));
  CHECK_THAT(failure("gave_up", "answer({}, status='failed', message='the chain diverged')"),
             Catch::Contains("gave_up.py reported failure: the chain diverged"));
}

TEST_CASE("external: past its timeout the program's whole process group is killed", "[external]") {
  const fs::path pid_file = scratch() / "grandchild.pid";
  fs::remove(pid_file);
  const auto start = std::chrono::steady_clock::now();
  const std::string message = failure("sleeper",
                                      "import subprocess\nc = subprocess.Popen(['sleep', '60'])\n"
                                      "open('" +
                                          pid_file.string() + "', 'w').write(str(c.pid))\ntime.sleep(60)",
                                      "1.5");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK_THAT(message, Catch::Contains("sleeper.py timed out after 1.5 s"));
  CHECK(seconds < 20.0);
  std::ifstream in(pid_file);
  long grandchild = 0;
  REQUIRE(in >> grandchild);
  // The program's own child (sleep 60) went with the group.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = ::kill(static_cast<pid_t>(grandchild), 0) != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(gone);
}

TEST_CASE("external: the program works in a private folder that is removed afterwards", "[external]") {
  const fs::path seen = scratch() / "seen.txt";
  const std::string script = program("folder_probe", "open('" + seen.string() +
                                                         "', 'w').write(oct(os.stat(d).st_mode & 0o777) + ' ' + d + "
                                                         "' ' + os.getcwd())\n" +
                                                         kGaussianOk);
  run(script, Eigen::MatrixXd::Random(2, 2));
  std::ifstream in(seen);
  std::string mode, folder, cwd;
  REQUIRE(in >> mode >> folder >> cwd);
  CHECK(mode == "0o700");
  CHECK(folder == cwd);
  CHECK(fs::path(folder).filename().string().rfind("bnnbench-external-", 0) == 0);
  CHECK_FALSE(fs::exists(folder));
}

TEST_CASE("external: the sets told to the fit are answered by its one run", "[external]") {
  const fs::path count = scratch() / "runs.txt";
  fs::remove(count);
  const std::string script = program("counted", "open('" + count.string() + "', 'a').write('run\\n')\n" + kGaussianOk);
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(5, 2), other = Eigen::MatrixXd::Random(5, 2);
  const auto model = run(script, X);
  model->predict(X);
  model->predictive_variance(X);
  model->predictive_variance(X.middleRows(3, 1));  // one row of a set it answered
  const auto lines = [&] {
    std::ifstream in(count);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) ++n;
    return n;
  };
  CHECK(lines() == 1);
  model->predict(other);  // points it was not told of: a second run
  CHECK(lines() == 2);
}

TEST_CASE("external: the job's identity is the command, the settings and the files' contents", "[external]") {
  const MethodEntry& entry = find_method("external");
  const std::string script = program("identity", kGaussianOk);
  const ParamMap base = options_for(script);
  const std::string config = entry.canonical_config(base);
  CHECK_THAT(config, Catch::Contains("identity.py:"));
  ParamMap longer = base;
  longer["timeout_seconds"] = "5";
  CHECK(entry.canonical_config(longer) == config);  // the timeout is not part of it
  ParamMap settings = base;
  settings["settings"] = R"({"b": 1, "a": [1, 2]})";
  ParamMap reordered = base;
  reordered["settings"] = R"({"a": [1, 2], "b": 1})";
  CHECK(entry.canonical_config(settings) != config);
  CHECK(entry.canonical_config(settings) == entry.canonical_config(reordered));
  std::ofstream(script, std::ios::app) << "# edited\n";
  CHECK(entry.canonical_config(base) != config);  // an edited script gives new jobs
}

TEST_CASE("external: a bad option is one line naming it, found before any run", "[external]") {
  const MethodEntry& entry = find_method("external");
  const auto message = [&](const ParamMap& options) {
    try {
      entry.canonical_config(options);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK(message({{"command", R"(["no-such-program-bnnbench"])"}}) ==
        "external: command 'no-such-program-bnnbench' is not found: no such file beside the spec and no such "
        "program on PATH");
  CHECK(message({}) == "external: command is missing: give e.g. command = [\"python3\", \"my_bnn.py\"]");
  CHECK_THAT(message({{"command", "python3 x.py"}}),
             Catch::StartsWith("external: command is 'python3 x.py', but must"));
  CHECK_THAT(message({{"command", R"(["python3"])"}, {"settings", "[1]"}}),
             Catch::StartsWith("external: settings is '[1]', but must be a table"));
  CHECK_THAT(message({{"command", R"(["python3"])"}, {"timeout_seconds", "0"}}),
             Catch::StartsWith("external: timeout_seconds is '0', but must be > 0"));
  CHECK_THAT(message({{"command", R"(["python3"])"}, {"hidden", "3"}}),
             Catch::StartsWith("external: unknown option 'hidden'"));
}

TEST_CASE("npy: what the harness writes numpy reads, and bad files are one line", "[external]") {
  const fs::path file = scratch() / "round.npy";
  external::NpyMatrix values(2, 3);
  values << 1, 2, 3, 4, 5, 6.5;
  external::write_npy(file.string(), values);
  const external::NpyArray back = external::read_npy(file.string(), "round.npy");
  CHECK(back.shape == std::vector<long>{2, 3});
  CHECK(back.values == values);
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string good = bytes.str();
  CHECK(good.size() % 16 == 0);  // header padded so the data is aligned
  const auto problem = [](const std::string& text) {
    try {
      external::parse_npy(text, "f.npy");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK(problem("hello") == "f.npy: not a .npy file");
  CHECK_THAT(problem(good.substr(0, good.size() - 8)),
             Catch::Contains("the array's data is 40 bytes, but its shape needs 48"));
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  CHECK(problem(fortran) == "f.npy: the array is in Fortran order, not C order");
  std::string big_endian = good;
  big_endian.replace(big_endian.find("<f8"), 3, ">f8");
  CHECK_THAT(problem(big_endian), Catch::Contains("dtype is '>f8'"));
}
