// Pad backward of short rows in tiles (common/row_tiles.h): a block takes a
// run of whole dx rows and stages the dy rows that hold copies of them layer
// by layer: layer q holds the q-th source row of each dx row in
// for_each_copy_row's ascending order. Every dx cell adds, layer after
// layer, its inner sources in ascending order, starting from -0.0: the order
// the passes of pad_backward_impl.cuh sum it in, so the results are
// bit-identical to theirs. The 16-byte vectors of columns with one inner
// source each keep their sums in registers (a fixed few vectors a thread);
// the other cells (the columns of several sources, the vectors across row
// ends) keep theirs in shared memory, a cell a thread, so that no warp waits
// on a lane's element-by-element path.
#pragma once

#include <cuda_runtime.h>

#include <climits>

#include "common/accumulate.cuh"
#include "common/element_words.cuh"
#include "common/row_tiles.cuh"
#include "common/rows_tiling.cuh"
#include "pad/pad_backward_copies.cuh"
#include "pad/pad_tiles_heuristics.h"
#include "pad/pad_tiles_traits.h"

namespace baracuda::kernels {

constexpr int kBackwardTileThreads = PadTilesTraits::kThreads;

// dx row g's outer coordinates.
__device__ __forceinline__ void dx_row_coords(const RowsProblem &p, int64_t g, int64_t (&coord)[kMaxRank - 1]) {
  const int inner = p.rank - 1;
  RowCoords rc(g, p.out_extent, inner);
#pragma unroll
  for (int d = kMaxRank - 2; d >= 0; --d)
    if (d < inner) coord[d] = rc.next(p.out_extent[d]);
}

// Whether tile vector v is one a thread sums in registers: inside columns
// [a, b) of its row r (column c), from tile element l0.
template <int V>
__device__ __forceinline__ bool summed_vector(const RowTiles &t, const TileVectors &tv, int32_t v, int32_t a,
                                              int32_t b, int32_t &l0, int32_t &r, int32_t &c) {
  l0 = tv.first + v * V;
  if (v >= tv.count || l0 < 0) return false;
  tile_row_column(t, l0, r, c);
  return c >= a && c + V <= b;
}

// [a, b): dx columns with one inner source each (column c reads dy column
// c + pad_low); zone: edge_zone(width, a, b, V), the edge cells' sums a row
// in shared memory after the tile's slots.
template <class T, IndexMap M>
__global__ void __launch_bounds__(kBackwardTileThreads, PadTilesTraits::kSumMinBlocks)
    pad_backward_tiles_kernel(const __grid_constant__ RowsProblem p, const __grid_constant__ RowTiles t, int32_t a,
                              int32_t b, int32_t zone) {
  using A = typename Accum<T>::type;
  using P = Pack16<T>;
  constexpr int V = P::kCount;
  constexpr int K = PadTilesTraits::kSumElements / V;  // vectors per thread
  static_assert(K >= 1, "a thread sums at least one vector");
  constexpr int Bytes = sizeof(T);
  extern __shared__ uint4 tile_smem[];
  __shared__ int32_t s_layers;
  const TileSlots s = tile_slots(tile_smem, t);
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * t.rows_per_block;
  const int32_t nrows = static_cast<int32_t>(t.rows - row0 < t.rows_per_block ? t.rows - row0 : t.rows_per_block);
  const CopyAxes axes = dx_to_dy(p);

  // Layer 0 (every row's first source) is planned with the layer count; the
  // later layers only for the rows that have that many sources.
  __shared__ int32_t s_count[kMaxTileRows];
  if (threadIdx.x == 0) s_layers = 0;
  __syncthreads();
  for (int32_t r = threadIdx.x; r < nrows; r += kBackwardTileThreads) {
    int64_t coord[kMaxRank - 1];
    dx_row_coords(p, row0 + r, coord);
    const int64_t count = copy_row_count<M>(coord, axes);
    s_count[r] = static_cast<int32_t>(count < INT_MAX ? count : INT_MAX);
    atomicMax(&s_layers, s_count[r]);
    int64_t own = 0;  // the one source of a row that has one: its own dy row
#pragma unroll
    for (int d = 0; d < kMaxRank - 1; ++d)
      if (d < p.rank - 1) own += (coord[d] + p.pad_low[d]) * p.in_stride[d];
    set_tile_row<Bytes>(s, r, p.in, count == 1 ? own : nth_copy_row<M>(coord, axes, count, 0));
  }
  __syncthreads();
  const int32_t layers = s_layers;

  const int inner = p.rank - 1;
  const int64_t lo = p.pad_low[inner], n = p.out_extent[inner], m = p.in_extent[inner];
  T *out = static_cast<T *>(p.out) + row0 * t.width;
  const TileVectors tv = tile_vectors<Bytes>(out, nrows * t.width);
  A acc[K][V];
#pragma unroll
  for (int k = 0; k < K; ++k)
#pragma unroll
    for (int e = 0; e < V; ++e) acc[k][e] = A(-0.0);
  A *edge = reinterpret_cast<A *>(s.slot + static_cast<int64_t>(t.rows_per_block) * t.slot_vectors +
                                  (t.rows_per_block * 12 + 15) / 16);  // after the rows' offsets and phases
  const int32_t cells = nrows * zone;
  for (int32_t i = threadIdx.x; i < cells; i += kBackwardTileThreads) edge[i] = A(-0.0);

  for (int32_t layer = 0; layer < layers; ++layer) {
    if (layer > 0) {
      for (int32_t r = threadIdx.x; r < nrows; r += kBackwardTileThreads) {
        int64_t source = -1;
        if (layer < s_count[r]) {
          int64_t coord[kMaxRank - 1];
          dx_row_coords(p, row0 + r, coord);
          source = nth_copy_row<M>(coord, axes, s_count[r], layer);
        }
        set_tile_row<Bytes>(s, r, p.in, source);
      }
      __syncthreads();
    }
    stage_tile_rows<Bytes>(p.in, t, nrows, s);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < K; ++k) {
      int32_t l0, r, c;
      if (!summed_vector<V>(t, tv, threadIdx.x + k * kBackwardTileThreads, a, b, l0, r, c) || s.source[r] < 0) continue;
      P x;
      x.vector = slot_vector<Bytes>(s.slot + static_cast<int64_t>(r) * t.slot_vectors,
                                    s.phase[r] + static_cast<int32_t>(c + lo));
#pragma unroll
      for (int e = 0; e < V; ++e) acc[k][e] += Accum<T>::load(x.elem[e]);
    }
    for (int32_t i = threadIdx.x; i < cells; i += kBackwardTileThreads) {
      const int32_t r = i / zone;
      const int32_t c = edge_column(t, tv, r, a, b, V, i - r * zone);
      if (c == t.width || s.source[r] < 0) continue;
      const T *slot = reinterpret_cast<const T *>(s.slot + static_cast<int64_t>(r) * t.slot_vectors) + s.phase[r];
      const CopyRun run = copy_run<M>(c, lo, n, m);
      A sum = edge[i];
      if (run.before >= 0) sum += Accum<T>::load(slot[run.before]);
      for (int64_t j = run.begin; j < run.end; ++j) sum += Accum<T>::load(slot[j]);
      if (run.after >= 0) sum += Accum<T>::load(slot[run.after]);
      edge[i] = sum;
    }
    __syncthreads();  // before the next layer's rows overwrite the slots
  }

#pragma unroll
  for (int k = 0; k < K; ++k) {
    int32_t l0, r, c;
    if (!summed_vector<V>(t, tv, threadIdx.x + k * kBackwardTileThreads, a, b, l0, r, c)) continue;
    P x;
#pragma unroll
    for (int e = 0; e < V; ++e) x.elem[e] = Accum<T>::store(acc[k][e]);
    *reinterpret_cast<uint4 *>(out + l0) = x.vector;
  }
  for (int32_t i = threadIdx.x; i < cells; i += kBackwardTileThreads) {
    const int32_t r = i / zone;
    const int32_t c = edge_column(t, tv, r, a, b, V, i - r * zone);
    if (c < t.width) out[r * t.width + c] = Accum<T>::store(edge[i]);
  }
}

// 0, 3 (UNSUPPORTED: over 2^31 blocks), or the negated CUDA error of the launch.
template <class T, IndexMap M>
int launch_pad_backward_tiles(const RowsProblem &p, const RowTiles &t, int32_t a, int32_t b, int32_t zone,
                              cudaStream_t stream) {
  if (t.blocks > INT_MAX) return 3;
  pad_backward_tiles_kernel<T, M><<<static_cast<unsigned>(t.blocks), kBackwardTileThreads, t.smem_bytes, stream>>>(
      p, t, a, b, zone);
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels
