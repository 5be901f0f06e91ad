// Pad forward of short rows in tiles (common/row_tiles.h): a block stages
// the source rows of a run of whole output rows through shared memory, then
// writes the run as 16-byte
// vectors: those inside one row's interior as a shifted 16 bytes of the
// row's slot (or the fill, on a row of fill values), the edge vectors (pad
// columns, row ends) an element at a time into a vector a thread. A tile of
// short rows costs few instructions a byte: neither a staged vector nor a
// pad column takes a loop turn of its own.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstring>

#include "common/element_words.cuh"
#include "common/row_tiles.cuh"
#include "common/rows_tiling.cuh"
#include "pad/pad_tiles_heuristics.h"
#include "pad/pad_tiles_traits.h"

namespace baracuda::kernels {

constexpr int kTileThreads = PadTilesTraits::kThreads;

// Where output row g's window starts in the input (its outer axes mapped),
// or -1 for a row of fill values.
template <IndexMap M>
__device__ __forceinline__ int64_t pad_source_row(const RowsProblem &p, const RowTiles &t, int64_t g) {
  TileRowCoords rc(g);
  int64_t i = 0;
  bool fill = false;
#pragma unroll
  for (int d = kMaxRank - 2; d >= 0; --d) {
    if (d >= p.rank - 1) continue;
    const int64_t m = map_index<M>(rc.next(t, p.out_extent, d), p.pad_low[d], p.in_extent[d]);
    fill |= m < 0;
    i += m * p.in_stride[d];
  }
  return fill ? -1 : i;
}

// A forward tile's rows: where output column c of interior row r lies in the
// tile's slots (element origin[r] + c from the first slot), or kFillRow.
constexpr int32_t kFillRow = INT32_MIN;

// Output column c of a row whose slots start at element o (kFillRow: a row
// of fill values), in 32-bit arithmetic (pad_forward_takes_tiles bounds the
// inner axis so).
template <IndexMap M, class E>
__device__ __forceinline__ E tile_element(const E *slots, int32_t o, int32_t c, int32_t lo, int32_t n, E fill) {
  const int32_t i = c - lo;
  int32_t m;
  if constexpr (M == IndexMap::Constant) m = i >= 0 && i < n ? i : -1;
  else if constexpr (M == IndexMap::Reflect) m = i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i);
  else if constexpr (M == IndexMap::Replicate) m = i < 0 ? 0 : (i >= n ? n - 1 : i);
  else m = i < 0 ? i + n : (i >= n ? i - n : i);
  return o == kFillRow || m < 0 ? fill : slots[o + lo + m];
}

