// The data download path (datasets/src/fetch.cpp), exercised for real: a python3 http.server
// on 127.0.0.1 serves small synthetic files written by the tests into a scratch mirror, a
// registry TOML written here points at it, and fetch_dataset downloads, extracts, derives and
// verifies into a scratch data directory.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "datasets/src/fetch.hpp"
#include "datasets/src/registry.hpp"
#include "tests/support/data_mirror.hpp"

namespace fs = std::filesystem;
using bnn::data::DatasetRegistry;
using bnn::data::DatasetSpec;
using bnn::data::DatasetStatus;
using bnn::data::fetch_dataset;
using bnn::data::FetchError;
using bnn::data::FetchOptions;
using bnn::data::sha256_hex;
using Catch::Matchers::Contains;

namespace {

// ---------------------------------------------------------------------------------------------
// Files and folders

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("test: cannot read " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_bytes(const fs::path& path, std::string_view bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("test: cannot write " + path.string());
}

// Every regular file under `dir`, as paths relative to it ("" set if `dir` does not exist).
std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (!entry.is_directory()) out.insert(fs::relative(entry.path(), dir).generic_string());
  return out;
}

bool has_temporary_files(const fs::path& dir) {
  for (const auto& name : listing(dir))
    if (name.find(".part") != std::string::npos || name.find(".archive") != std::string::npos) return true;
  return false;
}

// The per-process root of all scratch folders of these tests (ctest may run test cases in
// parallel, each in its own process).
fs::path process_scratch() { return bnn::test::scratch_root() / ("fetch-" + std::to_string(::getpid())); }

// A per-test folder under the process scratch root, removed at the end.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) : path_(process_scratch() / name) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
    fs::remove(path_.parent_path(), ec);  // only if empty
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Saves environment variables and restores them (set or unset) on destruction.
class EnvGuard {
 public:
  explicit EnvGuard(std::vector<std::string> names) {
    for (auto& name : names) {
      const char* value = std::getenv(name.c_str());
      saved_.emplace_back(std::move(name), value ? std::optional<std::string>(value) : std::nullopt);
    }
  }
  ~EnvGuard() {
    for (const auto& [name, value] : saved_) {
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out.push_back(c);
  }
  return out + "'";
}

// Writes zip archives with python3's zipfile module, all with one python3 run; each archive
// is (path, members) and each member (name in the archive, bytes).
using ZipSpec = std::pair<fs::path, std::vector<std::pair<std::string, std::string>>>;
void make_zips(const std::vector<ZipSpec>& archives) {
  const fs::path work = archives.front().first.parent_path() / "zip-sources";
  fs::create_directories(work);
  const fs::path script = work / "make_zips.py";
  // Arguments: ZIP COUNT (SOURCE NAME){COUNT} ZIP COUNT ...
  write_bytes(script,
              "import sys, zipfile\n"
              "args = sys.argv[1:]\n"
              "while args:\n"
              "    zip_path, count, args = args[0], int(args[1]), args[2:]\n"
              "    with zipfile.ZipFile(zip_path, 'w', zipfile.ZIP_DEFLATED) as z:\n"
              "        for i in range(count):\n"
              "            z.write(args[2 * i], args[2 * i + 1])\n"
              "    args = args[2 * count:]\n");
  std::string command = "python3 " + shell_quote(script.string());
  int i = 0;
  for (const auto& [zip, members] : archives) {
    fs::create_directories(zip.parent_path());
    command += " " + shell_quote(zip.string()) + " " + std::to_string(members.size());
    for (const auto& [name, bytes] : members) {
      const fs::path source = work / ("member" + std::to_string(i++));
      write_bytes(source, bytes);
      command += " " + shell_quote(source.string()) + " " + shell_quote(name);
    }
  }
  if (std::system(command.c_str()) != 0) throw std::runtime_error("test: could not run " + command);
  fs::remove_all(work);
  for (const auto& archive : archives)
    if (!fs::exists(archive.first)) throw std::runtime_error("test: python3 wrote no " + archive.first.string());
}

// ---------------------------------------------------------------------------------------------
// A python3 http.server on 127.0.0.1, killed on destruction (and, via PR_SET_PDEATHSIG, if the
// test process dies first).

int unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("test: socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    throw std::runtime_error("test: cannot bind a loopback socket");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

bool accepts_connections(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

std::string find_python() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/python3";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

class HttpServer {
 public:
  explicit HttpServer(const fs::path& root) : proxy_env_({"no_proxy", "NO_PROXY"}) {
    fs::create_directories(root);
    // A proxy configured in the environment must not intercept loopback requests.
    ::setenv("no_proxy", "127.0.0.1,localhost", 1);
    ::setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    const std::string python = find_python();
    if (python.empty()) throw std::runtime_error("test: python3 not found on PATH");
    for (int attempt = 0; attempt < 5 && pid_ <= 0; ++attempt) start(python, root.string());
    if (pid_ <= 0) throw std::runtime_error("test: could not start python3 -m http.server");
  }
  ~HttpServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  // http://127.0.0.1:PORT/<tail>
  std::string url(const std::string& tail = "") const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + tail;
  }

 private:
  void start(const std::string& python, const std::string& root) {
    port_ = unused_port();
    std::string a0 = python, a1 = "-m", a2 = "http.server", a3 = "--bind", a4 = "127.0.0.1", a5 = std::to_string(port_),
                a6 = "--directory", a7 = root;
    char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), a4.data(), a5.data(), a6.data(), a7.data(), nullptr};
    const pid_t parent = ::getpid();
    const pid_t child = ::fork();
    if (child < 0) throw std::runtime_error("test: fork() failed");
    if (child == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(126);
      const int devnull = ::open("/dev/null", O_RDWR);
      if (devnull >= 0) {
        ::dup2(devnull, 0);
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
      }
      ::execv(argv[0], argv);
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(child, &status, WNOHANG) == child) return;  // died (port taken?): retry
      if (accepts_connections(port_)) {
        pid_ = child;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  }

  EnvGuard proxy_env_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// One server per test process (starting python3 costs a few tenths of a second), serving the
// process scratch root; destroyed at exit, and killed by the kernel if the process dies.
HttpServer& shared_server() {
  static HttpServer server(process_scratch());
  return server;
}

// A folder under the process scratch root as the server sees it.
struct Served {
  std::string base;  // http://127.0.0.1:PORT/<folder relative to the root>/
  std::string url(const std::string& tail = "") const { return base + tail; }
};

Served serve(const fs::path& folder) {
  fs::create_directories(folder);
  HttpServer& server = shared_server();
  return {server.url(fs::relative(folder, process_scratch()).generic_string() + "/")};
}

// ---------------------------------------------------------------------------------------------
// Registries and fetch helpers

struct Entry {
  std::string path;
  std::string sha256;
  std::string extra;  // further inline keys, e.g. archive = "x.zip"
};

std::string dataset_toml(const std::string& name, const std::string& folder, const std::string& url_base,
                         const std::vector<Entry>& files, const std::string& more = "",
                         const std::string& table_file = "", const std::string& availability = "public") {
  std::ostringstream t;
  t << "[[dataset]]\n"
    << "name = \"" << name << "\"\n"
    << "availability = \"" << availability << "\"\n"
    << "folder = \"" << folder << "\"\n"
    << "url_base = \"" << url_base << "\"\n"
    << "files = [\n";
  for (const auto& f : files) {
    t << "  { path = \"" << f.path << "\", sha256 = \"" << f.sha256 << "\"";
    if (!f.extra.empty()) t << ", " << f.extra;
    t << " },\n";
  }
  t << "]\n";
  t << more;
  t << "table = { file = \"" << (table_file.empty() ? files.front().path : table_file)
    << "\", delimiter = \"whitespace\", features = \"0..1\", target = 2 }\n\n";
  return t.str();
}

DatasetRegistry load_registry(const fs::path& dir, const std::string& toml) {
  const fs::path file = dir / "registry.toml";
  write_bytes(file, toml);
  return DatasetRegistry::load({file.string()});
}

struct Log {
  std::vector<std::string> lines;
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& line) { lines.push_back(line); };
  }
  std::size_t count(std::string_view needle) const {
    std::size_t n = 0;
    for (const auto& line : lines) n += line.find(needle) != std::string::npos ? 1 : 0;
    return n;
  }
  std::string all() const {
    std::string out;
    for (const auto& line : lines) out += line + "\n";
    return out;
  }
};

FetchOptions options_for(const fs::path& data_dir, const std::string& from, Log& log) {
  FetchOptions options;
  options.data_dir = data_dir.string();
  options.from = from;
  options.log = log.sink();
  return options;
}

// The message of the FetchError that fetch_dataset throws ("(no FetchError)" if it succeeds;
// any other exception type propagates and fails the test).
std::string fetch_error(const DatasetSpec& spec, const FetchOptions& options) {
  try {
    fetch_dataset(spec, options);
  } catch (const FetchError& e) {
    return e.what();
  }
  return "(no FetchError)";
}

const std::string kData = "1 2 3\n4 5 6\n7 8 9.5\n";
const std::string kFeatures = "0\n1\n";
const std::string kTarget = "2\n";

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST_CASE("fetch downloads a data set from url_base over HTTP and verifies it", "[fetch]") {
  ScratchDir scratch("url-base");
  const fs::path served = scratch.path() / "served";
  const fs::path data_dir = scratch.path() / "data";
  // The upstream folder name differs from the data set's folder: url_base alone decides.
  write_bytes(served / "upstream" / "v1" / "data.txt", kData);
  write_bytes(served / "upstream" / "v1" / "index_features.txt", kFeatures);
  write_bytes(served / "upstream" / "v1" / "index_target.txt", kTarget);
  const Served server = serve(served);

  const auto registry = load_registry(scratch.path(), dataset_toml("toy", "toy-folder", server.url("upstream/v1/"),
                                                                   {{"data.txt", sha256_hex(kData), ""},
                                                                    {"index_features.txt", sha256_hex(kFeatures), ""},
                                                                    {"index_target.txt", sha256_hex(kTarget), ""}}));
  const DatasetSpec& spec = registry.find("toy");
  REQUIRE(spec.url_of(spec.files[0]) == server.url("upstream/v1/data.txt"));

  Log log;
  const DatasetStatus before = bnn::data::dataset_status(spec, data_dir.string());
  CHECK_FALSE(before.present);
  CHECK_FALSE(before.verified);
  CHECK(before.detail == "missing data.txt");

  fetch_dataset(spec, options_for(data_dir, "", log));
  INFO(log.all());
  const fs::path folder = data_dir / "toy-folder";
  CHECK(listing(data_dir) ==
        std::set<std::string>{"toy-folder/data.txt", "toy-folder/index_features.txt", "toy-folder/index_target.txt"});
  CHECK(read_bytes(folder / "data.txt") == kData);
  CHECK(read_bytes(folder / "index_features.txt") == kFeatures);
  CHECK(read_bytes(folder / "index_target.txt") == kTarget);
  CHECK(bnn::data::dataset_file(spec, data_dir.string(), "data.txt") == (folder / "data.txt").string());
  CHECK(log.count("toy: data.txt <- " + server.url("upstream/v1/data.txt")) == 1);
  CHECK(log.count(" <- ") == 3);
  CHECK(log.count("toy: 3 file(s) fetched, 0 already present and verified") == 1);

  const DatasetStatus after = bnn::data::dataset_status(spec, data_dir.string());
  CHECK(after.present);
  CHECK(after.verified);
  CHECK(after.detail == "verified");

  SECTION("a second fetch downloads nothing") {
    // The server now holds different bytes: a download would change the local copy.
    write_bytes(served / "upstream" / "v1" / "data.txt", "changed upstream\n");
    Log again;
    fetch_dataset(spec, options_for(data_dir, "", again));
    INFO(again.all());
    CHECK(again.count(" <- ") == 0);
    CHECK(again.count("toy: 0 file(s) fetched, 3 already present and verified") == 1);
    CHECK(read_bytes(folder / "data.txt") == kData);
  }

  SECTION("a corrupted local copy is downloaded again") {
    write_bytes(folder / "index_target.txt", "7\n");
    CHECK(bnn::data::dataset_status(spec, data_dir.string()).detail == "checksum mismatch: index_target.txt");
    Log again;
    fetch_dataset(spec, options_for(data_dir, "", again));
    INFO(again.all());
    CHECK(again.count(" <- ") == 1);
    CHECK(again.count("index_target.txt <- ") == 1);
    CHECK(again.count("toy: 1 file(s) fetched, 2 already present and verified") == 1);
    CHECK(read_bytes(folder / "index_target.txt") == kTarget);
    CHECK(bnn::data::dataset_status(spec, data_dir.string()).verified);
  }
  CHECK_FALSE(has_temporary_files(data_dir));
}

TEST_CASE("fetch takes files from a mirror URL or a local mirror folder", "[fetch]") {
  ScratchDir scratch("mirrors");
  const fs::path mirror = scratch.path() / "mirror";  // layout <mirror>/<folder>/<file>
  write_bytes(mirror / "toy" / "data.txt", kData);
  write_bytes(mirror / "toy" / "index_target.txt", kTarget);
  const Served server = serve(mirror);
  // url_base points to a folder the server does not have: only the mirror can succeed.
  const auto registry =
      load_registry(scratch.path(),
                    dataset_toml("toy", "toy", server.url("not-here/"),
                                 {{"data.txt", sha256_hex(kData), ""}, {"index_target.txt", sha256_hex(kTarget), ""}}));
  const DatasetSpec& spec = registry.find("toy");
  Log direct;
  REQUIRE_THAT(fetch_error(spec, options_for(scratch.path() / "direct", "", direct)),
               Contains(server.url("not-here/data.txt")));

  const auto check_fetched = [&](const fs::path& data_dir) {
    CHECK(listing(data_dir) == std::set<std::string>{"toy/data.txt", "toy/index_target.txt"});
    CHECK(read_bytes(data_dir / "toy" / "data.txt") == kData);
    CHECK(read_bytes(data_dir / "toy" / "index_target.txt") == kTarget);
    const DatasetStatus status = bnn::data::dataset_status(spec, data_dir.string());
    CHECK(status.present);
    CHECK(status.verified);
  };

  SECTION("mirror URL with a trailing slash") {
    Log log;
    const fs::path data_dir = scratch.path() / "from-url";
    fetch_dataset(spec, options_for(data_dir, server.url(), log));
    INFO(log.all());
    CHECK(log.count("toy: data.txt <- " + server.url("toy/data.txt")) == 1);
    CHECK(log.count("toy: 2 file(s) fetched") == 1);
    check_fetched(data_dir);
  }
  SECTION("mirror URL without a trailing slash") {
    Log log;
    const fs::path data_dir = scratch.path() / "from-url-no-slash";
    std::string from = server.url();
    from.pop_back();
    fetch_dataset(spec, options_for(data_dir, from, log));
    INFO(log.all());
    CHECK(log.count("toy: data.txt <- " + server.url("toy/data.txt")) == 1);
    check_fetched(data_dir);
  }
  SECTION("local mirror folder") {
    Log log;
    const fs::path data_dir = scratch.path() / "from-folder";
    fetch_dataset(spec, options_for(data_dir, mirror.string(), log));
    INFO(log.all());
    CHECK(log.count("toy: data.txt <- " + (mirror / "toy" / "data.txt").string()) == 1);
    CHECK(log.count("toy: 2 file(s) fetched") == 1);
    check_fetched(data_dir);
    // The mirror is copied, not moved.
    CHECK(read_bytes(mirror / "toy" / "data.txt") == kData);
  }
  SECTION("file:// mirror URL") {
    Log log;
    const fs::path data_dir = scratch.path() / "from-file-url";
    fetch_dataset(spec, options_for(data_dir, "file://" + fs::absolute(mirror).string(), log));
    INFO(log.all());
    check_fetched(data_dir);
  }
  SECTION("a local mirror missing a file") {
    fs::remove(mirror / "toy" / "index_target.txt");
    Log log;
    const fs::path data_dir = scratch.path() / "from-incomplete-folder";
    const std::string message = fetch_error(spec, options_for(data_dir, mirror.string(), log));
    CHECK_THAT(message, Contains("toy: index_target.txt"));
    CHECK_THAT(message, Contains("not in the mirror"));
    CHECK_THAT(message, Contains((mirror / "toy" / "index_target.txt").string()));
    CHECK(listing(data_dir) == std::set<std::string>{"toy/data.txt"});
  }
}

TEST_CASE("fetch rejects a file whose bytes do not match the registry checksum", "[fetch]") {
  ScratchDir scratch("mismatch");
  const fs::path served = scratch.path() / "served";
  const fs::path data_dir = scratch.path() / "data";
  write_bytes(served / "good.txt", kData);
  write_bytes(served / "bad.txt", "these are not the registered bytes\n");
  const Served server = serve(served);
  const std::string wrong = sha256_hex("the registered bytes\n");
  const auto registry = load_registry(
      scratch.path(),
      dataset_toml("lonely", "lonely", server.url(), {{"bad.txt", wrong, ""}}) +
          dataset_toml("pair", "pair", server.url(), {{"good.txt", sha256_hex(kData), ""}, {"bad.txt", wrong, ""}}));

  SECTION("only file") {
    Log log;
    const std::string message = fetch_error(registry.find("lonely"), options_for(data_dir, "", log));
    CHECK_THAT(message, Contains("lonely"));
    CHECK_THAT(message, Contains("bad.txt"));
    CHECK_THAT(message, Contains("checksum mismatch"));
    CHECK_THAT(message, Contains(wrong));
    CHECK(fs::is_directory(data_dir / "lonely"));
    CHECK(listing(data_dir).empty());
    const DatasetStatus status = bnn::data::dataset_status(registry.find("lonely"), data_dir.string());
    CHECK_FALSE(status.present);
    CHECK(status.detail == "missing bad.txt");
  }
  SECTION("after a good file") {
    Log log;
    const std::string message = fetch_error(registry.find("pair"), options_for(data_dir, "", log));
    CHECK_THAT(message, Contains("pair: bad.txt"));
    CHECK_THAT(message, Contains("checksum mismatch"));
    CHECK(listing(data_dir) == std::set<std::string>{"pair/good.txt"});
    CHECK(read_bytes(data_dir / "pair" / "good.txt") == kData);
  }
  SECTION("from a local mirror folder") {
    Log log;
    fs::create_directories(scratch.path() / "mirror");
    fs::copy(served, scratch.path() / "mirror" / "lonely", fs::copy_options::recursive);
    const std::string message =
        fetch_error(registry.find("lonely"), options_for(data_dir, (scratch.path() / "mirror").string(), log));
    CHECK_THAT(message, Contains("lonely: bad.txt"));
    CHECK_THAT(message, Contains("checksum mismatch"));
    CHECK(listing(data_dir).empty());
  }
}

TEST_CASE("fetch reports a missing file on the server by its URL", "[fetch]") {
  ScratchDir scratch("not-found");
  const fs::path served = scratch.path() / "served";
  const fs::path data_dir = scratch.path() / "data";
  write_bytes(served / "set" / "data.txt", kData);
  const Served server = serve(served);
  const auto registry =
      load_registry(scratch.path(),
                    dataset_toml("gappy", "gappy", server.url("set/"),
                                 {{"data.txt", sha256_hex(kData), ""}, {"index_target.txt", sha256_hex(kTarget), ""}}));
  const DatasetSpec& spec = registry.find("gappy");

  Log log;
  const std::string message = fetch_error(spec, options_for(data_dir, "", log));
  INFO(log.all());
  CHECK_THAT(message, Contains("gappy: index_target.txt"));
  CHECK_THAT(message, Contains(server.url("set/index_target.txt")));
  CHECK_THAT(message, Contains("404"));
  // The file verified before the failure stays; nothing else is left behind.
  CHECK(listing(data_dir) == std::set<std::string>{"gappy/data.txt"});
  CHECK(read_bytes(data_dir / "gappy" / "data.txt") == kData);
  const DatasetStatus status = bnn::data::dataset_status(spec, data_dir.string());
  CHECK_FALSE(status.present);
  CHECK_FALSE(status.verified);
  CHECK(status.detail == "missing index_target.txt");

  // Once the server has the file, only the missing one is fetched.
  write_bytes(served / "set" / "index_target.txt", kTarget);
  Log again;
  fetch_dataset(spec, options_for(data_dir, "", again));
  INFO(again.all());
  CHECK(again.count(" <- ") == 1);
  CHECK(again.count("gappy: 1 file(s) fetched, 1 already present and verified") == 1);
  CHECK(bnn::data::dataset_status(spec, data_dir.string()).verified);

  SECTION("download() itself") {
    const fs::path destination = scratch.path() / "single" / "x.txt";
    fs::create_directories(destination.parent_path());
    bnn::data::download(server.url("set/data.txt"), destination.string());
    CHECK(read_bytes(destination) == kData);
    try {
      bnn::data::download(server.url("set/nothing.txt"), destination.string());
      FAIL("download of a missing file succeeded");
    } catch (const FetchError& e) {
      CHECK_THAT(std::string(e.what()), Contains(server.url("set/nothing.txt")));
      CHECK_THAT(std::string(e.what()), Contains("404"));
    }
    CHECK_FALSE(fs::exists(destination));
  }
  SECTION("a server that is not there") {
    const std::string nobody = "http://127.0.0.1:" + std::to_string(unused_port()) + "/";
    const std::string refused = fetch_error(spec, options_for(scratch.path() / "other", nobody, log));
    CHECK_THAT(refused, Contains("gappy: data.txt"));
    CHECK_THAT(refused, Contains(nobody + "gappy/data.txt"));
    CHECK(listing(scratch.path() / "other").empty());
  }
}

TEST_CASE("fetch extracts a file from a zip archive", "[fetch]") {
  ScratchDir scratch("archive");
  const fs::path served = scratch.path() / "served";
  const std::string member = "2001,0.5,1.25\n1999,-3,4e2\n";
  const std::string other = "not the member\n";
  make_zips({{served / "up" / "x.zip", {{"README", other}, {"member.txt", member}}},
             {served / "elsewhere" / "y.zip", {{"inner/msd.txt", member}}},
             {served / "up" / "wrong.zip", {{"other.txt", other}}}});
  const Served server = serve(served);
  const auto registry = load_registry(
      scratch.path(),
      dataset_toml("zipped", "zipped", server.url("up/"), {{"member.txt", sha256_hex(member), "archive = \"x.zip\""}}) +
          // Like the shipped `year` entry: a full `url` to the zip and no checksum known.
          dataset_toml("yearish", "yearish", "",
                       {{"msd.txt", "", "archive = \"y.zip\", url = \"" + server.url("elsewhere/y.zip") + "\""}}, "",
                       "", "url-only") +
          dataset_toml("badzip", "badzip", server.url("up/"),
                       {{"member.txt", sha256_hex(other), "archive = \"x.zip\""}}) +
          dataset_toml("nomember", "nomember", server.url("up/"),
                       {{"member.txt", sha256_hex(member), "archive = \"wrong.zip\""}}));
  // Steps in plain blocks, each with its own data directory, rather than SECTIONs: every
  // SECTION would rerun the python3 that writes the archives.
  {
    INFO("over HTTP from url_base");
    const fs::path data_dir = scratch.path() / "data-1";
    const DatasetSpec& spec = registry.find("zipped");
    Log log;
    fetch_dataset(spec, options_for(data_dir, "", log));
    INFO(log.all());
    CHECK(log.count("zipped: member.txt <- " + server.url("up/x.zip")) == 1);
    CHECK(listing(data_dir) == std::set<std::string>{"zipped/member.txt"});
    CHECK(read_bytes(data_dir / "zipped" / "member.txt") == member);
    const DatasetStatus status = bnn::data::dataset_status(spec, data_dir.string());
    CHECK(status.present);
    CHECK(status.verified);
    Log again;
    fetch_dataset(spec, options_for(data_dir, "", again));
    CHECK(again.count(" <- ") == 0);
  }
  {
    INFO("over HTTP from a file's own url, no checksum");
    const fs::path data_dir = scratch.path() / "data-2";
    const DatasetSpec& spec = registry.find("yearish");
    Log log;
    fetch_dataset(spec, options_for(data_dir, "", log));
    INFO(log.all());
    CHECK(log.count("yearish: msd.txt <- " + server.url("elsewhere/y.zip")) == 1);
    CHECK(listing(data_dir) == std::set<std::string>{"yearish/msd.txt"});
    CHECK(read_bytes(data_dir / "yearish" / "msd.txt") == member);
    const DatasetStatus status = bnn::data::dataset_status(spec, data_dir.string());
    CHECK(status.present);
    CHECK_FALSE(status.verified);
    CHECK(status.detail == "present, no checksum known");
  }
  {
    INFO("from a local mirror folder holding only the zip");
    const fs::path data_dir = scratch.path() / "data-3";
    const fs::path mirror = scratch.path() / "mirror";
    fs::create_directories(mirror / "zipped");
    fs::copy_file(served / "up" / "x.zip", mirror / "zipped" / "x.zip");
    REQUIRE_FALSE(fs::exists(mirror / "zipped" / "member.txt"));
    Log log;
    fetch_dataset(registry.find("zipped"), options_for(data_dir, mirror.string(), log));
    INFO(log.all());
    CHECK(log.count("zipped: member.txt <- " + (mirror / "zipped" / "x.zip").string()) == 1);
    CHECK(listing(data_dir) == std::set<std::string>{"zipped/member.txt"});
    CHECK(read_bytes(data_dir / "zipped" / "member.txt") == member);
    CHECK(bnn::data::dataset_status(registry.find("zipped"), data_dir.string()).verified);
    CHECK(fs::exists(mirror / "zipped" / "x.zip"));
  }
  {
    INFO("a local mirror folder holding the extracted file (and the zip) uses the file");
    const fs::path data_dir = scratch.path() / "data-4";
    const fs::path mirror = scratch.path() / "mirror-plain";
    write_bytes(mirror / "zipped" / "member.txt", member);
    fs::copy_file(served / "up" / "wrong.zip", mirror / "zipped" / "x.zip");
    Log log;
    fetch_dataset(registry.find("zipped"), options_for(data_dir, mirror.string(), log));
    INFO(log.all());
    CHECK(log.count("zipped: member.txt <- " + (mirror / "zipped" / "member.txt").string()) == 1);
    CHECK(read_bytes(data_dir / "zipped" / "member.txt") == member);
  }
  {
    INFO("an archive member with the wrong checksum");
    const fs::path data_dir = scratch.path() / "data-5";
    Log log;
    const std::string message = fetch_error(registry.find("badzip"), options_for(data_dir, "", log));
    CHECK_THAT(message, Contains("badzip: member.txt"));
    CHECK_THAT(message, Contains("checksum mismatch"));
    CHECK(listing(data_dir).empty());
  }
  {
    INFO("an archive without the member");
    const fs::path data_dir = scratch.path() / "data-6";
    Log log;
    const std::string message = fetch_error(registry.find("nomember"), options_for(data_dir, "", log));
    CHECK_THAT(message, Contains("nomember: member.txt"));
    CHECK_THAT(message, Contains("no member 'member.txt'"));
    CHECK(listing(data_dir).empty());
  }
}

namespace {

// A fake Communities-and-Crime file: 147 comma-separated columns, "\r\r\n" line endings, '?'
// for missing values. Cell text is unique per row and column, so the derived table shows
// exactly which columns were kept.
std::string crime_cell(int row, int column) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%d.%03d", row, column);
  return buffer;
}

struct FakeCrime {
  std::string original;
  std::string derived;
  int kept_rows = 0;
};

FakeCrime fake_crime() {
  // The recipe (derive.hpp), 1-based columns: target 146; inputs 6..129 without the police
  // columns 104-120, 124-127 and 129, written out here one by one.
  const std::set<int> police = {104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114,
                                115, 116, 117, 118, 119, 120, 124, 125, 126, 127, 129};
  std::vector<int> inputs;
  for (int c = 6; c <= 129; ++c)
    if (police.count(c) == 0) inputs.push_back(c);
  REQUIRE(police.size() == 22);
  REQUIRE(inputs.size() == 102);
  const int target = 146;

  // Which cells of each row are '?' and whether the row survives.
  struct Row {
    std::vector<int> missing;
    bool kept;
  };
  std::vector<Row> rows = {
      {{}, true},                                // complete
      {{146}, false},                            // missing target
      {{104, 110, 120, 124, 127, 129}, true},    // only police columns missing
      {{6}, false},                              // first input missing
      {{103}, false},                            // last input before the police block
      {{121}, false},                            // input between the police blocks
      {{128}, false},                            // input between 127 and 129
      {{2, 3, 4, 5, 130, 131, 145, 147}, true},  // non-predictive columns missing
      {{29}, false},                             // an input in the middle
      {{105, 126, 146}, false},                  // police and target missing
      {{}, true},                                // complete
  };
  FakeCrime fake;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int row = static_cast<int>(r) + 1;
    std::vector<std::string> cells;
    for (int c = 1; c <= 147; ++c) cells.push_back(crime_cell(row, c));
    cells[0] = "Town" + std::to_string(row) + "city";  // communityname is text
    for (int c : rows[r].missing) cells[static_cast<std::size_t>(c - 1)] = "?";
    for (std::size_t c = 0; c < cells.size(); ++c) fake.original += (c ? "," : "") + cells[c];
    fake.original += "\r\r\n";
    if (!rows[r].kept) continue;
    ++fake.kept_rows;
    for (int c : inputs) fake.derived += cells[static_cast<std::size_t>(c - 1)] + " ";
    fake.derived += cells[target - 1] + "\n";
  }
  return fake;
}

}  // namespace

