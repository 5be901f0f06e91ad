// The device side of row tiles (row_tiles.h): a tile's shared memory, and
// the 16-byte output vectors it writes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/element_words.cuh"
#include "common/row_tiles.h"
#include "common/shifted_load.cuh"

namespace baracuda::kernels {

#ifdef __CUDACC__

// A backward tile's shared memory: slot k (slot_vectors 16-byte vectors
// from slot + k * slot_vectors) holds a source row, staged from the 16-byte
// boundary at or before its first element (common/slot_staging.cuh);
// phase[k] is how many elements precede that one in the slot.
struct TileSlots {
  uint4 *slot;
  int32_t *phase;
};

__device__ __forceinline__ TileSlots tile_slots(uint4 *smem, const RowTiles &t, int32_t slots) {
  TileSlots s;
  s.slot = smem;
  s.phase = reinterpret_cast<int32_t *>(smem + static_cast<int64_t>(slots) * t.slot_vectors);
  return s;
}

// Row g of a tile's problem (g < 2^31) split into its outer coordinates,
// innermost first, by calls to next(d) for d from rank - 2 down to 0, each a
// multiply-shift division (a 32-bit division is some twenty instructions).
// Callers unroll over d, so that each divisor is a parameter at a constant offset.
struct TileRowCoords {
  uint32_t rest;
  __device__ explicit TileRowCoords(int64_t g) : rest(static_cast<uint32_t>(g)) {}
  __device__ int64_t next(const RowTiles &t, const int64_t *extent, int d) {
    const uint32_t q = fast_divide(rest, t.outer_div[d]);
    const uint32_t c = rest - q * static_cast<uint32_t>(extent[d]);
    rest = q;
    return c;
  }
};

// The 16 bytes of a slot from its element `elem` on (any 16-byte phase):
// two aligned shared loads and a funnel shift.
template <int Bytes>
__device__ __forceinline__ uint4 slot_vector(const uint4 *slot, int32_t elem) {
  const int32_t byte = elem * Bytes;
  const uint4 *v = slot + (byte >> 4);
  const int shift = byte & 15;
  return combine16(Pair16{v[0], shift ? v[1] : v[0]}, shift);
}

// The 16-byte output vectors of a tile of `span` contiguous elements:
// vector v holds the tile's elements [first + v * V, first + v * V + V)
// (those of them in [0, span)), first <= 0 being where the 16-byte
// boundary at or before the tile's first element falls.
struct TileVectors {
  int32_t first, count, span;
};

template <int Bytes>
__device__ __forceinline__ TileVectors tile_vectors(const void *tile_start, int32_t span) {
  constexpr int32_t V = 16 / Bytes;
  TileVectors tv;
  tv.first = -static_cast<int32_t>((reinterpret_cast<uintptr_t>(tile_start) & 15u) / Bytes);
  tv.span = span;
  tv.count = (span - tv.first + V - 1) / V;
  return tv;
}

// Tile-relative element l as its row and column.
__device__ __forceinline__ void tile_row_column(const RowTiles &t, int32_t l, int32_t &r, int32_t &c) {
  r = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(l), t.width_div));
  c = l - r * t.width;
}

#endif  // __CUDACC__

}  // namespace baracuda::kernels
