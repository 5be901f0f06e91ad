// Pad forward of short rows in slot tiles: as the row tiles of
// pad_forward_tiles.cuh, a block stages the source rows of a run of whole
// output rows into shared memory, but each into a slot that then takes the
// row's pad columns and the next row's first columns too
// (pad_forward_slots.h), so that every output vector is a shifted 16 bytes
// of one slot. A pad column costs one element written in shared memory, not
// an element picked for each vector that touches it (the row tiles' edge
// vectors: a quarter of a 16-bit rank-5 tile's vectors at some 8 picks
// each), and every vector across a row end is stored with its neighbours.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstring>

#include "common/async_copy.cuh"
#include "common/device_limits.h"
#include "common/element_words.cuh"
#include "common/row_tiles.cuh"
#include "common/rows_tiling.cuh"
#include "pad/pad_forward_slots.h"
#include "pad/pad_forward_tiles.cuh"
#include "pad/pad_tiles_heuristics.h"
#include "pad/pad_tiles_traits.h"

namespace baracuda::kernels {

// The input column a pad column c maps to (c - lo outside [0, n); not
// constant mode), in 32-bit arithmetic (pad_forward_takes_slot_tiles bounds the
// inner axis so).
template <IndexMap M>
__device__ __forceinline__ int32_t pad_column_source(int32_t c, int32_t lo, int32_t n) {
  const int32_t i = c - lo;
  if constexpr (M == IndexMap::Reflect) return i < 0 ? -i : 2 * (n - 1) - i;
  else if constexpr (M == IndexMap::Replicate) return i < 0 ? 0 : n - 1;
  else return i < 0 ? i + n : i - n;
}

// The 16 bytes from shared element `elem` on (any phase of the element
// width): two aligned loads and word selects, no branch, so that lanes
// whose rows have different phases do not diverge.
template <int Bytes>
__device__ __forceinline__ uint4 shifted_slot_vector(const uint4 *smem, int32_t elem) {
  const int32_t byte = elem * Bytes;
  const uint4 *at = smem + (byte >> 4);
  const uint4 lo = at[0], hi = at[1];
  const int32_t shift = byte & 15;
  const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  uint32_t y[7], x[5];
#pragma unroll
  for (int i = 0; i < 7; ++i) y[i] = shift & 4 ? w[i + 1] : w[i];
#pragma unroll
  for (int i = 0; i < 5; ++i) x[i] = shift & 8 ? y[i + 2] : y[i];
  const uint32_t bits = (shift & 3) * 8;
  return make_uint4(__funnelshift_r(x[0], x[1], bits), __funnelshift_r(x[1], x[2], bits),
                    __funnelshift_r(x[2], x[3], bits), __funnelshift_r(x[3], x[4], bits));
}

// Stages the first n slots (each from element `lead` of its stride, as
// set_slot_copies set from and copies): each 16-byte copy by its own thread,
// consecutive threads on consecutive vectors of a slot, all in flight
// together; windows at the input's two ends copy what leaves the input
// element by element. The caller commits the copies and waits for them.
template <int Bytes>
__device__ __forceinline__ void stage_slot_rows(const void *in, const PadSlotTiles &f, int32_t n, uint4 *slots,
                                                const TileSlots &s) {
  const RowTiles &t = f.t;
  // A thread copies vector v of rows k0, k0 + per, ... (a slot is at most
  // kTileThreads vectors), so that it finds its row and vector once.
  const int32_t per = static_cast<int32_t>(fast_divide_high(kTileThreads, t.slot_div));
  const int32_t k0 = static_cast<int32_t>(fast_divide_high(threadIdx.x, t.slot_div));
  const int32_t v = static_cast<int32_t>(threadIdx.x) - k0 * t.slot_vectors;
  if (k0 >= per) return;
  uint4 *to = slots + k0 * f.slot_stride + f.lead / (16 / Bytes) + v;
  for (int32_t k = k0; k < n; k += per, to += per * f.slot_stride) {
    const int32_t copies = s.copies[k];
    if (v < copies) async_copy16_prefetch128(to, reinterpret_cast<const void *>(s.from[k] + 16 * v));
    else if (copies < 0) stage_window_end_vector<Bytes>(in, t, s.from[k], v, to);
  }
}

// A tile's shared memory: its slots, then each slot's copies (TileSlots)
// and the shared element of its column 0.
struct PadSlotBuffer {
  TileSlots s;
  int32_t *origin;
};

__device__ __forceinline__ PadSlotBuffer pad_slot_buffer(uint4 *smem, const PadSlotTiles &f) {
  const int32_t rows = f.t.rows_per_block;
  PadSlotBuffer b;
  b.s.slot = smem;
  b.s.from = reinterpret_cast<int64_t *>(b.s.slot + rows * f.slot_stride);
  b.s.copies = reinterpret_cast<int32_t *>(b.s.from + rows);
  b.origin = b.s.copies + rows;
  return b;
}

// The input column a pad maps output coordinate c of an axis to (-1: the fill),
// in 32-bit arithmetic (PadSlotTiles: every extent and pad under 2^30).
template <IndexMap M>
__device__ __forceinline__ int32_t pad_axis_source(int32_t c, int32_t lo, int32_t n) {
  const int32_t i = c - lo;
  if constexpr (M == IndexMap::Constant) return static_cast<uint32_t>(i) < static_cast<uint32_t>(n) ? i : -1;
  else if constexpr (M == IndexMap::Reflect) return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i);
  else if constexpr (M == IndexMap::Replicate) return i < 0 ? 0 : (i >= n ? n - 1 : i);
  else return i < 0 ? i + n : (i >= n ? i - n : i);
}

