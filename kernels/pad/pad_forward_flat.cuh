// Pad forward over a dense output as one flat run of 16-byte vectors
// (common/flat_rows.h): the kernel for short rows, where the row kernel pays
// a block's set-up for every few rows and loads them element by element.
// A vector inside one input row's interior loads as two aligned vectors and
// a funnel shift, all of a thread's such loads issued before any store; a
// vector that crosses a row end, touches a pad column, or whose loads would
// leave the input row is gathered element by element (its loads, too, issued
// together). The kernel serves any dense pad; pad_flat_heuristics.h sends it
// only those whose every vector is a lean copy, where it measured faster.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstring>

#include "common/element_words.cuh"
#include "common/flat_rows.cuh"
#include "common/rows_tiling.cuh"
#include "common/shifted_load.cuh"
#include "pad/pad_flat_traits.h"

namespace baracuda::kernels {

// Where output row g reads its input row (the outer axes mapped), or -1 for
// a row of fill values.
template <IndexMap M, bool Narrow>
__device__ __forceinline__ int64_t flat_source_row(const RowsProblem &p, const FlatRows &f, int64_t g) {
  int64_t coord[kMaxRank - 1];
  flat_row_coords<Narrow>(p, f, g, coord);
  int64_t base = 0;
  bool fill = false;
#pragma unroll
  for (int d = 0; d < kMaxRank - 1; ++d) {
    if (d >= p.rank - 1) continue;
    const int64_t m = map_index<M>(coord[d], p.pad_low[d], p.in_extent[d]);
    fill |= m < 0;
    base += m * p.in_stride[d];
  }
  return fill ? -1 : base;
}

// Vector v element by element: its elements lie in at most two rows, since a
// row holds at least a vector's bytes. Out of line, so that the lean path's
// registers are not cut for it.
template <int Bytes, IndexMap M, bool Narrow>
__device__ __noinline__ void gather_flat_vector(const RowsProblem &p, const FlatRows &f, int64_t v) {
  using E = typename Word<Bytes>::type;
  constexpr int V = Pack16<E>::kCount;
  int64_t e0;
  const int32_t count = vector_span<V>(f, v, e0);
  if (count == 0) return;
  const int inner = p.rank - 1;
  const int64_t w = p.out_extent[inner], n = p.in_extent[inner], lo = p.pad_low[inner];
  const E *in = static_cast<const E *>(p.in);
  E *out = static_cast<E *>(p.out) + e0;
  E fill;
  memcpy(&fill, p.fill, Bytes);
  const RowColumn rc = split_flat<Narrow>(p, f, e0);
  const int64_t first = w - rc.col < count ? w - rc.col : count;  // elements in row rc.row
  const int64_t base0 = flat_source_row<M, Narrow>(p, f, rc.row);
  const int64_t base1 = first < count ? flat_source_row<M, Narrow>(p, f, rc.row + 1) : -1;
  Pack16<E> x;
#pragma unroll
  for (int k = 0; k < V; ++k) {
    if (k >= count) break;
    const int64_t base = k < first ? base0 : base1;
    const int64_t m = base < 0 ? -1 : map_index<M>(k < first ? rc.col + k : k - first, lo, n);
    x.elem[k] = m < 0 ? fill : in[base + m];
  }
  if (count == V && v > 0) {
    *reinterpret_cast<uint4 *>(out) = x.vector;
    return;
  }
#pragma unroll
  for (int k = 0; k < V; ++k)
    if (k < count) out[k] = x.elem[k];
}

constexpr int kFlatThreads = PadFlatTraits::kThreads;
constexpr int kFlatUnits = PadFlatTraits::kUnits;
constexpr int kFlatMinBlocks = PadFlatTraits::kMinBlocks;

// The parameters are __grid_constant__: the out-of-line paths' references
// then point into the parameter bank. Without it every thread copied the
// 360-byte problem to its stack first (measured 4-8x slower on the H200).
template <int Bytes, IndexMap M, bool Narrow>
__global__ void __launch_bounds__(kFlatThreads, kFlatMinBlocks)
    pad_forward_flat_kernel(const __grid_constant__ RowsProblem p, const __grid_constant__ FlatRows f) {
  using E = typename Word<Bytes>::type;
  constexpr int V = Pack16<E>::kCount;
  const int inner = p.rank - 1;
  const int64_t w = p.out_extent[inner], n = p.in_extent[inner], lo = p.pad_low[inner];
  const E *in = static_cast<const E *>(p.in);
  E *out = static_cast<E *>(p.out);
  const int64_t v0 = static_cast<int64_t>(blockIdx.x) * kFlatThreads * kFlatUnits + threadIdx.x;
  Pair16 raw[kFlatUnits];
  const E *src[kFlatUnits];
  bool lean[kFlatUnits];
#pragma unroll
  for (int k = 0; k < kFlatUnits; ++k) {
    const int64_t v = v0 + k * kFlatThreads;
    int64_t e0;
    lean[k] = v > 0 && vector_span<V>(f, v, e0) == V;
    if (!lean[k]) continue;
    const RowColumn rc = split_flat<Narrow>(p, f, e0);
    lean[k] = rc.col + V <= w && rc.col >= lo && rc.col + V <= lo + n;  // one row's interior
    if (!lean[k]) continue;
    const int64_t base = flat_source_row<M, Narrow>(p, f, rc.row);
    src[k] = in + base + rc.col - lo;
    lean[k] = base >= 0 && can_load16_at(src[k], in + base, in + base + n);
    if (lean[k]) raw[k] = issue_load16_at(src[k]);
  }
#pragma unroll
  for (int k = 0; k < kFlatUnits; ++k) {
    const int64_t v = v0 + k * kFlatThreads;
    if (lean[k]) *reinterpret_cast<uint4 *>(out + f.head + (v - 1) * V) = combine16(raw[k], shift16_of(src[k]));
  }
#pragma unroll
  for (int k = 0; k < kFlatUnits; ++k)
    if (!lean[k]) gather_flat_vector<Bytes, M, Narrow>(p, f, v0 + k * kFlatThreads);
}

// 0, 3 (UNSUPPORTED: over 2^31 blocks), or the negated CUDA error of the launch.
template <int Bytes, IndexMap M>
int launch_pad_forward_flat(const RowsProblem &p, cudaStream_t stream) {
  const FlatRows f = make_flat_rows(p, Bytes);
  const int64_t per_block = int64_t{kFlatThreads} * kFlatUnits;
  const int64_t blocks = (f.vectors + per_block - 1) / per_block;
  if (blocks > INT_MAX) return 3;
  const auto kernel = f.narrow ? pad_forward_flat_kernel<Bytes, M, true> : pad_forward_flat_kernel<Bytes, M, false>;
  kernel<<<static_cast<unsigned>(blocks), kFlatThreads, 0, stream>>>(p, f);
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels
