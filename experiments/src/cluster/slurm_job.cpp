#include "experiments/src/cluster/slurm_job.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "experiments/src/io/files.hpp"

namespace bnn::exp {
namespace {

namespace fs = std::filesystem;

void write_script(const std::string& path, const std::string& text) {
  write_text_file(path, text, "the Slurm script");
  fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
}

}  // namespace

SlurmFiles write_slurm_scripts(const SlurmRequest& request, const SlurmScripts& scripts) {
  std::error_code error;
  fs::create_directories(request.script_dir, error);
  if (error) throw std::runtime_error("cannot create " + request.script_dir + ": " + error.message());
  SlurmFiles files{(fs::path(request.script_dir) / (request.name + ".sbatch")).string(), ""};
  write_script(files.main, scripts.main);
  if (!scripts.merge.empty()) {
    files.merge = (fs::path(request.script_dir) / (request.name + "-merge.sbatch")).string();
    write_script(files.merge, scripts.merge);
  }
  return files;
}

std::string submit_sbatch(const std::string& extra, const std::string& script) {
  const std::string command = "sbatch --parsable " + extra + shell_quote(script) + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("could not start sbatch");
  std::string out;
  std::array<char, 256> buffer{};
  while (fgets(buffer.data(), static_cast<int>(buffer.size()), pipe.get())) out += buffer.data();
  const int status = pclose(pipe.release());
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (status != 0) {
    if (status == 127 * 256 || out.find("not found") != std::string::npos)
      throw std::runtime_error(
          "sbatch not found: run this on a Slurm login node, or leave out --submit and copy the script there");
    throw std::runtime_error("sbatch " + script + " failed: " + out);
  }
  const std::string id = out.substr(out.find_last_of('\n') + 1);
  return id.substr(0, id.find(';'));  // "id;cluster" on multi-cluster sites
}

}  // namespace bnn::exp