// Where output row g's window starts in the input (its outer axes mapped),
// or -1 for a row of fill values; 32-bit, as the input's bytes are under
// 2^31 (pad_forward_takes_slot_tiles).
template <IndexMap M>
__device__ __forceinline__ int32_t pad_slot_source_row(const RowsProblem &p, const RowTiles &t, uint32_t g) {
  int32_t i = 0;
  bool fill = false;
  // A loop at run time (its parameters read with indexed loads in the warps
  // that set rows up), not unrolled over every axis a rank may have: the
  // unrolled form loaded every axis's parameters in the prologue of every warp.
#pragma unroll 1
  for (int d = p.rank - 2; d >= 0; --d) {
    const uint32_t q = fast_divide_high(g, t.outer_div[d]);
    const int32_t c = static_cast<int32_t>(g - q * static_cast<uint32_t>(p.out_extent[d]));
    g = q;
    const int32_t m =
        pad_axis_source<M>(c, static_cast<int32_t>(p.pad_low[d]), static_cast<int32_t>(p.in_extent[d]));
    fill |= m < 0;
    i += m * static_cast<int32_t>(p.in_stride[d]);
  }
  return fill ? -1 : i;
}

// The rows of the tile from row0 on: their copies and origins (as
// set_slot_copies, in 32-bit byte offsets from the input's 16-byte boundary);
// true where this thread found a row of fill values.
template <int Bytes, IndexMap M>
__device__ __forceinline__ bool set_slot_rows(const RowsProblem &p, const PadSlotTiles &f, const PadSlotBuffer &b,
                                              int64_t row0, int32_t nrows) {
  const RowTiles &t = f.t;
  constexpr int V = 16 / Bytes;
  const int inner = p.rank - 1;
  const int32_t begin = static_cast<int32_t>(t.window_begin);
  const uintptr_t in = reinterpret_cast<uintptr_t>(p.in), in16 = in & ~uintptr_t{15};
  const int32_t phase = static_cast<int32_t>(in & 15u), in_end = phase + static_cast<int32_t>(t.source_span) * Bytes;
  const int32_t shift = f.lead - static_cast<int32_t>(p.pad_low[inner]) - begin;
  bool fill_rows = false;
  for (int32_t r = threadIdx.x; r < nrows; r += kTileThreads) {
    const int32_t row = t.window > 0 ? pad_slot_source_row<M>(p, t, static_cast<uint32_t>(row0 + r)) : -1;
    const int32_t first = phase + (row + begin) * Bytes, first16 = first & ~15;
    const int32_t end16 = (first + t.window * Bytes + 15) & ~15;
    const bool inside = first16 >= 0 && end16 <= in_end;
    b.s.from[r] = row < 0 ? -1 : inside ? static_cast<int64_t>(in16 + first16) : static_cast<int64_t>(row) + begin;
    b.s.copies[r] = row < 0 ? 0 : inside ? (end16 - first16) / 16 : -1;
    b.origin[r] = r * f.slot_stride * V + (row < 0 ? 0 : shift + (first & 15) / Bytes);
    fill_rows |= row < 0;
  }
  return fill_rows;
}

