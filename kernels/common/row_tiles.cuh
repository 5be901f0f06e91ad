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

// A tile's shared memory: slot k (slot_vectors 16-byte vectors from
// slot + k * slot_vectors) holds a source row, staged from the 16-byte
// boundary at or before its first element, as from[k] and copies[k] say
// (set_slot_copies); the kernel keeps a word a slot after them (tile_words).
struct TileSlots {
  uint4 *slot;
  int64_t *from;
  int32_t *copies;
};

__device__ __forceinline__ TileSlots tile_slots(uint4 *smem, const RowTiles &t, int32_t slots) {
  TileSlots s;
  s.slot = smem;
  s.from = reinterpret_cast<int64_t *>(smem + static_cast<int64_t>(slots) * t.slot_vectors);
  s.copies = reinterpret_cast<int32_t *>(s.from + slots);
  return s;
}

// The kernel's word a slot (the backward's phases, the forward's origins).
__device__ __forceinline__ int32_t *tile_words(const TileSlots &s, int32_t slots) { return s.copies + slots; }

// How many elements precede input element `source` in its slot.
template <int Bytes>
__device__ __forceinline__ int32_t slot_phase(const void *in, int64_t source) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(static_cast<const unsigned char *>(in) + source * Bytes);
  return static_cast<int32_t>((at & 15u) / Bytes);
}

// A slot that stages the window from input element `source` (-1: nothing):
// from the input address of its first 16-byte copy, copies how many fill it; a
// window whose copies would reach outside the input (at its two ends) keeps
// its first element's offset and -1, and is staged vector by vector with
// the copies that would leave the input element by element.
template <int Bytes>
__device__ __forceinline__ void slot_copies(const void *in, const RowTiles &t, int64_t source, int64_t &from,
                                            int32_t &copies) {
  const uintptr_t in_begin = reinterpret_cast<uintptr_t>(in), in_end = in_begin + t.source_span * Bytes;
  const uintptr_t first = in_begin + source * Bytes, end = first + static_cast<uintptr_t>(t.window) * Bytes;
  const uintptr_t begin16 = first & ~uintptr_t{15}, end16 = (end + 15) & ~uintptr_t{15};
  const bool inside = begin16 >= in_begin && end16 <= in_end;
  from = source < 0 || !inside ? source : static_cast<int64_t>(begin16);
  copies = source < 0 ? 0 : inside ? static_cast<int32_t>((end16 - begin16) / 16) : -1;
}

// Slot k's copies, as slot_copies gives them.
template <int Bytes>
__device__ __forceinline__ void set_slot_copies(const TileSlots &s, int32_t k, const void *in, const RowTiles &t,
                                                int64_t source) {
  slot_copies<Bytes>(in, t, source, s.from[k], s.copies[k]);
}

// Vector v of a window at the input's ends (set_slot_copies's copies -1,
// from its first element `source`) into `to`: a 16-byte copy where it lies
// inside the input, the window's elements one by one where it does not.
template <int Bytes>
__device__ __forceinline__ void stage_window_end_vector(const void *in, const RowTiles &t, int64_t source, int32_t v,
                                                        uint4 *to) {
  using E = typename Word<Bytes>::type;
  const uintptr_t in_begin = reinterpret_cast<uintptr_t>(in), in_end = in_begin + t.source_span * Bytes;
  const uintptr_t first = in_begin + source * Bytes, end = first + static_cast<uintptr_t>(t.window) * Bytes;
  const uintptr_t chunk = (first & ~uintptr_t{15}) + 16u * static_cast<uint32_t>(v);
  if (chunk >= end) return;
  if (chunk >= in_begin && chunk + 16 <= in_end) {
    async_copy16(to, reinterpret_cast<const void *>(chunk));
    return;
  }
#pragma unroll
  for (int j = 0; j < 16 / Bytes; ++j) {
    const uintptr_t at = chunk + j * Bytes;
    if (at >= first && at < end) reinterpret_cast<E *>(to)[j] = *reinterpret_cast<const E *>(at);
  }
}

// Stages the first n slots as set_slot_copies set them: each 16-byte copy
// by its own thread, all in flight together (consecutive threads copy
// consecutive vectors of a slot, so that a warp's copies of a row are whole
// sectors; a bulk copy a row, by the copy engine, ran 1-5 points of copy
// slower, bench/NOTES.md session 18). Returns once this thread's copies
// have landed; the caller syncs the block before reading the slots.
template <int Bytes>
__device__ __forceinline__ void stage_tile_rows(const void *in, const RowTiles &t, int32_t n, const TileSlots &s) {
  const int32_t total = n * t.slot_vectors;
  for (int32_t f = threadIdx.x; f < total; f += blockDim.x) {
    const int32_t k = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(f), t.slot_div));
    const int32_t v = f - k * t.slot_vectors, copies = s.copies[k];
    if (v < copies) async_copy16(s.slot + f, reinterpret_cast<const void *>(s.from[k] + 16 * v));
    if (copies >= 0) continue;
    stage_window_end_vector<Bytes>(in, t, s.from[k], v, s.slot + f);
  }
  async_copy_commit();
  async_copy_wait<0>();
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