TEST_CASE("fetch builds and verifies a derived table", "[fetch]") {
  ScratchDir scratch("derive");
  const FakeCrime fake = fake_crime();
  REQUIRE(fake.kept_rows == 4);
  // Spot checks of the expected table, independent of how it was assembled.
  REQUIRE(fake.derived.rfind("1.006 1.007 1.008 ", 0) == 0);
  REQUIRE(fake.derived.find('?') == std::string::npos);
  REQUIRE(fake.derived.find("1.129") == std::string::npos);
  REQUIRE(fake.derived.find("1.104") == std::string::npos);
  REQUIRE(fake.derived.find("1.102 1.103 1.121 1.122 1.123 1.128 1.146\n") != std::string::npos);
  REQUIRE(fake.derived.find(" 3.146\n8.006 ") != std::string::npos);
  REQUIRE(std::count(fake.derived.begin(), fake.derived.end(), ' ') == 4 * 102);

  const fs::path served = scratch.path() / "served";
  const fs::path data_dir = scratch.path() / "data";
  const std::string source = "CommViolPredUnnormalizedData.txt";
  const std::string output = "crime_n1993_d102.txt";
  write_bytes(served / source, fake.original);
  const Served server = serve(served);
  const auto derive = [&](const std::string& sha) {
    return "derive = { recipe = \"crime-n1993-d102\", output = \"" + output + "\", sha256 = \"" + sha + "\" }\n";
  };
  const auto registry = load_registry(
      scratch.path(),
      dataset_toml("crime-toy", "crime", server.url(), {{source, sha256_hex(fake.original), ""}},
                   derive(sha256_hex(fake.derived)), output) +
          dataset_toml("crime-wrong", "crime-wrong", server.url(), {{source, sha256_hex(fake.original), ""}},
                       derive(sha256_hex(fake.derived + "1 2\n")), output));

  SECTION("the derived table is written and verified") {
    const DatasetSpec& spec = registry.find("crime-toy");
    REQUIRE(spec.derive);
    Log log;
    fetch_dataset(spec, options_for(data_dir, "", log));
    INFO(log.all());
    CHECK(listing(data_dir) == std::set<std::string>{"crime/" + source, "crime/" + output});
    CHECK(read_bytes(data_dir / "crime" / source) == fake.original);
    CHECK(read_bytes(data_dir / "crime" / output) == fake.derived);
    CHECK(log.count("crime-toy: derived " + output + " (crime-n1993-d102), checksum verified") == 1);
    DatasetStatus status = bnn::data::dataset_status(spec, data_dir.string());
    CHECK(status.present);
    CHECK(status.verified);

    // A second fetch neither downloads nor derives.
    Log again;
    fetch_dataset(spec, options_for(data_dir, "", again));
    CHECK(again.count(" <- ") == 0);
    CHECK(again.count("derived") == 0);

    // A damaged derived table is reported and rebuilt.
    write_bytes(data_dir / "crime" / output, "0 0\n");
    status = bnn::data::dataset_status(spec, data_dir.string());
    CHECK(status.present);
    CHECK_FALSE(status.verified);
    CHECK(status.detail == "checksum mismatch: " + output);
    Log rebuild;
    fetch_dataset(spec, options_for(data_dir, "", rebuild));
    CHECK(rebuild.count(" <- ") == 0);
    CHECK(rebuild.count("derived " + output) == 1);
    CHECK(read_bytes(data_dir / "crime" / output) == fake.derived);

    // A missing derived table makes the data set absent.
    fs::remove(data_dir / "crime" / output);
    status = bnn::data::dataset_status(spec, data_dir.string());
    CHECK_FALSE(status.present);
    CHECK(status.detail == "missing " + output);
  }
  SECTION("a wrong derived checksum is an error and leaves no table") {
    Log log;
    const std::string message = fetch_error(registry.find("crime-wrong"), options_for(data_dir, "", log));
    INFO(log.all());
    CHECK_THAT(message, Contains("crime-wrong"));
    CHECK_THAT(message, Contains("derived"));
    CHECK_THAT(message, Contains(output));
    CHECK_THAT(message, Contains("checksum mismatch"));
    // The verified source file stays; no derived table or temporary file.
    CHECK(listing(data_dir) == std::set<std::string>{"crime-wrong/" + source});
  }
  SECTION("a source file the recipe cannot read is a FetchError naming the data set") {
    std::string broken = fake.original;
    broken.insert(broken.find("\r\r\n"), ",extra");  // 148 columns in the first row
    write_bytes(served / source, broken);
    const auto bad = load_registry(scratch.path() / "bad", dataset_toml("crime-broken", "crime-broken", server.url(),
                                                                        {{source, sha256_hex(broken), ""}},
                                                                        derive(sha256_hex(fake.derived)), output));
    Log log;
    const std::string message = fetch_error(bad.find("crime-broken"), options_for(data_dir, "", log));
    CHECK_THAT(message, Contains("crime-broken"));
    CHECK_THAT(message, Contains("148"));
    CHECK(listing(data_dir) == std::set<std::string>{"crime-broken/" + source});
  }
  SECTION("an unknown recipe is a FetchError naming the data set") {
    const auto bad = load_registry(
        scratch.path() / "bad",
        dataset_toml("crime-recipe", "crime-recipe", server.url(), {{source, sha256_hex(fake.original), ""}},
                     "derive = { recipe = \"no-such-recipe\", output = \"" + output + "\" }\n", output));
    Log log;
    const std::string message = fetch_error(bad.find("crime-recipe"), options_for(data_dir, "", log));
    CHECK_THAT(message, Contains("crime-recipe"));
    CHECK_THAT(message, Contains("no-such-recipe"));
    CHECK(listing(data_dir) == std::set<std::string>{"crime-recipe/" + source});
  }
}

