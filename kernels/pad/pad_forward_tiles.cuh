// Pad forward of short rows in tiles (common/row_tiles.h): a block stages
// the source rows of a run of whole output rows through shared memory, then
// writes the run as 16-byte vectors where a vector lies inside one row's
// interior (a shifted 16 bytes of the row's slot) or one row of fill values,
// and the few elements left (pad columns, vectors across row ends) an
// element a thread, so that no warp waits on a lane's element-by-element path
// and no element is loaded from global memory on its own.
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
__device__ __forceinline__ int64_t pad_source_row(const RowsProblem &p, int64_t g) {
  const int inner = p.rank - 1;
  RowCoords rc(g, p.out_extent, inner);
  int64_t i = 0;
  bool fill = false;
  for (int d = inner - 1; d >= 0; --d) {
    const int64_t m = map_index<M>(rc.next(p.out_extent[d]), p.pad_low[d], p.in_extent[d]);
    fill |= m < 0;
    i += m * p.in_stride[d];
  }
  return fill ? -1 : i;
}

// The parameters are __grid_constant__, so that no thread copies them to its stack.
template <int Bytes, IndexMap M>
__global__ void __launch_bounds__(kTileThreads)
    pad_forward_tiles_kernel(const __grid_constant__ RowsProblem p, const __grid_constant__ RowTiles t) {
  using E = typename Word<Bytes>::type;
  using P = Pack16<E>;
  constexpr int V = P::kCount;
  extern __shared__ uint4 tile_smem[];
  const TileSlots s = tile_slots(tile_smem, t, t.rows_per_block);
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * t.rows_per_block;
  const int32_t nrows = static_cast<int32_t>(t.rows - row0 < t.rows_per_block ? t.rows - row0 : t.rows_per_block);
  for (int32_t r = threadIdx.x; r < nrows; r += kTileThreads) {
    const int64_t source = t.window > 0 ? pad_source_row<M>(p, row0 + r) : -1;
    set_tile_row<Bytes>(s, r, p.in, source < 0 ? -1 : source + t.window_begin);
  }
  __syncthreads();
  stage_tile_rows<Bytes>(p.in, t, nrows, s);
  __syncthreads();

  const int inner = p.rank - 1;
  const int64_t n = p.in_extent[inner], lo = p.pad_low[inner];
  // The interior columns [a, b) of a row that reads its input; a row of fill
  // values is fill from 0 to width.
  const int64_t w = t.width;
  const int32_t a = static_cast<int32_t>(lo < 0 ? 0 : lo > w ? w : lo);
  const int32_t b = static_cast<int32_t>(lo + n < a ? a : lo + n > w ? w : lo + n);
  E fill;
  memcpy(&fill, p.fill, Bytes);
  P fill_pack;
#pragma unroll
  for (int e = 0; e < V; ++e) fill_pack.elem[e] = fill;
  E *out = static_cast<E *>(p.out) + row0 * t.width;
  const TileVectors tv = tile_vectors<Bytes>(out, nrows * t.width);

  // The vectors inside one row's interior (or one row of fill values): a
  // shifted 16 bytes of the row's slot, or the fill.
  for (int32_t v = threadIdx.x; v < tv.count; v += kTileThreads) {
    const int32_t l0 = tv.first + v * V;
    if (l0 < 0) continue;
    int32_t r, c;
    tile_row_column(t, l0, r, c);
    const bool fill_row = s.source[r] < 0;
    if (c < (fill_row ? 0 : a) || c + V > (fill_row ? t.width : b)) continue;
    const uint4 *slot = s.slot + static_cast<int64_t>(r) * t.slot_vectors;
    *reinterpret_cast<uint4 *>(out + l0) =
        fill_row ? fill_pack.vector : slot_vector<Bytes>(slot, s.phase[r] + static_cast<int32_t>(c - lo - t.window_begin));
  }

  // The rest, an element a thread: the pad columns, the vectors across row
  // ends and the tile's ends.
  const int32_t zone = edge_zone(t.width, a, b, V);
  for (int32_t i = threadIdx.x; i < nrows * zone; i += kTileThreads) {
    const int32_t r = i / zone;
    const bool fill_row = s.source[r] < 0;
    const int32_t c = edge_column(t, tv, r, fill_row ? 0 : a, fill_row ? t.width : b, V, i - r * zone);
    if (c == t.width) continue;
    E value = fill;
    if (!fill_row) {
      const int64_t m = map_index<M>(c, lo, n);
      if (m >= 0)
        value = slot_element<Bytes>(s.slot + static_cast<int64_t>(r) * t.slot_vectors,
                                    s.phase[r] + static_cast<int32_t>(m - t.window_begin));
    }
    out[r * t.width + c] = value;
  }
}

// 0, 3 (UNSUPPORTED: over 2^31 blocks), or the negated CUDA error of the launch.
template <int Bytes, IndexMap M>
int launch_pad_forward_tiles(const RowsProblem &p, const RowTiles &t, cudaStream_t stream) {
  if (t.blocks > INT_MAX) return 3;
  pad_forward_tiles_kernel<Bytes, M><<<static_cast<unsigned>(t.blocks), kTileThreads, t.smem_bytes, stream>>>(p, t);
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels
