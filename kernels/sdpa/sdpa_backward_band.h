// Which keys a query sees, as a band of the (query, key) plane, and the tile
// ranges of the backward that follow from it. Host-device, so that the CPU
// tests can check the ranges the kernel walks.
//
// Key j is visible to query i when j <= i + shift + upper (causal and/or
// window_right) and, with a left window, j >= i + shift - left; shift is
// K - Q for the bottom-right alignment, else 0.
#pragma once

#include <cstdint>

#include "common/host_device.h"
#include "sdpa/sdpa_problem.h"

namespace baracuda::kernels::sdpa {

struct Band {
  int64_t shift;
  int64_t upper;  // kUnbounded: no causal mask, no right window
  int64_t left;   // < 0: no left window
  static constexpr int64_t kUnbounded = INT64_C(1) << 62;
};

BARACUDA_HOST_DEVICE_INLINE Band band_of(const SdpaProblem &p) {
  Band b;
  b.shift = p.bottom_right ? p.keys - p.queries : 0;
  b.upper = p.window_right >= 0 ? p.window_right : Band::kUnbounded;
  if (p.causal && b.upper > 0) b.upper = 0;
  b.left = p.window_left;
  return b;
}

// Query tiles [first, last] (of `queries`-row tiles, clamped to the Q extent)
// that meet the keys [key0, key0 + keys): last < first when none does.
struct TileRange {
  int64_t first, last;
};
BARACUDA_HOST_DEVICE_INLINE TileRange query_tiles_of_key_tile(const Band &b, int64_t key0, int keys, int queries,
                                                             int64_t num_queries) {
  // A query i meets the tile when i + shift + upper >= key0 and, with a left
  // window, i + shift - left <= key0 + keys - 1.
  int64_t lo = b.upper == Band::kUnbounded ? 0 : key0 - b.upper - b.shift;
  int64_t hi = b.left < 0 ? num_queries - 1 : key0 + keys - 1 + b.left - b.shift;
  if (lo < 0) lo = 0;
  if (hi > num_queries - 1) hi = num_queries - 1;
  if (hi < lo) return {0, -1};
  return {lo / queries, hi / queries};
}

// The last key tile that meets query tile m (of `queries`-row tiles, clamped
// to the Q and K extents): the deterministic backward adds the key tiles' dQ
// parts in descending key-tile order, this one first. Descending, because a
// key tile walks its query tiles upwards from its own diagonal, so under a
// causal mask the key tiles of query tile m reach it in that order and none
// waits for its turn.
BARACUDA_HOST_DEVICE_INLINE int64_t last_key_tile_of_query_tile(const Band &b, int64_t m, int keys, int queries,
                                                                int64_t num_queries, int64_t num_keys) {
  const int64_t last_tile = (num_keys - 1) / keys;
  if (b.upper == Band::kUnbounded) return last_tile;
  // The tile's last query row sees keys up to i + shift + upper.
  const int64_t last_row = (m + 1) * queries - 1 < num_queries - 1 ? (m + 1) * queries - 1 : num_queries - 1;
  const int64_t last_key = last_row + b.shift + b.upper;
  const int64_t tile = last_key < 0 ? -1 : last_key / keys;
  return tile < last_tile ? tile : last_tile;
}

// Whether every (query, key) pair of the two tiles is visible and in range,
// so the kernel may skip the per-element mask.
BARACUDA_HOST_DEVICE_INLINE bool tile_fully_visible(const Band &b, int64_t q0, int queries, int64_t key0, int keys,
                                                    int64_t num_queries, int64_t num_keys) {
  if (q0 + queries > num_queries || key0 + keys > num_keys) return false;
  if (b.upper != Band::kUnbounded && key0 + keys - 1 > q0 + b.shift + b.upper) return false;
  if (b.left >= 0 && key0 < q0 + queries - 1 + b.shift - b.left) return false;
  return true;
}

// Whether the deterministic mode's blocks take a batch's key tiles by rank
// (every kv head's last key tile, then every kv head's one before it ...)
// rather than a kv head's key tiles in turn. A key tile adds its part of a
// query tile's dq after the key tiles above it: with no bound on the keys
// every key tile meets every query tile, and a kv head's key tiles started
// together queue up on the first query tile, a chain of key_tiles turns
// before the last of them starts; where that chain is as long as a key
// tile's walk over the query tiles or longer, starting them by rank, a few
// of each kv head at a time, leaves the later ranks query tiles already
// passed (bench/NOTES.md, session 19, H200, bf16 TFLOP/s: B8 H16 S2048 D 256,
// 32 key tiles over 16 query tiles, 149 -> 191; B16 H16 S1024 D 64, 16 over
// 16, 133 -> 150; B4 H32 S4096 D 128, 32 over 64, 222 -> 212; under a causal
// mask, whose key tiles meet the query tiles in the order of their turns,
// by rank lost 2-9%). The atomic grid holds 65535 key tiles.
BARACUDA_HOST_DEVICE_INLINE bool deterministic_by_rank(const Band &b, int64_t key_tiles, int64_t query_tiles) {
  return b.upper == Band::kUnbounded && b.left < 0 && key_tiles >= query_tiles && key_tiles <= 65535;
}

}  // namespace baracuda::kernels::sdpa
