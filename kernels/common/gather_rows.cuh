// The row kernel behind pad forward and write_slice: every output element is
// one input element (or the fill value), found through an IndexMap per axis.
// Stores are 16-byte vectors along the aligned part of each output row; loads
// are vectors too, shifted into place when input and output rows are
// misaligned to each other; only row edges go element by element.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstring>

#include "common/element_words.cuh"
#include "common/rows_tiling.cuh"
#include "common/shifted_load.cuh"

namespace baracuda::kernels {

template <int Bytes, IndexMap M>
__global__ void __launch_bounds__(kThreads) gather_rows_kernel(RowsProblem p, RowTiling t) {
  using E = typename Word<Bytes>::type;
  using P = Pack16<E>;
  constexpr int V = P::kCount;
  __shared__ int64_t s_out[kMaxRowsPerBlock];
  __shared__ int64_t s_in[kMaxRowsPerBlock];  // -1: a row of fill values
  __shared__ int32_t s_head[kMaxRowsPerBlock];

  const BlockSpan span = block_span(t);
  const int inner = p.rank - 1;
  const E *in = static_cast<const E *>(p.in);
  E *out = static_cast<E *>(p.out);

  if (static_cast<int>(threadIdx.x) < span.nrows) {
    int64_t g = span.row0 + threadIdx.x;
    int64_t o = 0, i = 0;
    bool fill = false;
    for (int d = inner - 1; d >= 0; --d) {
      const int64_t c = g % p.out_extent[d];
      g /= p.out_extent[d];
      o += c * p.out_stride[d];
      const int64_t m = map_index<M>(c, p.pad_low[d], p.in_extent[d]);
      fill |= m < 0;
      i += m * p.in_stride[d];
    }
    s_out[threadIdx.x] = o;
    s_in[threadIdx.x] = fill ? -1 : i;
    s_head[threadIdx.x] = row_head(out + o, Bytes, t.vec);
  }
  __syncthreads();

  E fill_value;
  memcpy(&fill_value, p.fill, Bytes);
  const int64_t width = p.out_extent[inner], n = p.in_extent[inner], lo = p.pad_low[inner];
  const int64_t is = p.in_stride[inner], os = p.out_stride[inner];
  const int total = span.nrows * span.units;

  P vals[kUnitsPerThread];
  int64_t col0[kUnitsPerThread], col1[kUnitsPerThread];
  int row[kUnitsPerThread];
  // All loads first, then all stores: kUnitsPerThread independent loads in flight.
#pragma unroll
  for (int k = 0; k < kUnitsPerThread; ++k) {
    const int f = threadIdx.x + k * kThreads;
    row[k] = -1;
    if (f >= total) continue;
    const int r = f / span.units;
    row[k] = r;
    unit_columns(span.unit0 + (f - r * span.units), s_head[r], t.vec, width, col0[k], col1[k]);
    const int64_t base = s_in[r];
    const bool interior = base >= 0 && col0[k] - lo >= 0 && col1[k] - lo <= n;
    if (interior && is == 1 && col1[k] - col0[k] == V &&
        can_load16_at(in + base + col0[k] - lo, in + base, in + base + n)) {
      vals[k].vector = load16_at(in + base + col0[k] - lo);
      continue;
    }
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const int64_t c = col0[k] + e;
      if (c >= col1[k]) break;
      const int64_t m = base < 0 ? -1 : map_index<M>(c, lo, n);
      vals[k].elem[e] = m < 0 ? fill_value : in[base + m * is];
    }
  }
#pragma unroll
  for (int k = 0; k < kUnitsPerThread; ++k) {
    if (row[k] < 0) continue;
    E *dst = out + s_out[row[k]];
    if (col1[k] - col0[k] == V && os == 1) {
      *reinterpret_cast<uint4 *>(dst + col0[k]) = vals[k].vector;
      continue;
    }
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const int64_t c = col0[k] + e;
      if (c >= col1[k]) break;
      dst[c * os] = vals[k].elem[e];
    }
  }
}

// 0, or the negated CUDA error of the launch.
template <int Bytes, IndexMap M>
int launch_gather_rows(const RowsProblem &p, cudaStream_t stream) {
  const RowTiling t = make_row_tiling(p, Bytes, kMaxRowsPerBlock);
  if (t.blocks == 0 || p.out_extent[p.rank - 1] == 0) return 0;
  if (t.blocks > INT_MAX) return 3;  // UNSUPPORTED: over 2^31 blocks (~2^41 elements)
  gather_rows_kernel<Bytes, M><<<static_cast<unsigned>(t.blocks), kThreads, 0, stream>>>(p, t);
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels
