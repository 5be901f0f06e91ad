// The ALiBi kernels and their launches, instantiated per dtype by
// alibi_<dtype>.cu. Tiles (alibi_heuristics.h) are blocks of rows of one
// (b, h) by a chunk of columns; each thread takes up to kVectorsPerThread
// 16-byte vectors of its tile, loading all of them before using any.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "alibi/alibi_kernels.h"
#include "common/accumulate.cuh"
#include "common/element_words.cuh"
#include "common/overlap_launch.cuh"

namespace baracuda::kernels::alibi {

constexpr int kThreads = AlibiTraits::kThreads;
constexpr int kVectors = AlibiTraits::kVectorsPerThread;
constexpr int kReduceThreads = AlibiTraits::kReduceThreads;

// Where a tile lies. The tiles of one slope's partial sums are consecutive:
// with [H] slopes tiles run head-major (h, b, tile), with [B, H] slopes
// batch-major (b, h, tile); the reduction then reads one contiguous range.
struct TileSpot {
  int64_t b, h, row0, col0;
  int64_t rows;          // rows of this tile (the last row of tiles may be short)
  int32_t vecs_per_row;  // vectors across this tile's columns (the last one may be partial)
  int32_t slots;         // vectors of the tile: rows * vecs_per_row, at most kThreads * kVectors
};

__device__ __forceinline__ TileSpot tile_spot(const AlibiProblem &p, const AlibiTiling &t, int64_t tile) {
  const int64_t head = tile / t.tiles_per_head, k = tile % t.tiles_per_head;
  TileSpot s;
  s.b = p.per_batch_slopes ? head / p.heads : head % p.batch;
  s.h = p.per_batch_slopes ? head % p.heads : head / p.batch;
  s.row0 = k / t.col_tiles * t.tile_rows;
  s.col0 = k % t.col_tiles * t.chunk_cols;
  s.rows = min(t.tile_rows, p.queries - s.row0);
  const int64_t cols = min(t.chunk_cols, p.keys - s.col0);
  s.vecs_per_row = static_cast<int32_t>((cols + t.vector_elems - 1) / t.vector_elems);
  s.slots = static_cast<int32_t>(s.rows) * s.vecs_per_row;
  return s;
}

// One vector of a tile: row i, columns j0 .. j0 + n (n < the vector's count only at the row's end).
struct Cell {
  int64_t i, j0;
  int n;
};

template <int W>
__device__ __forceinline__ Cell cell_of(const AlibiProblem &p, const TileSpot &s, int slot) {
  Cell c;
  c.i = s.row0 + slot / s.vecs_per_row;
  c.j0 = s.col0 + int64_t{slot % s.vecs_per_row} * W;
  c.n = static_cast<int>(min(int64_t{W}, p.keys - c.j0));
  return c;
}

// Elements j0 .. j0 + n of a row, zeros past n. Vec: the row start is
// 16-byte aligned, so a whole vector is one 16-byte load.
template <class T, bool Vec>
__device__ __forceinline__ Pack16<T> load_cell(const T *row, const Cell &c) {
  Pack16<T> v;
  if (Vec && c.n == Pack16<T>::kCount) {
    v.vector = *reinterpret_cast<const uint4 *>(row + c.j0);
    return v;
  }
  v.vector = make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int e = 0; e < Pack16<T>::kCount; ++e)
    if (e < c.n) v.elem[e] = row[c.j0 + e];
  return v;
}

template <class T, bool Vec>
__device__ __forceinline__ void store_cell(T *row, const Cell &c, const Pack16<T> &v) {
  if (Vec && c.n == Pack16<T>::kCount) {
    *reinterpret_cast<uint4 *>(row + c.j0) = v.vector;
    return;
  }
#pragma unroll
  for (int e = 0; e < Pack16<T>::kCount; ++e)
    if (e < c.n) row[c.j0 + e] = v.elem[e];
}

// The thread's vectors of the tile, all loaded before any is used; vectors
// of slots past the tile are left as they are.
template <class T, bool Vec>
__device__ __forceinline__ void load_tile(const AlibiProblem &p, const TileSpot &s, Pack16<T> (&v)[kVectors]) {
  const T *in = static_cast<const T *>(p.in) + s.b * p.in_stride[0] + s.h * p.in_stride[1];
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const int slot = threadIdx.x + k * kThreads;
    if (slot < s.slots) {
      const Cell c = cell_of<Pack16<T>::kCount>(p, s, slot);
      v[k] = load_cell<T, Vec>(in + c.i * p.in_stride[2], c);
    }
  }
}

template <class T, bool Vec>
__device__ __forceinline__ void store_tile(const AlibiProblem &p, const TileSpot &s, const Pack16<T> (&v)[kVectors]) {
  T *out = static_cast<T *>(p.out) + s.b * p.out_stride[0] + s.h * p.out_stride[1];
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const int slot = threadIdx.x + k * kThreads;
    if (slot < s.slots) {
      const Cell c = cell_of<Pack16<T>::kCount>(p, s, slot);
      store_cell<T, Vec>(out + c.i * p.out_stride[2], c, v[k]);
    }
  }
}

// bias(i, j) for d = j - i', in the arithmetic's type (exact up to 2^24 in f32).
template <class A>
__device__ __forceinline__ A bias_of(int64_t d, bool symmetric) {
  return static_cast<A>(symmetric ? -(d < 0 ? -d : d) : d);
}

// j - i' at column 0 of row i is -(i + shift).
__device__ __forceinline__ int64_t query_shift(const AlibiProblem &p) {
  return p.bottom_right ? p.keys - p.queries : 0;
}

// The sum of v[0 .. N) as a balanced tree, N a power of two.
template <int N, class A>
__device__ __forceinline__ A tree_sum(A (&v)[N]) {
#pragma unroll
  for (int width = N / 2; width > 0; width /= 2)
#pragma unroll
    for (int k = 0; k < width; ++k) v[k] += v[k + width];
  return v[0];
}

// The block's sum of every thread's v, in thread 0: xor-shuffle trees in each
// warp, then one over the warps. Fixed order, so bit-stable. Every thread of
// the block calls it; red is free again on return.
template <int Threads, class A>
__device__ __forceinline__ A block_sum(A v, A (&red)[Threads / 32]) {
  constexpr int kWarps = Threads / 32;
  static_assert(kWarps <= 32 && (kWarps & (kWarps - 1)) == 0, "a power-of-two number of warps, at most 32");
#pragma unroll
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < kWarps ? red[threadIdx.x] : A(0);
#pragma unroll
    for (int off = kWarps / 2; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  }
  __syncthreads();
  return v;
}

// y = scores + slope * bias, a tile per block at a time.
template <class T, class S, bool Vec>
__global__ void __launch_bounds__(kThreads, AlibiTraits::kMinBlocksPerSm)
    alibi_forward_kernel(const AlibiProblem p, const AlibiTiling t, int64_t tiles) {
  using A = typename Accum<T>::type;
  constexpr int W = Pack16<T>::kCount;
  const int64_t shift = query_shift(p);
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const TileSpot s = tile_spot(p, t, tile);
    const A slope = Accum<S>::load(static_cast<const S *>(p.slopes)[s.b * p.slope_stride[0] + s.h * p.slope_stride[1]]);
    Pack16<T> v[kVectors];
    load_tile<T, Vec>(p, s, v);
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      const Cell c = cell_of<W>(p, s, threadIdx.x + k * kThreads);
      const int64_t d0 = c.j0 - c.i - shift;
#pragma unroll
      for (int e = 0; e < W; ++e)
        v[k].elem[e] = Accum<T>::store(Accum<T>::load(v[k].elem[e]) + slope * bias_of<A>(d0 + e, p.symmetric));
    }
    store_tile<T, Vec>(p, s, v);
  }
}

// One pass over dy: dscores = dy (when p.out), and the tile's sum of
// dy * bias into partials[tile] (when partials).
template <class T, bool Vec>
__global__ void __launch_bounds__(kThreads, AlibiTraits::kMinBlocksPerSm)
    alibi_backward_kernel(const AlibiProblem p, const AlibiTiling t, int64_t tiles,
                          typename Accum<T>::type *partials) {
  using A = typename Accum<T>::type;
  constexpr int W = Pack16<T>::kCount;
  __shared__ A red[kThreads / 32];
  let_next_pass_start();
  const int64_t shift = query_shift(p);
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const TileSpot s = tile_spot(p, t, tile);
    Pack16<T> v[kVectors];
    load_tile<T, Vec>(p, s, v);
    if (p.out) store_tile<T, Vec>(p, s, v);
    if (partials == nullptr) continue;
    A vector_sums[kVectors];
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      const int slot = threadIdx.x + k * kThreads;
      A products[W];
      const Cell c = cell_of<W>(p, s, slot < s.slots ? slot : 0);
      const int64_t d0 = c.j0 - c.i - shift;
#pragma unroll
      for (int e = 0; e < W; ++e)
        products[e] = slot < s.slots && e < c.n ? Accum<T>::load(v[k].elem[e]) * bias_of<A>(d0 + e, p.symmetric) : A(0);
      vector_sums[k] = tree_sum(products);
    }
    const A sum = block_sum<kThreads>(tree_sum(vector_sums), red);
    if (threadIdx.x == 0) partials[tile] = sum;
  }
}

