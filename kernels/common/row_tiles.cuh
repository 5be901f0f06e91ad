// The device side of row tiles (row_tiles.h): a tile's shared memory, its
// source rows staged with asynchronous 16-byte copies, and the 16-byte
// output vectors it writes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/async_copy.cuh"
#include "common/element_words.cuh"
#include "common/row_tiles.h"
#include "common/shifted_load.cuh"

namespace baracuda::kernels {

#ifdef __CUDACC__

// A tile's shared memory: slot r (slot_vectors 16-byte vectors from
// slot + r * slot_vectors) holds a source row's window, staged from the
// 16-byte boundary at or before the window's first element; source[r] is
// that element's offset into the input (-1: nothing staged), phase[r] how
// many elements precede it in the slot. A forward tile has a slot a row.
struct TileSlots {
  uint4 *slot;
  int64_t *source;
  int32_t *phase;
};

__device__ __forceinline__ TileSlots tile_slots(uint4 *smem, const RowTiles &t, int32_t slots) {
  TileSlots s;
  s.slot = smem;
  s.source = reinterpret_cast<int64_t *>(smem + static_cast<int64_t>(slots) * t.slot_vectors);
  s.phase = reinterpret_cast<int32_t *>(s.source + slots);
  return s;
}

// Slot r stages the window that starts at input element `source` (-1: none).
template <int Bytes>
__device__ __forceinline__ void set_tile_row(const TileSlots &s, int32_t r, const void *in, int64_t source) {
  s.source[r] = source;
  const uintptr_t at = reinterpret_cast<uintptr_t>(static_cast<const unsigned char *>(in) + source * Bytes);
  s.phase[r] = static_cast<int32_t>((at & 15u) / Bytes);
}

// Stages the windows of the tile's first nrows slots (as set_tile_row set
// them): each 16-byte vector a window touches as an
// asynchronous copy, all in flight together, where the vector lies inside
// the input's span (its bytes beyond the window land in the slot unread);
// the elements of the few others (at the input's two ends) one by one, so
// that no read leaves the input. Returns once this thread's copies have
// landed; the caller syncs the block before reading the slots.
template <int Bytes>
__device__ __forceinline__ void stage_tile_rows(const void *in, const RowTiles &t, int32_t nrows,
                                                const TileSlots &s) {
  using E = typename Word<Bytes>::type;
  const int32_t total = nrows * t.slot_vectors;
  const uintptr_t in_begin = reinterpret_cast<uintptr_t>(in), in_end = in_begin + t.source_span * Bytes;
  for (int32_t f = threadIdx.x; f < total; f += blockDim.x) {
    const int32_t r = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(f), t.slot_div));
    const int32_t k = f - r * t.slot_vectors;
    const int64_t source = s.source[r];
    if (source < 0) continue;
    const uintptr_t first = reinterpret_cast<uintptr_t>(static_cast<const unsigned char *>(in) + source * Bytes);
    const uintptr_t end = first + static_cast<uintptr_t>(t.window) * Bytes;
    const uintptr_t chunk = (first & ~uintptr_t{15}) + 16u * static_cast<uint32_t>(k);
    uint4 *to = s.slot + static_cast<int64_t>(r) * t.slot_vectors + k;
    if (chunk >= end) continue;
    if (chunk >= in_begin && chunk + 16 <= in_end) {
      async_copy16(to, reinterpret_cast<const void *>(chunk));
      continue;
    }
#pragma unroll
    for (int j = 0; j < 16 / Bytes; ++j) {
      const uintptr_t at = chunk + j * Bytes;
      if (at >= first && at < end) reinterpret_cast<E *>(to)[j] = *reinterpret_cast<const E *>(at);
    }
  }
  async_copy_commit();
  async_copy_wait<0>();
}

// The 16 bytes of a slot from its element `elem` on (any 16-byte phase):
// two aligned shared loads and a funnel shift.
template <int Bytes>
__device__ __forceinline__ uint4 slot_vector(const uint4 *slot, int32_t elem) {
  const int32_t byte = elem * Bytes;
  const uint4 *v = slot + (byte >> 4);
  const int shift = byte & 15;
  return combine16(Pair16{v[0], shift ? v[1] : v[0]}, shift);
}

template <int Bytes>
__device__ __forceinline__ typename Word<Bytes>::type slot_element(const uint4 *slot, int32_t elem) {
  return reinterpret_cast<const typename Word<Bytes>::type *>(slot)[elem];
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

// Row r's q-th column (q < edge_zone(...)) outside the vectors inside its
// columns [a, b), or t.width where it has fewer: the columns before its
// first such vector, then those from the end of its last.
__device__ __forceinline__ int32_t edge_column(const RowTiles &t, const TileVectors &tv, int32_t r, int32_t a,
                                               int32_t b, int32_t v, int32_t q) {
  const int32_t row = r * t.width, x = row + a, y = row + b;
  const int32_t first = x + ((tv.first - x) & (v - 1)), last = y - ((y - tv.first) & (v - 1));
  const int32_t left = last - first >= v ? first - row : t.width;
  const int32_t c = q < left ? q : (last - row) + (q - left);
  return c < t.width ? c : t.width;
}

#endif  // __CUDACC__

}  // namespace baracuda::kernels
