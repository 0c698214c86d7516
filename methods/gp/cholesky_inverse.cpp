#include "cholesky_inverse.hpp"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "methods/core/lapack.hpp"
#include "methods/core/parallel_pieces.hpp"

namespace bnn::gp {
namespace {

// OpenBLAS's dpotri spends most of its time at small sizes in dtrtri's level-2 inversion of
// diagonal blocks (2.3 of 2.9 ms at n = 455). Below this size the recursion here, all level-3,
// is faster (1.7 ms at n = 455, equal near 1000); above it dpotri's AVX-512 kernels win
// (80 ms against 100 ms at n = 1794). Measured with the x86-64-v3 build on an AVX-512 Xeon.
constexpr Eigen::Index kLapackFromRows = 1000;
constexpr Eigen::Index kDirectBlock = 32;  // blocks this small are inverted by a triangular solve

using SquareBlock = Eigen::Ref<Eigen::MatrixXd>;

// L^{-1} in place, by halves: [A 0; B D]^{-1} = [A^{-1} 0; -D^{-1} B A^{-1}  D^{-1}].
void invert_lower_triangular(SquareBlock L) {
  const Eigen::Index n = L.rows();
  if (n <= kDirectBlock) {
    Eigen::MatrixXd inverse = Eigen::MatrixXd::Identity(n, n);
    L.triangularView<Eigen::Lower>().solveInPlace(inverse);
    L.triangularView<Eigen::Lower>() = inverse;
    return;
  }
  const Eigen::Index half = n / 2;
  auto A = L.topLeftCorner(half, half);
  auto B = L.bottomLeftCorner(n - half, half);
  auto D = L.bottomRightCorner(n - half, n - half);
  invert_lower_triangular(A);
  invert_lower_triangular(D);
  const Eigen::MatrixXd BA = B * A.triangularView<Eigen::Lower>();
  B.noalias() = -(D.triangularView<Eigen::Lower>() * BA);
}

// Lower triangle of M'M for lower-triangular M, in place, by halves:
// [P 0; Q R]'[P 0; Q R] = [P'P + Q'Q  Q'R; R'Q  R'R].
void lower_gram_in_place(SquareBlock M) {
  const Eigen::Index n = M.rows();
  if (n <= kDirectBlock) {
    const Eigen::MatrixXd lower = M.triangularView<Eigen::Lower>();
    M.triangularView<Eigen::Lower>() = lower.transpose() * lower;
    return;
  }
  const Eigen::Index half = n / 2;
  auto P = M.topLeftCorner(half, half);
  auto Q = M.bottomLeftCorner(n - half, half);
  auto R = M.bottomRightCorner(n - half, n - half);
  lower_gram_in_place(P);
  P.selfadjointView<Eigen::Lower>().rankUpdate(Q.transpose());
  Q = R.triangularView<Eigen::Lower>().transpose() * Q;
  lower_gram_in_place(R);
}

// The tiles of an n x n matrix: about n / target of them, of equal size rounded up to a
// multiple of 8 (the last one smaller); tile t covers rows t*size .. min(n, (t+1)*size) - 1.
struct Tiling {
  Eigen::Index n, size = 1, count = 0;
  Tiling(Eigen::Index n_, Eigen::Index target) : n(n_) {
    if (target < 1)
      throw std::invalid_argument("tiled cholesky: tile is " + std::to_string(target) + ", but must be >= 1");
    if (n == 0) return;
    const Eigen::Index tiles = (n + target - 1) / target;
    size = ((n + tiles - 1) / tiles + 7) / 8 * 8;
    count = (n + size - 1) / size;
  }
  Eigen::Index extent(Eigen::Index t) const { return std::min(size, n - t * size); }
  lapack::Block operator()(Eigen::MatrixXd& M, Eigen::Index i, Eigen::Index j) const {
    return lapack::block(M, i * size, j * size, extent(i), extent(j));
  }
};

void copy_tile(lapack::Block from, lapack::Block to) {
  for (int c = 0; c < from.cols; ++c)
    for (int r = 0; r < from.rows; ++r) to.data[r + c * to.stride] = from.data[r + c * from.stride];
}

// Runs piece(0..count-1) as parallel pieces.
template <class Piece>
void pieces(Eigen::Index count, const Piece& piece) {
  run_pieces(static_cast<int>(count), [&](int p) { piece(static_cast<Eigen::Index>(p)); });
}

}  // namespace

void inverse_from_cholesky_lower(Eigen::MatrixXd& A) {
  if (A.rows() >= kLapackFromRows) {
    lapack::inverse_from_cholesky(A, false);  // the upper triangle is not needed
    return;
  }
  invert_lower_triangular(A);
  lower_gram_in_place(A);
}

bool tiled_cholesky_lower(Eigen::MatrixXd& A, Eigen::Index tile) {
  if (A.rows() != A.cols()) throw std::invalid_argument("tiled cholesky: matrix is not square");
  const Tiling t(A.rows(), tile);
  std::vector<std::pair<Eigen::Index, Eigen::Index>> updates;
  // Right-looking: factor the diagonal tile, solve the panel below it, update the trailing
  // tiles. Each tile is updated by steps 0, 1, ... in that order whatever thread runs it.
  for (Eigen::Index k = 0; k < t.count; ++k) {
    if (!lapack::cholesky_lower(t(A, k, k))) return false;
    pieces(t.count - k - 1,
           [&](Eigen::Index p) { lapack::solve_right_lower_transposed(t(A, k, k), t(A, k + 1 + p, k)); });
    updates.clear();
    for (Eigen::Index i = k + 1; i < t.count; ++i)
      for (Eigen::Index j = k + 1; j <= i; ++j) updates.emplace_back(i, j);
    pieces(static_cast<Eigen::Index>(updates.size()), [&](Eigen::Index p) {
      const auto [i, j] = updates[static_cast<std::size_t>(p)];
      if (i == j)
        lapack::syrk_lower(false, -1.0, t(A, i, k), 1.0, t(A, i, i));
      else
        lapack::gemm(false, true, -1.0, t(A, i, k), t(A, j, k), 1.0, t(A, i, j));
    });
  }
  return true;
}

void tiled_inverse_from_cholesky_lower(Eigen::MatrixXd& A, Eigen::MatrixXd& scratch, Eigen::Index tile) {
  if (A.rows() != A.cols()) throw std::invalid_argument("tiled cholesky: matrix is not square");
  const Tiling t(A.rows(), tile);
  Eigen::MatrixXd& X = scratch;
  if (X.rows() != A.rows() || X.cols() != A.cols()) X.resize(A.rows(), A.cols());
  // X = L^{-1}, one block column per piece (columns are independent): from L X = I,
  // X_jj = L_jj^{-1} and X_ij = -L_ii^{-1} sum_{k=j}^{i-1} L_ik X_kj for i > j.
  pieces(t.count, [&](Eigen::Index j) {
    copy_tile(t(A, j, j), t(X, j, j));
    lapack::invert_lower(t(X, j, j));
    for (Eigen::Index i = j + 1; i < t.count; ++i) {
      copy_tile(t(A, i, j), t(X, i, j));
      lapack::multiply_right_lower(t(X, j, j), t(X, i, j));
      for (Eigen::Index k = j + 1; k < i; ++k) lapack::gemm(false, false, 1.0, t(A, i, k), t(X, k, j), 1.0, t(X, i, j));
      lapack::solve_left_lower(t(A, i, i), t(X, i, j), -1.0);
    }
  });
  // Lower triangle of X'X, one tile per piece: (X'X)_ij = sum_{k>=i} X_ki' X_kj (X_ki = 0 for k < i).
  std::vector<std::pair<Eigen::Index, Eigen::Index>> tiles;
  for (Eigen::Index i = 0; i < t.count; ++i)
    for (Eigen::Index j = 0; j <= i; ++j) tiles.emplace_back(i, j);
  pieces(static_cast<Eigen::Index>(tiles.size()), [&](Eigen::Index p) {
    const auto [i, j] = tiles[static_cast<std::size_t>(p)];
    copy_tile(t(X, i, j), t(A, i, j));
    if (i == j) {
      lapack::lower_gram(t(A, i, i));
      for (Eigen::Index k = i + 1; k < t.count; ++k) lapack::syrk_lower(true, 1.0, t(X, k, i), 1.0, t(A, i, i));
    } else {
      lapack::multiply_left_lower_transposed(t(X, i, i), t(A, i, j));
      for (Eigen::Index k = i + 1; k < t.count; ++k)
        lapack::gemm(true, false, 1.0, t(X, k, i), t(X, k, j), 1.0, t(A, i, j));
    }
  });
}

}  // namespace bnn::gp
