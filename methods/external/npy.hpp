#pragma once
// NumPy's .npy format (version 1.0) for the external-method protocol: what the harness writes
// (little-endian float64, C order) and reads back (float64 or float32, 1-D or 2-D, C order).
#include <Eigen/Core>
#include <string>
#include <string_view>
#include <vector>

namespace bnn::external {

// Row-major, as .npy's C order stores it.
using NpyMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Writes `values` as a 2-D array (rows x cols), or as 1-D when `as_vector` (cols must be 1).
// Throws std::runtime_error naming the file if it cannot be written.
void write_npy(const std::string& path, const Eigen::Ref<const NpyMatrix>& values, bool as_vector = false);

struct NpyArray {
  std::vector<long> shape;  // one or two dimensions
  NpyMatrix values;         // a 1-D array as one column
};

// Parses the bytes of a .npy file; `name` names it in errors ("<name>: <what is wrong>").
// Throws std::runtime_error on anything but a 1-D or 2-D little-endian float64/float32 array in
// C order whose data length matches its shape.
NpyArray parse_npy(std::string_view bytes, const std::string& name);
NpyArray read_npy(const std::string& path, const std::string& name);

}  // namespace bnn::external
