#include "npy.hpp"

#include "methods/core/one_line.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace bnn::external {
namespace {

static_assert(std::endian::native == std::endian::little, "the .npy files are written in native little-endian");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kMaxDimension = std::size_t{1} << 40;

[[noreturn]] void bad_npy(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": " + what);
}

// The value text of `key` in the header dict ("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }").
std::string_view header_value(std::string_view header, std::string_view key, const std::string& name) {
  const std::string quoted = "'" + std::string(key) + "'";
  const std::size_t at = header.find(quoted);
  if (at == std::string_view::npos) bad_npy(name, "the .npy header has no " + quoted);
  std::size_t from = header.find(':', at + quoted.size());
  if (from == std::string_view::npos) bad_npy(name, "the .npy header's " + quoted + " has no value");
  ++from;
  while (from < header.size() && header[from] == ' ') ++from;
  std::size_t to = from;
  if (to < header.size() && header[to] == '(') {
    to = header.find(')', to);
    if (to == std::string_view::npos) bad_npy(name, "the .npy header's shape is not closed");
    ++to;
  } else {
    while (to < header.size() && header[to] != ',' && header[to] != '}') ++to;
  }
  return header.substr(from, to - from);
}

std::vector<long> parse_shape(std::string_view text, const std::string& name) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') bad_npy(name, "the .npy shape is not a tuple");
  std::vector<long> shape;
  std::string_view inner = text.substr(1, text.size() - 2);
  while (!inner.empty()) {
    while (!inner.empty() && (inner.front() == ' ' || inner.front() == ',')) inner.remove_prefix(1);
    if (inner.empty()) break;
    std::size_t digits = 0;
    unsigned long long value = 0;
    while (digits < inner.size() && inner[digits] >= '0' && inner[digits] <= '9') {
      value = value * 10 + static_cast<unsigned>(inner[digits] - '0');
      if (value > kMaxDimension) bad_npy(name, "the .npy shape has a dimension over 2^40");
      ++digits;
    }
    if (digits == 0) bad_npy(name, "the .npy shape '" + one_line(text) + "' is not a tuple of integers");
    shape.push_back(static_cast<long>(value));
    inner.remove_prefix(digits);
  }
  return shape;
}

}  // namespace

void write_npy(const std::string& path, const Eigen::Ref<const NpyMatrix>& values, bool as_vector) {
  std::ostringstream dict;
  dict << "{'descr': '<f8', 'fortran_order': False, 'shape': (";
  if (as_vector)
    dict << values.rows() << ",), }";
  else
    dict << values.rows() << ", " << values.cols() << "), }";
  std::string header = dict.str();
  // Magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64, ending in '\n'.
  const std::size_t unpadded = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path + ": cannot be written");
  const auto length = static_cast<std::uint16_t>(header.size());
  out.write(kMagic.data(), static_cast<std::streamsize>(kMagic.size()));
  out.put('\x01').put('\x00');
  out.put(static_cast<char>(length & 0xff)).put(static_cast<char>(length >> 8));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(sizeof(double) * static_cast<std::size_t>(values.size())));
  if (!out.flush()) throw std::runtime_error(path + ": cannot be written");
}

NpyArray parse_npy(std::string_view bytes, const std::string& name) {
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic) bad_npy(name, "not a .npy file");
  const auto major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_length = 0, data_at = 0;
  if (major == 1) {
    header_length =
        static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    data_at = 10 + header_length;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad_npy(name, "the .npy header is cut short");
    for (int i = 3; i >= 0; --i) header_length = (header_length << 8) | static_cast<unsigned char>(bytes[8 + i]);
    data_at = 12 + header_length;
  } else {
    bad_npy(name, "the .npy version " + std::to_string(major) + " is not 1, 2 or 3");
  }
  if (data_at > bytes.size()) bad_npy(name, "the .npy header is cut short");
  const std::string_view header = bytes.substr(data_at - header_length, header_length);
  const std::string_view descr = header_value(header, "descr", name);
  std::size_t item = 0;
  if (descr == "'<f8'")
    item = 8;
  else if (descr == "'<f4'")
    item = 4;
  else
    bad_npy(name, "the array's dtype is " + one_line(descr) + ", but must be '<f8' (float64) or '<f4' (float32)");
  if (header_value(header, "fortran_order", name) != "False")
    bad_npy(name, "the array is in Fortran order, not C order");
  NpyArray array;
  array.shape = parse_shape(header_value(header, "shape", name), name);
  if (array.shape.empty() || array.shape.size() > 2)
    bad_npy(name, "the array has " + std::to_string(array.shape.size()) + " dimensions, but must have 1 or 2");
  const auto rows = static_cast<std::size_t>(array.shape[0]);
  const auto cols = array.shape.size() == 2 ? static_cast<std::size_t>(array.shape[1]) : std::size_t{1};
  if (cols != 0 && rows > std::numeric_limits<std::size_t>::max() / item / cols)
    bad_npy(name, "the array is too large");
  const std::size_t expected = rows * cols * item;
  if (bytes.size() - data_at != expected)
    bad_npy(name, "the array's data is " + std::to_string(bytes.size() - data_at) + " bytes, but its shape needs " +
                      std::to_string(expected));
  array.values.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  const char* data = bytes.data() + data_at;
  if (expected == 0) return array;  // an empty array has no data pointer to copy to
  if (item == 8) {
    std::memcpy(array.values.data(), data, expected);
  } else {
    for (std::size_t i = 0; i < rows * cols; ++i) {
      float value = 0.0F;
      std::memcpy(&value, data + 4 * i, 4);
      array.values.data()[i] = value;
    }
  }
  return array;
}

NpyArray read_npy(const std::string& path, const std::string& name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad_npy(name, "missing");
  std::ostringstream content;
  content << in.rdbuf();
  return parse_npy(content.str(), name);
}

}  // namespace bnn::external