// Once every thread's copies have landed: rows of fill values, then every
// row's pad columns and, after them, the next row's first f.overhang columns
// (from the staged columns, or the fill). Syncs the block before, and after
// where it wrote any.
template <int Bytes, IndexMap M>
__device__ __forceinline__ void complete_slot_rows(const RowsProblem &p, const PadSlotTiles &f, const PadSlotBuffer &b,
                                                   int32_t nrows, bool fill_rows) {
  using E = typename Word<Bytes>::type;
  using P = Pack16<E>;
  constexpr int V = P::kCount;
  const int inner = p.rank - 1;
  const int32_t lo = static_cast<int32_t>(p.pad_low[inner]), n = static_cast<int32_t>(p.in_extent[inner]);
  const int32_t stride = f.slot_stride, w = f.t.width;
  E fill;
  memcpy(&fill, p.fill, Bytes);
  E *slots = reinterpret_cast<E *>(b.s.slot);
  if (M == IndexMap::Constant && fill_rows) {  // rows on an outer pad: their slots all fill
    P fill_pack;
#pragma unroll
    for (int e = 0; e < V; ++e) fill_pack.elem[e] = fill;
    for (int32_t r = threadIdx.x / 32; r < nrows; r += kTileThreads / 32)
      if (b.s.from[r] < 0)
        for (int32_t v = threadIdx.x % 32; v < stride; v += 32) b.s.slot[r * stride + v] = fill_pack.vector;
  }
  __syncthreads();
  const int32_t items = f.pad_columns + f.overhang;
  if (items == 0) return;
  const int32_t a = f.interior_begin, c1 = f.interior_end;
  // A thread writes item j (a pad column, or a column of the next row) of
  // rows r0, r0 + per, ... (more items than threads: items j, j +
  // kTileThreads, ... of every row), so that it places its column once.
  const bool few = items <= kTileThreads;
  const int32_t per = few ? static_cast<int32_t>(fast_divide_high(kTileThreads, f.item_div)) : 1;
  const int32_t r0 = few ? static_cast<int32_t>(fast_divide_high(threadIdx.x, f.item_div)) : 0;
  if (r0 < per) {
    for (int32_t j = static_cast<int32_t>(threadIdx.x) - r0 * items; j < items; j += kTileThreads) {
      const bool next_row = j >= f.pad_columns;  // column c of the next row (a fill row: its slot fills)
      const int32_t c = next_row ? j - f.pad_columns : j < a ? j : c1 + (j - a);
      const bool interior = next_row && c >= a && c < c1, fill_value = M == IndexMap::Constant && !interior;
      const int32_t from = interior || M == IndexMap::Constant ? c : lo + pad_column_source<M>(c, lo, n);
      const int32_t to = next_row ? w + c : c;
      for (int32_t r = r0; r < nrows - (next_row ? 1 : 0); r += per) {
        const int32_t o = b.origin[r];
        slots[o + to] = fill_value ? fill : slots[(next_row ? b.origin[r + 1] : o) + from];
      }
    }
  }
  __syncthreads();
}

