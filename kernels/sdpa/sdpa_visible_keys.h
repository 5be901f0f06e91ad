// Which keys query i sees, as one closed interval [lo(i), hi(i)] of key
// indices: the causal mask, the window and the end of the keys are all
// bounds on j - i', and both bounds never decrease with i. The kernels skip
// the key tiles outside a query tile's union and mask only the tiles that cut
// through some row's interval.
#pragma once

#include <cstdint>

#include "common/host_device.h"
#include "sdpa/sdpa_problem.h"

namespace baracuda::kernels {

struct SdpaVisibleKeys {
  int64_t shift;  // i' - i
  int64_t keys;
  bool causal;
  int64_t window_left;   // -1: unbounded
  int64_t window_right;  // -1: unbounded

  // Whether a causal mask or a window bounds some row's keys (else every row sees them all).
  BARACUDA_HOST_DEVICE_INLINE bool bounded() const { return causal || window_left >= 0 || window_right >= 0; }
  BARACUDA_HOST_DEVICE_INLINE int64_t lo(int64_t i) const {
    const int64_t first = window_left >= 0 ? i + shift - window_left : 0;
    return first > 0 ? first : 0;
  }
  BARACUDA_HOST_DEVICE_INLINE int64_t hi(int64_t i) const {
    int64_t last = keys - 1;
    if (causal && i + shift < last) last = i + shift;
    if (window_right >= 0 && i + shift + window_right < last) last = i + shift + window_right;
    return last;
  }
};

inline SdpaVisibleKeys sdpa_visible_keys(const SdpaProblem &p) {
  return {p.bottom_right ? p.keys - p.queries : 0, p.keys, p.causal, p.window_left, p.window_right};
}

// The key tiles of width block_n that queries [first, last] touch:
// [begin, end), empty when no row sees a key.
struct SdpaKeyTiles {
  int64_t begin, end;
};
BARACUDA_HOST_DEVICE_INLINE SdpaKeyTiles sdpa_key_tiles(const SdpaVisibleKeys &v, int64_t first, int64_t last,
                                                        int block_n) {
  const int64_t lo = v.lo(first), hi = v.hi(last);
  if (hi < lo) return {0, 0};
  return {lo / block_n, hi / block_n + 1};
}

// Whether every query of [first, last] sees every key of [n0, n0 + block_n).
BARACUDA_HOST_DEVICE_INLINE bool sdpa_tile_fully_visible(const SdpaVisibleKeys &v, int64_t first, int64_t last,
                                                         int64_t n0, int block_n) {
  return n0 >= v.lo(last) && n0 + block_n - 1 <= v.hi(first);
}

// The same test for a key loop that holds the keys every query of
// [first, last] sees, [from, to], computed once per query tile.
struct SdpaCommonKeys {
  int64_t from, to;
  BARACUDA_HOST_DEVICE_INLINE bool hold(int64_t n0, int block_n) const { return n0 >= from && n0 + block_n - 1 <= to; }
};
BARACUDA_HOST_DEVICE_INLINE SdpaCommonKeys sdpa_common_keys(const SdpaVisibleKeys &v, int64_t first, int64_t last) {
  return {v.lo(last), v.hi(first)};
}

// The same test for a whole query tile's key tiles at once: of `tiles`,
// counted from tiles.begin, those [from, to) that every query of [first,
// last] sees whole (sdpa_tile_fully_visible), and from is also the first
// tile past every query's first key (so a tile past from that is not whole
// cuts through some row's last keys only). Clamped to [0, tiles' count].
struct SdpaWholeKeyTiles {
  int64_t from, to;
};
BARACUDA_HOST_DEVICE_INLINE SdpaWholeKeyTiles sdpa_whole_key_tiles(const SdpaVisibleKeys &v, int64_t first,
                                                                   int64_t last, const SdpaKeyTiles &tiles,
                                                                   int block_n) {
  const int64_t n = tiles.end - tiles.begin, lo = v.lo(last), hi = v.hi(first);
  // Tile k holds keys [k block_n, (k + 1) block_n - 1]; lo >= 0.
  int64_t from = (lo + block_n - 1) / block_n - tiles.begin, to = (hi < 0 ? 0 : (hi + 1) / block_n) - tiles.begin;
  from = from < 0 ? 0 : from > n ? n : from;
  to = to < 0 ? 0 : to > n ? n : to;
  return {from, to};
}

// Row m0 + row's last visible key relative to a tile's first key n0,
// hi(m0 + row) - n0 clamped to [-1, 2^16], in 32-bit arithmetic for rows 0
// to 255: the terms that depend on the block alone clamped once to
// +-2^20, a row adding at most 255 to them.
struct SdpaTileLastKeys {
  int keys_end, diagonal, right;  // keys - 1, i + shift and i + shift + window_right at row 0 (less n0)
  bool causal;
  BARACUDA_HOST_DEVICE_INLINE int last(int row) const {
    const int diagonal_last = causal ? diagonal + row : 1 << 20, right_last = right + row;
    int hi = keys_end < diagonal_last ? keys_end : diagonal_last;
    hi = hi < right_last ? hi : right_last;
    return hi < -1 ? -1 : hi > (1 << 16) ? 1 << 16 : hi;
  }
};
BARACUDA_HOST_DEVICE_INLINE SdpaTileLastKeys sdpa_tile_last_keys(const SdpaVisibleKeys &v, int64_t m0, int64_t n0) {
  constexpr int64_t kNear = int64_t{1} << 20;
  const auto near = [](int64_t x) { return static_cast<int>(x < -kNear ? -kNear : x > kNear ? kNear : x); };
  return {near(v.keys - 1 - n0), near(m0 + v.shift - n0),
          v.window_right >= 0 ? near(m0 + v.shift + v.window_right - n0) : 1 << 20, v.causal};
}

}  // namespace baracuda::kernels