// The parameters are __grid_constant__, so that no thread copies them to its stack.
template <int Bytes, IndexMap M>
__global__ void __launch_bounds__(kTileThreads, PadTilesTraits::kTileMinBlocks)
    pad_forward_tiles_kernel(const __grid_constant__ RowsProblem p, const __grid_constant__ RowTiles t) {
  using E = typename Word<Bytes>::type;
  using P = Pack16<E>;
  constexpr int V = P::kCount;
  extern __shared__ uint4 tile_smem[];
  const TileSlots s = tile_slots(tile_smem, t, t.rows_per_block);
  int32_t *origin = tile_words(s, t.rows_per_block);
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * t.rows_per_block;
  const int32_t nrows = static_cast<int32_t>(t.rows - row0 < t.rows_per_block ? t.rows - row0 : t.rows_per_block);
  const int inner = p.rank - 1;
  const int64_t n = p.in_extent[inner], lo = p.pad_low[inner];
  for (int32_t r = threadIdx.x; r < nrows; r += kTileThreads) {
    const int64_t row = t.window > 0 ? pad_source_row<M>(p, t, row0 + r) : -1;
    set_slot_copies<Bytes>(s, r, p.in, t, row < 0 ? -1 : row + t.window_begin);
    origin[r] = row < 0 ? kFillRow
                        : r * (t.slot_vectors * (16 / Bytes)) + slot_phase<Bytes>(p.in, row + t.window_begin) -
                              static_cast<int32_t>(t.window_begin + lo);
  }
  __syncthreads();
  stage_tile_rows<Bytes>(p.in, t, nrows, s);
  __syncthreads();

  // The interior columns [a, b) of a row that reads its input; a row of fill
  // values is fill from 0 to width.
  const int32_t w = t.width;
  int32_t a, b;
  interior_columns(lo, n, w, a, b);
  E fill;
  memcpy(&fill, p.fill, Bytes);
  P fill_pack;
#pragma unroll
  for (int e = 0; e < V; ++e) fill_pack.elem[e] = fill;
  E *out = static_cast<E *>(p.out) + row0 * t.width;
  const TileVectors tv = tile_vectors<Bytes>(out, nrows * t.width);

  // The vectors inside one row's interior (or one row of fill values): a
  // shifted 16 bytes of the slots, or the fill.
  for (int32_t k = threadIdx.x; k < tv.count; k += kTileThreads) {
    const int32_t l0 = tv.first + k * V;
    if (l0 < 0) continue;
    int32_t r, c;
    tile_row_column(t, l0, r, c);
    const int32_t o = origin[r];
    if (o == kFillRow ? c + V > w : c < a || c + V > b) continue;
    *reinterpret_cast<uint4 *>(out + l0) = o == kFillRow ? fill_pack.vector : slot_vector<Bytes>(tile_smem, o + c);
  }

  // The edge vectors (pad columns, row ends), an element at a time into a
  // vector a thread; the tile's two end vectors store their own elements.
  const E *slots = reinterpret_cast<const E *>(tile_smem);
  const int32_t per_row = edge_vectors_per_row(w, a, b, V), lo32 = static_cast<int32_t>(lo);
  const int32_t n32 = static_cast<int32_t>(n);
  for (int32_t i = threadIdx.x; i < nrows * per_row; i += kTileThreads) {
    const int32_t r = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(i), t.edge_div)), o = origin[r];
    const bool fill_row = o == kFillRow;
    const int32_t l0 = edge_vector_start(tv.first, w, r, fill_row ? 0 : a, fill_row ? w : b, V, i - r * per_row, r == 0);
    if (l0 == INT32_MIN) continue;
    const int32_t c0 = l0 - r * w;
    if (l0 >= 0 && l0 + V <= tv.span && w >= V) {  // in row r, or across its end into row r + 1
      const int32_t next = c0 + V > w ? origin[r + 1] : kFillRow;
      P x;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const bool wraps = c0 + e >= w;
        x.elem[e] = tile_element<M>(slots, wraps ? next : o, wraps ? c0 + e - w : c0 + e, lo32, n32, fill);
      }
      *reinterpret_cast<uint4 *>(out + l0) = x.vector;
      continue;
    }
    for (int e = 0; e < V; ++e) {  // a tile end, or rows narrower than a vector
      const int32_t l = l0 + e;
      if (l < 0 || l >= tv.span) continue;
      const int32_t rr = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(l), t.width_div));
      out[l] = tile_element<M>(slots, origin[rr], l - rr * w, lo32, n32, fill);
    }
  }
}

// 0, 3 (UNSUPPORTED: over 2^31 blocks), or the negated CUDA error of the launch.
template <int Bytes, IndexMap M>
int launch_pad_forward_tiles(const RowsProblem &p, const RowTiles &t, cudaStream_t stream) {
  if (t.blocks > INT_MAX) return 3;
  int32_t a, b;
  interior_columns(p.pad_low[p.rank - 1], p.in_extent[p.rank - 1], t.width, a, b);
  RowTiles with_edges = t;
  with_edges.edge_div = fast_divisor(edge_vectors_per_row(t.width, a, b, 16 / Bytes));
  pad_forward_tiles_kernel<Bytes, M>
      <<<static_cast<unsigned>(t.blocks), kTileThreads, t.smem_bytes, stream>>>(p, with_edges);
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels
