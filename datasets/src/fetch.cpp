#include "fetch.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "data_error.hpp"
#include "derive.hpp"
#include "text_table.hpp"

namespace fs = std::filesystem;

namespace bnn::data {
namespace {

// A digest as lowercase hexadecimal digits.
std::string hex_digits(const unsigned char* digest, unsigned int length) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 15]);
  }
  return out;
}

bool is_url(const std::string& s) {
  return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0 || s.rfind("file://", 0) == 0;
}

std::string join_url(std::string base, const std::string& tail) {
  if (!base.empty() && base.back() != '/') base.push_back('/');
  return base + tail;
}

void write_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw FetchError("cannot write " + path);
}

std::string temporary_name(const std::string& destination) {
  return destination + ".part" + std::to_string(::getpid());
}

// Extracts the member named `member` from a zip (or any libarchive format) into `destination`.
void extract_member(const std::string& archive_path, const std::string& member, const std::string& destination) {
  std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
  archive_read_support_filter_all(a.get());
  archive_read_support_format_all(a.get());
  if (archive_read_open_filename(a.get(), archive_path.c_str(), 1 << 16) != ARCHIVE_OK)
    throw FetchError(archive_path + ": cannot open archive: " + archive_error_string(a.get()));
  archive_entry* entry = nullptr;
  while (archive_read_next_header(a.get(), &entry) == ARCHIVE_OK) {
    const std::string name = archive_entry_pathname(entry);
    if (name != member && fs::path(name).filename() != member) continue;
    std::ofstream out(destination, std::ios::binary | std::ios::trunc);
    char buffer[1 << 16];
    la_ssize_t got = 0;
    while ((got = archive_read_data(a.get(), buffer, sizeof buffer)) > 0)
      out.write(buffer, static_cast<std::streamsize>(got));
    if (got < 0) throw FetchError(archive_path + ": " + archive_error_string(a.get()));
    out.close();
    if (!out) throw FetchError("cannot write " + destination);
    return;
  }
  throw FetchError(archive_path + ": the archive holds no member '" + member + "'");
}

size_t write_to_stream(char* data, size_t size, size_t count, void* stream) {
  auto* out = static_cast<std::ofstream*>(stream);
  out->write(data, static_cast<std::streamsize>(size * count));
  return *out ? size * count : 0;
}

// Where a source file comes from: a path on disk or a URL.
struct Origin {
  std::string location;
  bool remote = false;
  bool is_archive = false;
};

Origin origin_of(const DatasetSpec& spec, const SourceFile& file, const std::string& from) {
  if (from.empty()) return {spec.url_of(file), true, !file.archive.empty()};
  if (is_url(from)) {
    return {join_url(join_url(from, spec.folder), file.path), true, false};
  }
  const fs::path plain = fs::path(from) / spec.folder / file.path;
  if (fs::exists(plain) || file.archive.empty()) return {plain.string(), false, false};
  return {(fs::path(from) / spec.folder / file.archive).string(), false, true};
}

std::string verify(const std::string& path, const std::string& expected, const std::string& what) {
  const std::string got = sha256_file(path);
  if (!expected.empty() && got != expected) {
    fs::remove(path);
    throw FetchError(what + ": checksum mismatch (expected sha256 " + expected + ", got " + got + ")");
  }
  return got;
}

}  // namespace

std::string manifest_checksum(const DatasetSpec& spec, const std::string& folder, const SourceFile& file) {
  const std::string path = (fs::path(folder) / file.manifest).string();
  std::ifstream in(path);
  if (!in) throw FetchError(spec.name + ": cannot read the manifest " + path);
  std::string line;
  for (long number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    // sha256sum's format: 64 hex digits, a space, a space or '*' (binary mode), the path
    std::string sha = line.substr(0, 64);
    for (auto& c : sha) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (line.size() < 67 || sha.find_first_not_of("0123456789abcdef") != std::string::npos || line[64] != ' ' ||
        (line[65] != ' ' && line[65] != '*'))
      throw FetchError(path + ":" + std::to_string(number) +
                       ": not a checksum line (sha256sum's format: 64 hex digits, two spaces, the file name)");
    if (line.substr(66) == file.path) return sha;
  }
  throw FetchError(spec.name + ": the manifest " + path + " has no checksum for " + file.path);
}