// dslopes from the partials: a block per slope adds its per_slope partials,
// each thread a contiguous run of `run` in order, then the block's tree.
template <class A, class S>
__global__ void __launch_bounds__(kReduceThreads)
    alibi_dslopes_kernel(const AlibiProblem p, const A *partials, int64_t slopes, int64_t per_slope, int64_t run) {
  __shared__ A red[kReduceThreads / 32];
  wait_for_previous_pass();
  for (int64_t slope = blockIdx.x; slope < slopes; slope += gridDim.x) {
    const int64_t begin = threadIdx.x * run, end = min(begin + run, per_slope);
    A sum = A(0);
    for (int64_t k = begin; k < end; ++k) sum += partials[slope * per_slope + k];
    sum = block_sum<kReduceThreads>(sum, red);
    if (threadIdx.x == 0) {
      const int64_t b = p.per_batch_slopes ? slope / p.heads : 0, h = p.per_batch_slopes ? slope % p.heads : slope;
      static_cast<S *>(p.dslopes)[b * p.slope_stride[0] + h * p.slope_stride[1]] = Accum<S>::store(sum);
    }
  }
}

// Every row of the tensor starts 16 bytes aligned (strides of axes of extent
// 1 never move it).
template <class T>
bool rows_aligned(const AlibiProblem &p, const void *data, const int64_t (&stride)[3]) {
  const int64_t extent[3] = {p.batch, p.heads, p.queries};
  bool aligned = reinterpret_cast<uintptr_t>(data) % 16 == 0;
  for (int d = 0; d < 3; ++d) aligned &= extent[d] <= 1 || stride[d] * static_cast<int64_t>(sizeof(T)) % 16 == 0;
  return aligned;
}

inline int launch_error() { return -static_cast<int>(cudaGetLastError()); }

template <class T, class S>
int run_forward(const AlibiProblem &p, cudaStream_t stream) {
  if (p.batch == 0 || p.heads == 0 || p.queries == 0 || p.keys == 0) return 0;
  const AlibiTiling t = alibi_tiling(p.queries, p.keys, sizeof(T));
  const int64_t tiles = p.batch * p.heads * t.tiles_per_head;
  const unsigned grid = static_cast<unsigned>(alibi_grid_blocks(tiles));
  if (rows_aligned<T>(p, p.in, p.in_stride) && rows_aligned<T>(p, p.out, p.out_stride))
    alibi_forward_kernel<T, S, true><<<grid, kThreads, 0, stream>>>(p, t, tiles);
  else
    alibi_forward_kernel<T, S, false><<<grid, kThreads, 0, stream>>>(p, t, tiles);
  return launch_error();
}

// With Q * K = 0 and B * H > 0 the reduction alone runs: every dslope is a
// sum of nothing, written as 0.
template <class T, class S>
int run_backward(const AlibiProblem &p, void *workspace, cudaStream_t stream) {
  using A = typename Accum<T>::type;
  if (p.batch == 0 || p.heads == 0) return 0;
  A *partials = p.dslopes ? static_cast<A *>(workspace) : nullptr;
  PassSequence passes(stream);
  int64_t per_slope = 0;
  if (p.queries > 0 && p.keys > 0) {
    const AlibiTiling t = alibi_tiling(p.queries, p.keys, sizeof(T));
    const int64_t tiles = p.batch * p.heads * t.tiles_per_head;
    const unsigned grid = static_cast<unsigned>(alibi_grid_blocks(tiles));
    const bool vec = rows_aligned<T>(p, p.in, p.in_stride) && (!p.out || rows_aligned<T>(p, p.out, p.out_stride));
    const int rc = vec ? passes.launch(alibi_backward_kernel<T, true>, grid, kThreads, p, t, tiles, partials)
                       : passes.launch(alibi_backward_kernel<T, false>, grid, kThreads, p, t, tiles, partials);
    if (rc) return rc;
    per_slope = p.per_batch_slopes ? t.tiles_per_head : p.batch * t.tiles_per_head;
  }
  if (!p.dslopes) return 0;
  const int64_t slopes = p.per_batch_slopes ? p.batch * p.heads : p.heads;
  return passes.launch(alibi_dslopes_kernel<A, S>, static_cast<unsigned>(alibi_grid_blocks(slopes)), kReduceThreads,
                       p, static_cast<const A *>(partials), slopes, per_slope, alibi_reduce_run(per_slope));
}

// f16 and bf16 take f32 slopes or their own; f32 and f64 only their own.
template <class T>
int forward_entry(const AlibiProblem &p, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return run_forward<T, T>(p, stream);
  else return p.f32_slopes ? run_forward<T, float>(p, stream) : run_forward<T, T>(p, stream);
}

template <class T>
int backward_entry(const AlibiProblem &p, void *workspace, size_t, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return run_backward<T, T>(p, workspace, stream);
  else return p.f32_slopes ? run_backward<T, float>(p, workspace, stream) : run_backward<T, T>(p, workspace, stream);
}

}  // namespace baracuda::kernels::alibi

#define BARACUDA_ALIBI_ENTRIES(NAME, TYPE)                                                            \
  const baracuda::kernels::AlibiEntries baracuda::kernels::NAME = {                                   \
      baracuda::kernels::alibi::forward_entry<TYPE>, baracuda::kernels::alibi::backward_entry<TYPE>}
