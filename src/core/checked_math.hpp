// Extent arithmetic that cannot wrap. Every extent the library accepts is in
// 0..2^62, and every sum or product of extents is formed in 128 bits (or
// saturated) before it is compared, so no offset a kernel forms can overflow.
#pragma once

#include <cstdint>
#include <string>

namespace baracuda {

using int128 = __int128;

constexpr int64_t kMaxExtent = int64_t{1} << 62;

constexpr bool within_extent_range(int128 v) { return v >= 0 && v <= kMaxExtent; }

// Elements of a tensor of this shape: 0 when any extent is 0, wherever it
// stands; otherwise the product, saturated to kMaxExtent + 1 once it passes
// kMaxExtent. Exact for extents in 0..2^62; never overflows for any int64s.
constexpr int128 element_count(int32_t rank, const int64_t *shape) {
  for (int32_t d = 0; d < rank; ++d)
    if (shape[d] == 0) return 0;
  int128 n = 1;
  for (int32_t d = 0; d < rank; ++d) {
    n *= shape[d];
    if (n > kMaxExtent || n < -kMaxExtent) return kMaxExtent + 1;
  }
  return n;
}

// Decimal digits of v; streams print __int128 as nothing useful.
std::string to_decimal(int128 v);

}  // namespace baracuda
