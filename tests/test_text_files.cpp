// The harness's text files: written through a rename, gzip-compressed by name, found as name or
// name.gz.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "experiments/src/io/files.hpp"
#include "tests/support/data_mirror.hpp"

using namespace bnn::exp;
namespace fs = std::filesystem;

TEST_CASE("text files: a .gz name is written compressed and read back exactly", "[io]") {
  const fs::path dir = bnn::test::scratch_dir("io", "gzip");
  std::string text = "dataset,method,config_hash,split,status,metric,value\n";
  for (int i = 0; i < 20000; ++i) text += "boston,pbp-a,94d70a5d24efdbfd," + std::to_string(i) + ",ok,rmse,5.25\n";
  const std::string compressed = (dir / "splits.csv.gz").string();
  write_text_file(compressed, text, "test");
  CHECK(fs::file_size(compressed) < text.size() / 10);
  std::ifstream raw(compressed, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  raw.read(reinterpret_cast<char*>(magic), 2);
  CHECK((magic[0] == 0x1f && magic[1] == 0x8b));  // gzip
  CHECK(read_text_file(compressed, "test") == text);
  // found by its plain name; a plain file of that name comes first
  CHECK(find_text_file(dir.string(), "splits.csv") == compressed);
  write_text_file((dir / "splits.csv").string(), "plain\n", "test");
  CHECK(find_text_file(dir.string(), "splits.csv") == (dir / "splits.csv").string());
  CHECK(find_text_file(dir.string(), "jobs.csv").empty());
  // an empty text, and a damaged file named .gz
  write_text_file((dir / "empty.csv.gz").string(), "", "test");
  CHECK(read_text_file((dir / "empty.csv.gz").string(), "test").empty());
  std::string bytes = std::string("\x1f\x8b\x08\x00", 4) + std::string(40, 'x');
  std::ofstream((dir / "damaged.csv.gz").string(), std::ios::binary) << bytes;
  CHECK_THROWS_WITH(read_text_file((dir / "damaged.csv.gz").string(), "--compare"),
                    Catch::Contains("damaged.csv.gz is not a readable gzip file"));
}
