// Where a block's tile lies and how a thread's 16-byte vectors of it are
// loaded and stored. Index is int32_t when every tile number, row and column
// (and Q + K) fits 31 bits, so the per-tile divisions and the per-element
// bias arithmetic stay 32-bit; int64_t otherwise.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "alibi/alibi_heuristics.h"
#include "alibi/alibi_problem.h"
#include "common/element_words.cuh"

namespace baracuda::kernels::alibi {

// A thread's share of a tile for blocks of Threads threads, its 16-byte
// vectors' slots threadIdx.x + k * Threads. Arrays of N cells or vectors
// carry the block shape to the functions below: Threads = kTileVectors / N.
template <int Threads>
constexpr int kVectorsOf = AlibiTraits::kTileVectors / Threads;
template <int N>
constexpr int kThreadsOf = AlibiTraits::kTileVectors / N;

// a / b for a >= 0, b > 0: with 32-bit indices by f, b's multiply and shift;
// with 64-bit ones by unsigned division, the shorter sequence.
template <class Index>
__device__ __forceinline__ Index quotient(Index a, Index b, FastDivisor f) {
  if constexpr (std::is_same_v<Index, int32_t>) {
    return static_cast<Index>(fast_divide(static_cast<uint32_t>(a), f));
  } else {
    using Unsigned = std::make_unsigned_t<Index>;
    return static_cast<Index>(static_cast<Unsigned>(a) / static_cast<Unsigned>(b));
  }
}

// The tiles of one slope's partial sums are consecutive: with [H] slopes
// tiles run head-major (h, b, tile), with [B, H] slopes batch-major
// (b, h, tile); the reduction then reads one contiguous range.
template <class Index>
struct TileSpot {
  Index b, h, row0, col0;
  int vecs_per_row;  // vectors across this tile's columns (the last one may be partial)
  int slots;         // vectors of the tile: rows * vecs_per_row, at most kTileVectors
};

template <int W, class Index>
__device__ __forceinline__ TileSpot<Index> tile_spot(const AlibiProblem &p, const AlibiTiling &t, Index tile) {
  const Index per_head = static_cast<Index>(t.tiles_per_head), col_tiles = static_cast<Index>(t.col_tiles);
  const Index head = quotient(tile, per_head, t.per_head), k = tile - head * per_head;
  const Index row_tile = quotient(k, col_tiles, t.across);
  // head = outer * inner_extent + inner, inner being h for [B, H] slopes, b for [H].
  const Index inner_extent = static_cast<Index>(p.per_batch_slopes ? p.heads : p.batch);
  const Index outer = quotient(head, inner_extent, t.inner), inner = head - outer * inner_extent;
  TileSpot<Index> s;
  s.b = p.per_batch_slopes ? outer : inner;
  s.h = p.per_batch_slopes ? inner : outer;
  s.row0 = row_tile * static_cast<Index>(t.tile_rows);
  s.col0 = (k - row_tile * col_tiles) * static_cast<Index>(t.chunk_cols);
  const Index rows = min(static_cast<Index>(t.tile_rows), static_cast<Index>(p.queries) - s.row0);
  const Index cols = min(static_cast<Index>(t.chunk_cols), static_cast<Index>(p.keys) - s.col0);
  s.vecs_per_row = static_cast<int>((cols + W - 1) / W);  // W, the vector's elements, a constant
  s.slots = static_cast<int>(rows) * s.vecs_per_row;
  return s;
}

// One vector of a tile: row i, columns j0 .. j0 + n (n < the vector's count
// only at the row's end; n = 0 for a slot past the tile). Worked out once per
// vector and kept for the load, the math and the store.
template <class Index>
struct Cell {
  Index i, j0;
  int n;
};

// The cells of the thread's slots. A row of a tile holds a
// chunk's width of vectors wherever the tile has more than one row (its
// chunk is then the whole padded row), and a one-row tile's slots all lie in
// row 0, so a slot's row is its quotient by the chunk's vectors: one divisor
// for every tile. (Placing the first by a division and stepping the others
// with a carry spilled bf16's forward at the 3-blocks register cap.)
template <int W, class Index, int N>
__device__ __forceinline__ void cells_of(const AlibiProblem &p, const AlibiTiling &t, const TileSpot<Index> &s,
                                         Cell<Index> (&c)[N]) {
  const int chunk_vectors = static_cast<int>(t.chunk_cols / W);
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int slot = threadIdx.x + k * kThreadsOf<N>;
    const int row = static_cast<int>(fast_divide(static_cast<uint32_t>(slot), t.chunk_vectors));
    c[k].i = s.row0 + row;
    c[k].j0 = s.col0 + static_cast<Index>(slot - row * chunk_vectors) * W;
    c[k].n = slot < s.slots ? static_cast<int>(min(static_cast<Index>(W), static_cast<Index>(p.keys) - c[k].j0)) : 0;
  }
}

