// Pad backward of short rows in tiles (common/row_tiles.h): a block takes a
// run of whole dx rows, each thread keeping the sums of a fixed few of the
// run's 16-byte vectors in registers, and stages the dy rows that hold
// copies of them layer by layer: layer q holds the q-th source row of each
// dx row in for_each_copy_row's ascending order. Every dx cell adds, layer
// after layer, its inner sources in ascending order, starting from -0.0:
// the order the passes of pad_backward_impl.cuh sum it in, so the results
// are bit-identical to theirs. A vector whose columns have one inner source
// each sums a shifted 16 bytes of the slot; the others go element by element.
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

// [single_begin, single_end): dx columns with one inner source each (column c reads dy column c + pad_low).
template <class T, IndexMap M>
__global__ void __launch_bounds__(kBackwardTileThreads, PadTilesTraits::kSumMinBlocks)
    pad_backward_tiles_kernel(const __grid_constant__ RowsProblem p, const __grid_constant__ RowTiles t,
                              int64_t single_begin, int64_t single_end) {
  using A = typename Accum<T>::type;
  using P = Pack16<T>;
  constexpr int V = P::kCount;
  constexpr int K = PadTilesTraits::kSumElements / V;  // vectors per thread
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
    set_tile_row<Bytes>(s, r, p.in, nth_copy_row<M>(coord, axes, count, 0));
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
      const int32_t v = threadIdx.x + k * kBackwardTileThreads;
      if (v >= tv.count) continue;
      const int32_t l0 = tv.first + v * V;
      if (l0 >= 0 && l0 + V <= tv.span) {
        int32_t r, c;
        tile_row_column(t, l0, r, c);
        if (c + V <= t.width && c >= single_begin && c + V <= single_end) {
          if (s.source[r] < 0) continue;
          P x;
          x.vector = slot_vector<Bytes>(s.slot + static_cast<int64_t>(r) * t.slot_vectors,
                                        s.phase[r] + static_cast<int32_t>(c + lo));
#pragma unroll
          for (int e = 0; e < V; ++e) acc[k][e] += Accum<T>::load(x.elem[e]);
          continue;
        }
      }
      // Element by element, not unrolled (the sums in local memory): a short
      // cold path, where an unrolled one made the kernel several times larger.
      A sums[V];
#pragma unroll
      for (int e = 0; e < V; ++e) sums[e] = acc[k][e];
      int32_t r, c;  // of the vector's first element in the tile, then of each next one
      tile_row_column(t, l0 < 0 ? 0 : l0, r, c);
#pragma unroll 1
      for (int e = 0; e < V; ++e) {
        const int32_t l = l0 + e;
        if (l < 0 || l >= tv.span) continue;
        if (s.source[r] >= 0) {
          const uint4 *slot = s.slot + static_cast<int64_t>(r) * t.slot_vectors;
          const IndexRanges cols = copies_of<M>(c, lo, n, m);
#pragma unroll
          for (int q = 0; q < 3; ++q)  // at most three ranges: unrolled, so that they stay in registers
            if (q < cols.count)
              for (int64_t j = cols.begin[q]; j < cols.end[q]; ++j)
                sums[e] += Accum<T>::load(slot_element<Bytes>(slot, s.phase[r] + static_cast<int32_t>(j)));
        }
        if (++c == t.width) c = 0, ++r;
      }
#pragma unroll
      for (int e = 0; e < V; ++e) acc[k][e] = sums[e];
    }
    __syncthreads();  // before the next layer's rows overwrite the slots
  }

#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int32_t v = threadIdx.x + k * kBackwardTileThreads;
    if (v >= tv.count) continue;
    const int32_t l0 = tv.first + v * V;
    P x;
#pragma unroll
    for (int e = 0; e < V; ++e) x.elem[e] = Accum<T>::store(acc[k][e]);
    if (l0 >= 0 && l0 + V <= tv.span) {
      *reinterpret_cast<uint4 *>(out + l0) = x.vector;
      continue;
    }
#pragma unroll
    for (int e = 0; e < V; ++e)
      if (l0 + e >= 0 && l0 + e < tv.span) out[l0 + e] = x.elem[e];
  }
}

// 0, 3 (UNSUPPORTED: over 2^31 blocks), or the negated CUDA error of the launch.
template <class T, IndexMap M>
int launch_pad_backward_tiles(const RowsProblem &p, const RowTiles &t, int64_t single_begin, int64_t single_end,
                              cudaStream_t stream) {
  if (t.blocks > INT_MAX) return 3;
  pad_backward_tiles_kernel<T, M><<<static_cast<unsigned>(t.blocks), kBackwardTileThreads, t.smem_bytes, stream>>>(
      p, t, single_begin, single_end);
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels
