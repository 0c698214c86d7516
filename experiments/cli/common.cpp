#include "common.hpp"

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "datasets/src/fetch.hpp"
#include "experiments/src/io/files.hpp"

namespace bnn::cli {

void CommonOptions::add_to(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("data-dir", po::value(&data_dir),
       "data directory (default: $BNNBENCH_DATA, else ~/.cache/bnnbench)")
      ("registry", po::value(&registries)->composing(),
       "extra data-set registry file (repeatable; adds to or replaces entries of the shipped one)")
      ("help,h", po::bool_switch(&help), "show this help");
  // clang-format on
}

bool CommonOptions::parse_or_help(const std::vector<std::string>& args, po::options_description& options,
                                  const std::string& positional_name, const std::string& usage, bool repeatable) {
  add_to(options);
  po::positional_options_description positional;
  if (!positional_name.empty()) positional.add(positional_name.c_str(), repeatable ? -1 : 1);
  given = parse(args, options, positional);
  if (help) print_help(usage, options);
  return help;
}

std::string CommonOptions::resolved_data_dir() const {
  const std::string dir = data::resolve_data_dir(data_dir);
  if (std::filesystem::exists(dir) && !std::filesystem::is_directory(dir))
    throw std::invalid_argument("the data directory " + dir +
                                (data_dir.empty() ? " (from $BNNBENCH_DATA or the default)" : " (--data-dir)") +
                                " is not a directory");
  return dir;
}

data::DatasetRegistry CommonOptions::load_registry() const {
  std::vector<std::string> files = {data::default_registry_path()};
  files.insert(files.end(), registries.begin(), registries.end());
  for (const auto& file : files) exp::register_input(file, "a data-set registry");
  return data::DatasetRegistry::load(files);
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& options,
                        const po::positional_options_description& positional) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  po::notify(vm);
  return vm;
}

std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::size_t start = 0;
    while (start <= item.size()) {
      const auto comma = item.find(',', start);
      std::string piece = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const auto first = piece.find_first_not_of(" \t");
      const auto last = piece.find_last_not_of(" \t");
      if (first != std::string::npos) out.push_back(piece.substr(first, last - first + 1));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

void print_help(const std::string& usage, const po::options_description& options) {
  std::cout << usage << "\n\n" << options << "\n";
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace bnn::cli