TEST_CASE("dataset_status reports presence and verification", "[fetch]") {
  ScratchDir scratch("status");
  const fs::path data_dir = scratch.path() / "data";
  const auto registry = load_registry(
      scratch.path(), dataset_toml("checked", "checked", "http://127.0.0.1:9/",
                                   {{"a.txt", sha256_hex("a\n"), ""}, {"b.txt", sha256_hex("b\n"), ""}}) +
                          dataset_toml("partly", "partly", "http://127.0.0.1:9/",
                                       {{"a.txt", sha256_hex("a\n"), ""}, {"c.txt", "", ""}}) +
                          dataset_toml("closed", "closed", "", {{"a.txt", "", ""}}, "", "", "not-public") +
                          "[[dataset]]\nname = \"made-up\"\navailability = \"synthetic\"\n"
                          "synthetic = { generator = \"sinusoid\", n = 10, seed = 1 }\n");
  const std::string dir = data_dir.string();
  const DatasetSpec& checked = registry.find("checked");
  const DatasetSpec& partly = registry.find("partly");

  DatasetStatus s = bnn::data::dataset_status(checked, dir);
  CHECK_FALSE(s.present);
  CHECK_FALSE(s.verified);
  CHECK(s.detail == "missing a.txt");

  write_bytes(data_dir / "checked" / "a.txt", "a\n");
  s = bnn::data::dataset_status(checked, dir);
  CHECK_FALSE(s.present);
  CHECK(s.detail == "missing b.txt");

  write_bytes(data_dir / "checked" / "b.txt", "B\n");
  s = bnn::data::dataset_status(checked, dir);
  CHECK(s.present);
  CHECK_FALSE(s.verified);
  CHECK(s.detail == "checksum mismatch: b.txt");

  write_bytes(data_dir / "checked" / "b.txt", "b\n");
  s = bnn::data::dataset_status(checked, dir);
  CHECK(s.present);
  CHECK(s.verified);
  CHECK(s.detail == "verified");

  write_bytes(data_dir / "partly" / "a.txt", "a\n");
  s = bnn::data::dataset_status(partly, dir);
  CHECK_FALSE(s.present);
  CHECK(s.detail == "missing c.txt");
  write_bytes(data_dir / "partly" / "c.txt", "anything\n");
  s = bnn::data::dataset_status(partly, dir);
  CHECK(s.present);
  CHECK_FALSE(s.verified);
  CHECK(s.detail == "present, no checksum known");
  // A mismatch elsewhere wins over "no checksum known".
  write_bytes(data_dir / "partly" / "a.txt", "A\n");
  s = bnn::data::dataset_status(partly, dir);
  CHECK(s.present);
  CHECK_FALSE(s.verified);
  CHECK(s.detail == "checksum mismatch: a.txt");

  s = bnn::data::dataset_status(registry.find("closed"), dir);
  CHECK_FALSE(s.present);
  CHECK(s.detail == "not publicly available");
  Log log;
  CHECK_THAT(fetch_error(registry.find("closed"), options_for(data_dir, "", log)),
             Contains("closed: not publicly available"));

  s = bnn::data::dataset_status(registry.find("made-up"), dir);
  CHECK(s.present);
  CHECK(s.verified);
  fetch_dataset(registry.find("made-up"), options_for(data_dir, "", log));
  CHECK(log.count("made-up: built in (synthetic), nothing to fetch") == 1);
  CHECK_FALSE(fs::exists(data_dir / "made-up"));
}

