#pragma once
// Eigen splits the inner dimension k of a matrix product (X' D X, the panel updates inside a
// Cholesky factorization) into blocks of kc terms, and kc comes from the L1 data cache it finds
// at run time (GeneralBlockPanelKernel.h: max_kc = (L1 - 384) / 128, rounded down to a multiple
// of 8, for double with the AVX2 kernel). The sums of two machines then run in different orders
// and their last bits differ: with a 48 KiB L1 instead of 32 KiB, kc for k = 5000 is 360 instead
// of 240, and NN-EP's kin40k fit ends 1e-5 relative away. Only kc changes the order of the sums;
// the row and column blocks that L2 and L3 set only change which terms are computed together.
#include <cstddef>

namespace bnn::product_blocking {

// The L1 size every committed result was computed with (Intel Cooper Lake and AMD Zen 4 both
// have 32 KiB), and so the one every run uses.
inline constexpr std::ptrdiff_t kL1Bytes = 32 * 1024;

// Sets Eigen's L1 size to kL1Bytes and keeps the L2 and L3 sizes it found. Called first in main,
// before any thread runs a product (Eigen keeps the sizes in process-wide statics).
void pin();

}  // namespace bnn::product_blocking