std::string resolve_data_dir(const std::string& from_command_line) {
  if (!from_command_line.empty()) return from_command_line;
  if (const char* env = std::getenv("BNNBENCH_DATA"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "bnnbench").string();
  if (const char* home = std::getenv("HOME"); home && *home) return (fs::path(home) / ".cache" / "bnnbench").string();
  return "bnnbench-data";
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw FetchError("sha256: OpenSSL digest failed");
  return hex_digits(digest, length);
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FetchError("cannot read " + path);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  return hex_digits(digest, length);
}

void download(const std::string& url, const std::string& destination) {
  static const bool initialized = [] { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }();
  if (!initialized) throw FetchError("libcurl could not be initialized");
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) throw FetchError("libcurl could not be initialized");
  std::ofstream out(destination, std::ios::binary | std::ios::trunc);
  if (!out) throw FetchError("cannot write " + destination);
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(curl.get(), CURLOPT_USERAGENT, "bnnbench");
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, write_to_stream);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &out);
  const CURLcode rc = curl_easy_perform(curl.get());
  out.close();
  if (rc != CURLE_OK) {
    fs::remove(destination);
    long status = 0;
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
    const std::string message = "download of " + url + " failed: " + (error[0] ? error : curl_easy_strerror(rc));
    if (status == 404 || rc == CURLE_FILE_COULDNT_READ_FILE) throw SourceMissing(message);
    throw FetchError(message);
  }
  if (!out) throw FetchError("cannot write " + destination);
}

std::string dataset_file(const DatasetSpec& spec, const std::string& data_dir, const std::string& relative_path) {
  return (fs::path(data_dir) / spec.folder / relative_path).string();
}

void fetch_dataset(const DatasetSpec& spec, const FetchOptions& options) {
  const std::string who = spec.name;
  if (spec.is_synthetic()) {
    options.log(who + ": built in (synthetic), nothing to fetch");
    return;
  }
  if (!spec.is_public()) throw FetchError(who + ": not publicly available (" + spec.notes + ")");
  const fs::path folder = fs::path(options.data_dir) / spec.folder;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw FetchError(who + ": cannot create " + folder.string() + ": " + ec.message());

  // A file's checksum: its registry entry's, or its line in the manifest of the data set's folder
  // (fetched before the files it covers); empty when none is known.
  const auto expected_sha = [&](const SourceFile& file) {
    return file.manifest.empty() ? file.sha256 : manifest_checksum(spec, folder.string(), file);
  };
  int fetched = 0, kept = 0, unchecked = 0, same_as_source = 0, replaced = 0;
  std::vector<const SourceFile*> order;  // files a manifest covers after the others
  for (const auto& file : spec.files)
    if (file.manifest.empty()) order.push_back(&file);
  for (const auto& file : spec.files)
    if (!file.manifest.empty()) order.push_back(&file);
  for (const SourceFile* file_ptr : order) {
    const SourceFile& file = *file_ptr;
    const std::string destination = (folder / file.path).string();
    const std::string what = who + ": " + file.path;
    const std::string sha = expected_sha(file);
    const Origin origin = origin_of(spec, file, options.from);
    // A present file without a checksum stays only while it equals its source (a mirror's file or
    // a file:// URL, cheap to read again); one that is a download over the network is kept as it is.
    const bool present = fs::exists(destination);
    if (present && !sha.empty() && sha256_file(destination) == sha) {
      ++kept;
      continue;
    }
    const bool network = origin.remote && origin.location.rfind("file://", 0) != 0;
    const bool compare = present && sha.empty();
    if (compare && network) {
      ++unchecked;
      continue;
    }
    const std::string part = temporary_name(destination);
    const std::string raw = origin.is_archive ? part + ".archive" : part;
    try {
      if (!compare) options.log(what + " <- " + origin.location);
      if (origin.remote) {
        download(origin.location, raw);
      } else {
        if (!fs::exists(origin.location))
          throw SourceMissing("not in the mirror: " + origin.location + " does not exist" +
                              (origin.is_archive ? " (nor does the unpacked " + file.path + ")" : ""));
        fs::copy_file(origin.location, raw, fs::copy_options::overwrite_existing);
      }
      if (origin.is_archive) {
        extract_member(raw, file.path, part);
        fs::remove(raw);
      }
      verify(part, sha, what);
      if (compare && sha256_file(part) == sha256_file(destination)) {
        fs::remove(part);
        ++same_as_source;
        continue;
      }
      if (compare) options.log(what + " <- " + origin.location + " (changed there: replaces the copy)");
      fs::rename(part, destination);
      ++(compare ? replaced : fetched);
    } catch (const FetchError& e) {
      fs::remove(raw, ec);
      fs::remove(part, ec);
      const std::string message = e.what();
      const std::string named = message.rfind(what, 0) == 0 ? message : what + ": " + message;
      if (dynamic_cast<const SourceMissing*>(&e)) throw SourceMissing(named);
      throw FetchError(named);
    } catch (const fs::filesystem_error& e) {
      fs::remove(raw, ec);
      fs::remove(part, ec);
      throw FetchError(what + ": " + e.what());
    }
  }
  if (spec.derive) {
    const auto& d = *spec.derive;
    const std::string destination = (folder / d.output).string();
    if (replaced > 0 || !fs::exists(destination) || (!d.sha256.empty() && sha256_file(destination) != d.sha256)) {
      const std::string input = (folder / spec.files.front().path).string();
      std::string bytes;
      try {  // a malformed source file (DataError) or an unknown recipe: name the data set
        bytes = run_derivation(d.recipe, read_file(input), input);
      } catch (const DataError& e) {
        throw FetchError(who + ": derived " + d.output + ": " + e.what());
      } catch (const std::invalid_argument& e) {
        throw FetchError(who + ": derived " + d.output + ": " + e.what());
      }
      const std::string part = temporary_name(destination);
      write_file(part, bytes);
      verify(part, d.sha256, who + ": derived " + d.output);
      fs::rename(part, destination);
      options.log(who + ": derived " + d.output + " (" + d.recipe + ")" +
                  (d.sha256.empty() ? ", no checksum known" : ", checksum verified"));
    }
  }
  std::string summary = who + ": " + std::to_string(fetched) + " file(s) fetched, " + std::to_string(kept) +
                        " already present and verified";
  if (replaced > 0) summary += ", " + std::to_string(replaced) + " replaced (changed at the source)";
  if (same_as_source > 0)
    summary += ", " + std::to_string(same_as_source) + " present without a checksum (the same as the source's)";
  if (unchecked > 0)
    summary += ", " + std::to_string(unchecked) + " present without a checksum (not compared with the download)";
  options.log(summary);
}

DatasetStatus dataset_status(const DatasetSpec& spec, const std::string& data_dir) {
  DatasetStatus status;
  if (spec.is_synthetic()) return {true, true, "built in"};
  if (!spec.is_public()) return {false, false, "not publicly available"};
  std::vector<std::pair<std::string, std::string>> needed;  // path, sha256
  const std::string folder = (fs::path(data_dir) / spec.folder).string();
  for (const auto& f : spec.files) {
    if (f.manifest.empty()) {
      needed.emplace_back(f.path, f.sha256);
      continue;
    }
    if (!fs::exists(fs::path(folder) / f.manifest)) return {false, false, "missing " + f.manifest};
    try {
      needed.emplace_back(f.path, manifest_checksum(spec, folder, f));
    } catch (const FetchError& e) {
      return {true, false, e.what()};
    }
  }
  if (spec.derive) needed.emplace_back(spec.derive->output, spec.derive->sha256);
  bool unverifiable = false;
  for (const auto& [path, sha] : needed) {
    const std::string full = dataset_file(spec, data_dir, path);
    if (!fs::exists(full)) return {false, false, "missing " + path};
    if (sha.empty()) {
      unverifiable = true;
    } else if (sha256_file(full) != sha) {
      return {true, false, "checksum mismatch: " + path};
    }
  }
  if (unverifiable) {
    // Split files checked against a manifest that has no checksum of its own are verified as far
    // as the registry can say.
    std::string manifest;
    for (const auto& f : spec.files)
      if (!f.manifest.empty()) manifest = f.manifest;
    const bool only_the_manifest = !manifest.empty() && std::all_of(needed.begin(), needed.end(), [&](const auto& n) {
      return !n.second.empty() || n.first == manifest;
    });
    if (only_the_manifest) return {true, true, "verified (" + manifest + " has no checksum of its own)"};
    return {true, false, "present, no checksum known"};
  }
  return {true, true, "verified"};
}

}  // namespace bnn::data