TEST_CASE("resolve_data_dir: argument, then BNNBENCH_DATA, XDG_CACHE_HOME, HOME", "[fetch]") {
  EnvGuard guard({"BNNBENCH_DATA", "XDG_CACHE_HOME", "HOME"});
  using bnn::data::resolve_data_dir;
  ::setenv("BNNBENCH_DATA", "/env/data", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
  ::setenv("HOME", "/home/someone", 1);

  CHECK(resolve_data_dir("/explicit/dir") == "/explicit/dir");
  CHECK(resolve_data_dir("") == "/env/data");
  ::setenv("BNNBENCH_DATA", "", 1);  // empty counts as unset
  CHECK(resolve_data_dir("") == "/xdg/cache/bnnbench");
  ::unsetenv("BNNBENCH_DATA");
  CHECK(resolve_data_dir("") == "/xdg/cache/bnnbench");
  CHECK(resolve_data_dir("relative") == "relative");
  ::setenv("XDG_CACHE_HOME", "", 1);
  CHECK(resolve_data_dir("") == "/home/someone/.cache/bnnbench");
  ::unsetenv("XDG_CACHE_HOME");
  CHECK(resolve_data_dir("") == "/home/someone/.cache/bnnbench");
  ::setenv("BNNBENCH_DATA", "/env/again", 1);
  CHECK(resolve_data_dir("") == "/env/again");
  ::unsetenv("BNNBENCH_DATA");
  ::unsetenv("HOME");
  CHECK(resolve_data_dir("") == "bnnbench-data");
  CHECK(resolve_data_dir("/explicit/dir") == "/explicit/dir");
}

TEST_CASE("split pattern: the split files need no entries, a manifest gives their checksums", "[fetch]") {
  ScratchDir scratch("split-pattern");
  const fs::path mirror = scratch.path() / "mirror";
  const std::vector<std::pair<std::string, std::string>> split_files = {
      {"tr_0.txt", "0\n1\n"}, {"te_0.txt", "2\n"}, {"tr_1.txt", "1\n2\n"}, {"te_1.txt", "0\n"}};
  write_bytes(mirror / "toy" / "data.txt", kData);
  std::string manifest;
  for (const auto& [path, bytes] : split_files) {
    write_bytes(mirror / "toy" / path, bytes);
    manifest += sha256_hex(bytes) + "  " + path + "\n";
  }
  write_bytes(mirror / "toy" / "SHA256SUMS", manifest);
  const std::string splits = "splits = { count = 2, train = \"tr_{k}.txt\", test = \"te_{k}.txt\"";
  const auto registry = load_registry(
      scratch.path(),
      dataset_toml("toy", "toy", "https://example.invalid/", {{"data.txt", sha256_hex(kData), ""}},
                   splits + ", manifest = \"SHA256SUMS\" }\n") +
          dataset_toml("plain", "toy", "https://example.invalid/", {{"data.txt", "", ""}}, splits + " }\n"));
  const DatasetSpec& spec = registry.find("toy");
  // data.txt, the manifest, then the four split files
  REQUIRE(spec.files.size() == 6);
  CHECK(spec.files[1].path == "SHA256SUMS");
  CHECK(spec.files[2].path == "tr_0.txt");
  CHECK(spec.files[5].path == "te_1.txt");
  CHECK(spec.files[5].manifest == "SHA256SUMS");

  const fs::path data_dir = scratch.path() / "data";
  Log log;
  fetch_dataset(spec, options_for(data_dir, mirror.string(), log));
  INFO(log.all());
  CHECK(log.count("toy: 6 file(s) fetched, 0 already present and verified") == 1);
  CHECK(bnn::data::dataset_status(spec, data_dir.string()).verified);
  CHECK(bnn::data::dataset_status(spec, data_dir.string()).detail ==
        "verified (SHA256SUMS has no checksum of its own)");

  SECTION("a split file that is not the one the manifest names is refused") {
    write_bytes(data_dir / "toy" / "te_1.txt", "1\n");
    CHECK(bnn::data::dataset_status(spec, data_dir.string()).detail == "checksum mismatch: te_1.txt");
    write_bytes(mirror / "toy" / "te_1.txt", "1\n");
    Log again;
    CHECK_THAT(fetch_error(spec, options_for(data_dir, mirror.string(), again)),
               Contains("toy: te_1.txt: checksum mismatch (expected sha256 " + sha256_hex("0\n")));
  }
  SECTION("a manifest without a line for a split file names it") {
    write_bytes(data_dir / "toy" / "SHA256SUMS", manifest.substr(0, manifest.rfind(sha256_hex("0\n"))));
    CHECK_THAT(bnn::data::dataset_status(spec, data_dir.string()).detail, Contains("has no checksum for te_1.txt"));
    write_bytes(data_dir / "toy" / "SHA256SUMS", "not a checksum\n");
    CHECK_THAT(bnn::data::dataset_status(spec, data_dir.string()).detail,
               Contains("SHA256SUMS:1: not a checksum line"));
  }
  SECTION("without checksums: present unverified, and a file changed at the source replaces the copy") {
    const DatasetSpec& plain = registry.find("plain");
    REQUIRE(plain.files.size() == 5);
    const fs::path plain_dir = scratch.path() / "plain-data";
    Log first;
    fetch_dataset(plain, options_for(plain_dir, mirror.string(), first));
    CHECK(bnn::data::dataset_status(plain, plain_dir.string()).detail == "present, no checksum known");
    Log same;
    fetch_dataset(plain, options_for(plain_dir, mirror.string(), same));
    INFO(same.all());
    CHECK(same.count(
              "plain: 0 file(s) fetched, 0 already present and verified, 5 present without a checksum (the same as "
              "the source's)") == 1);
    write_bytes(mirror / "toy" / "data.txt", "1 2 3\n4 5 6\n7 8 9.75\n");  // a corrected value
    Log changed;
    fetch_dataset(plain, options_for(plain_dir, mirror.string(), changed));
    INFO(changed.all());
    CHECK(changed.count("plain: data.txt <- " + (mirror / "toy" / "data.txt").string() +
                        " (changed there: replaces the copy)") == 1);
    CHECK(changed.count("1 replaced (changed at the source), 4 present without a checksum") == 1);
    CHECK(read_bytes(plain_dir / "toy" / "data.txt") == "1 2 3\n4 5 6\n7 8 9.75\n");
    CHECK_FALSE(has_temporary_files(plain_dir));
  }
}

TEST_CASE("registry: a copy of a shipped entry under a new name is told to drop its aliases", "[fetch]") {
  ScratchDir scratch("alias-copy");
  const fs::path file = scratch.path() / "mine.toml";
  write_bytes(file,
              "[[dataset]]\nname = \"yacht-fresh\"\naliases = [\"yacht-hydrodynamics\"]\n"
              "availability = \"public\"\nfolder = \"yacht\"\nfiles = [{ path = \"data.txt\" }]\n"
              "table = { file = \"data.txt\", features = \"0..5\", target = 6 }\n");
  try {
    DatasetRegistry::load({bnn::data::default_registry_path(), file.string()});
    FAIL("no error");
  } catch (const std::exception& e) {
    CHECK_THAT(e.what(), Contains("alias 'yacht-hydrodynamics' of 'yacht-fresh' already names 'yacht' ("));
    CHECK_THAT(e.what(), Contains("an entry copied under a new name must drop the aliases it was copied with"));
    CHECK_THAT(e.what(), Contains(file.string() + ", line 1"));
  }
}