// The cells of a tile that is a whole chunk of one row (a one-row tile
// whose chunk ends inside the row): every slot a whole vector of row0, so
// no division, and n a constant the loads, stores and sums fold away.
template <int W, class Index, int N>
__device__ __forceinline__ void row_chunk_cells(const TileSpot<Index> &s, Cell<Index> (&c)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    c[k].i = s.row0;
    c[k].j0 = s.col0 + static_cast<Index>(threadIdx.x + k * kThreadsOf<N>) * W;
    c[k].n = W;
  }
}

// One st.global.v4: the union's vector member written as a whole still
// compiled to four 4-byte stores (bench/NOTES.md: 3.7x the L2 write sectors).
// Predicated, not branched on: behind a branch the compiler scheduled the
// backward's sum arithmetic ahead of the stores, whose latency ends a small
// kernel. ptr must be a valid address even when enabled is false.
__device__ __forceinline__ void store_vector(void *ptr, const uint4 &w, bool enabled = true) {
  asm volatile(
      "{\n.reg .u64 g;\n.reg .pred p;\nsetp.ne.b32 p, %5, 0;\ncvta.to.global.u64 g, %0;\n"
      "@p st.global.v4.u32 [g], {%1, %2, %3, %4};\n}" ::"l"(ptr),
      "r"(w.x), "r"(w.y), "r"(w.z), "r"(w.w), "r"(static_cast<int>(enabled))
      : "memory");
}

// Elements j0 .. j0 + n of a row, zeros past n. Vec: the row start is
// 16-byte aligned, so a whole vector is one 16-byte load.
template <class T, bool Vec, class Index>
__device__ __forceinline__ Pack16<T> load_cell(const T *row, const Cell<Index> &c) {
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

template <class T, bool Vec, class Index>
__device__ __forceinline__ void store_cell(T *row, const Cell<Index> &c, const Pack16<T> &v, bool enabled) {
  if (Vec && c.n == Pack16<T>::kCount) {
    store_vector(row + c.j0, v.vector, enabled);
    return;
  }
  if (!enabled) return;
#pragma unroll
  for (int e = 0; e < Pack16<T>::kCount; ++e)
    if (e < c.n) row[c.j0 + e] = v.elem[e];
}

// The thread's vectors of the tile, all loaded before any is used; vectors
// of slots past the tile are left as they are.
template <class T, bool Vec, class Index, int N>
__device__ __forceinline__ void load_tile(const AlibiProblem &p, const TileSpot<Index> &s, const Cell<Index> (&c)[N],
                                          Pack16<T> (&v)[N]) {
  const T *in = static_cast<const T *>(p.in) + s.b * p.in_stride[0] + s.h * p.in_stride[1];
#pragma unroll
  for (int k = 0; k < N; ++k)
    if (c[k].n > 0) v[k] = load_cell<T, Vec>(in + c[k].i * p.in_stride[2], c[k]);
}

// The thread's vectors into p.out. The backward may leave dscores out
// (p.out null, its strides 0): its stores are then switched off, not
// skipped by a branch (see store_vector), their addresses p.in's first
// vectors.
template <class T, bool Vec, class Index, int N>
__device__ __forceinline__ void store_tile(const AlibiProblem &p, const TileSpot<Index> &s, const Cell<Index> (&c)[N],
                                           const Pack16<T> (&v)[N]) {
  const bool enabled = p.out != nullptr;
  T *out = static_cast<T *>(enabled ? p.out : const_cast<void *>(p.in)) + s.b * p.out_stride[0] +
           s.h * p.out_stride[1];
#pragma unroll
  for (int k = 0; k < N; ++k)
    if (c[k].n > 0) store_cell<T, Vec>(out + c[k].i * p.out_stride[2], c[k], v[k], enabled);
}

}  // namespace baracuda::kernels::alibi