// Every output vector of the tile a shifted 16 bytes of the slot of the row
// it starts in (rows at least a vector wide: a vector ends in the next row's
// first V - 1 columns at most, which the slot holds, f.overhang, wherever a
// vector crosses a row end); the tile's two end vectors (every vector, for
// rows narrower than one) store their elements one by one.
template <int Bytes>
__device__ __forceinline__ void store_slot_rows(const RowsProblem &p, const PadSlotTiles &f, const PadSlotBuffer &b,
                                                int64_t row0, int32_t nrows) {
  using E = typename Word<Bytes>::type;
  constexpr int V = 16 / Bytes;
  const int32_t w = f.t.width;
  const E *slots = reinterpret_cast<const E *>(b.s.slot);
  E *out = static_cast<E *>(p.out) + row0 * w;
  const TileVectors tv = tile_vectors<Bytes>(out, nrows * w);
  // Vectors [whole0, whole1) lie inside the tile (whole rows are at least a
  // vector wide); the one before and the one after, if any, are its ends.
  const int32_t whole0 = tv.first < 0 ? 1 : 0, whole1 = (tv.span - tv.first) / V;
  for (int32_t k = whole0 + threadIdx.x; k < whole1; k += kTileThreads) {
    const int32_t l0 = tv.first + k * V;
    const int32_t r = static_cast<int32_t>(fast_divide_high(static_cast<uint32_t>(l0), f.t.width_div)), c = l0 - r * w;
    *reinterpret_cast<uint4 *>(out + l0) = shifted_slot_vector<Bytes>(b.s.slot, b.origin[r] + c);
  }
  if (threadIdx.x >= 2) return;
  const int32_t k = threadIdx.x == 0 ? (whole0 == 1 ? 0 : -1) : (whole1 < tv.count && whole1 >= whole0 ? whole1 : -1);
  if (k < 0) return;
  for (int e = 0; e < V; ++e) {
    const int32_t l = tv.first + k * V + e;
    if (l < 0 || l >= tv.span) continue;
    const int32_t r = static_cast<int32_t>(fast_divide_high(static_cast<uint32_t>(l), f.t.width_div));
    out[l] = slots[b.origin[r] + l - r * w];
  }
}

// One tile a block. The parameters are __grid_constant__, so that no
// thread copies them to its stack.
template <int Bytes, IndexMap M>
__global__ void __launch_bounds__(kTileThreads, PadTilesTraits::slot_blocks_per_sm(Bytes))
    pad_forward_slot_tiles_kernel(const __grid_constant__ RowsProblem p, const __grid_constant__ PadSlotTiles f) {
  extern __shared__ uint4 tile_smem[];
  const PadSlotBuffer b = pad_slot_buffer(tile_smem, f);
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * f.t.rows_per_block;
  const int32_t nrows = static_cast<int32_t>(f.t.rows - row0 < f.t.rows_per_block ? f.t.rows - row0 : f.t.rows_per_block);
  const bool fill_rows = __syncthreads_or(set_slot_rows<Bytes, M>(p, f, b, row0, nrows));
  stage_slot_rows<Bytes>(p.in, f, nrows, b.s.slot, b.s);
  async_copy_commit();
  async_copy_wait<0>();
  complete_slot_rows<Bytes, M>(p, f, b, nrows, fill_rows);
  store_slot_rows<Bytes>(p, f, b, row0, nrows);
}

// 0, 3 (UNSUPPORTED: over 2^31 blocks), or the negated CUDA error of a
// device query or the launch. At most PadTilesTraits::slot_blocks_per_sm
// blocks an SM of this device (smem_for_blocks_per_sm).
template <int Bytes, IndexMap M>
int launch_pad_forward_slot_tiles(const RowsProblem &p, const PadSlotTiles &f, cudaStream_t stream) {
  if (f.t.blocks > INT_MAX) return 3;
  DeviceLimits limits;
  if (const cudaError_t err = current_device_limits(limits); err != cudaSuccess) return -static_cast<int>(err);
  const uint32_t smem = smem_for_blocks_per_sm(f.t.smem_bytes, limits.smem_per_sm, limits.reserved_smem_per_block,
                                               PadTilesTraits::slot_blocks_per_sm(Bytes));
  pad_forward_slot_tiles_kernel<Bytes, M><<<static_cast<unsigned>(f.t.blocks), kTileThreads, smem, stream>>>(p, f);
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels
