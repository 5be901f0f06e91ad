// Pad backward as a gather: each dx cell sums, in ascending dy order, every dy
// cell that the forward copied it to. No atomics, so the result does not
// depend on the launch shape. The sum starts from -0.0 so that a cell with a
// single source is an exact copy (-0 + x == x for every x, -0 included).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <climits>

#include "common/element_words.cuh"
#include "common/rows_tiling.cuh"
#include "common/shifted_load.cuh"
#include "pad/pad_kernels.h"

namespace baracuda::kernels {

template <class T>
struct Accum {
  using type = float;
  __device__ static float load(T v) { return static_cast<float>(v); }
  __device__ static T store(float v) { return static_cast<T>(v); }
};
template <>
struct Accum<double> {
  using type = double;
  __device__ static double load(double v) { return v; }
  __device__ static double store(double v) { return v; }
};
template <>
struct Accum<__half> {
  using type = float;
  __device__ static float load(__half v) { return __half2float(v); }
  __device__ static __half store(float v) { return __float2half_rn(v); }
};
template <>
struct Accum<__nv_bfloat16> {
  using type = float;
  __device__ static float load(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
};

// The dy indices, along one axis, that the forward filled from dx index i:
// up to three ranges [begin, end), ascending. n is the dx extent, m the dy one.
struct SourceRanges {
  int64_t begin[3];
  int64_t end[3];
  int count;
};

template <IndexMap M>
__device__ __forceinline__ SourceRanges source_ranges(int64_t i, int64_t lo, int64_t n, int64_t m) {
  SourceRanges s;
  s.count = 0;
  auto add = [&s](int64_t b, int64_t e) {
    s.begin[s.count] = b;
    s.end[s.count] = e;
    ++s.count;
  };
  const int64_t j = i + lo;  // where the forward put x[i] itself
  if constexpr (M == IndexMap::Constant) {
    if (j >= 0 && j < m) add(j, j + 1);
  } else if constexpr (M == IndexMap::Reflect) {
    if (i >= 1 && i <= lo) add(lo - i, lo - i + 1);
    add(j, j + 1);
    const int64_t mirror = lo + 2 * (n - 1) - i;
    if (mirror >= lo + n && mirror < m) add(mirror, mirror + 1);
  } else if constexpr (M == IndexMap::Replicate) {
    add(i == 0 ? 0 : j, i == n - 1 ? m : j + 1);
  } else {  // Circular
    if (j - n >= 0) add(j - n, j - n + 1);
    add(j, j + 1);
    if (j + n < m) add(j + n, j + n + 1);
  }
  return s;
}

// The dx columns [first, last) whose only source is dy column c + lo; units
// inside it take the vector path.
template <IndexMap M>
__device__ __forceinline__ void single_source_columns(int64_t lo, int64_t n, int64_t m, int64_t &first,
                                                      int64_t &last) {
  const int64_t hi = m - n - lo;
  if constexpr (M == IndexMap::Constant) {
    first = -lo > 0 ? -lo : 0;
    last = m - lo < n ? m - lo : n;
  } else if constexpr (M == IndexMap::Reflect) {
    first = lo + 1;
    last = n - 1 - hi;
  } else if constexpr (M == IndexMap::Replicate) {
    first = lo > 0 ? 1 : 0;
    last = hi > 0 ? n - 1 : n;
  } else {
    first = hi;
    last = n - lo;
  }
}

constexpr int kBackwardRowsPerBlock = 16;
// Rows whose outer source list is longer than this take the generic path.
constexpr int kMaxSourceRows = 8;

// One dx unit, element by element: the odometer over the outer axes' source
// ranges (last axis fastest), then each element's inner sources, all in
// ascending dy order.
template <class T, IndexMap M>
__device__ void backward_unit_elements(const RowsProblem &p, const RowTiling &t, int64_t u, int32_t head,
                                       int64_t dx_base, const SourceRanges *src) {
  using A = typename Accum<T>::type;
  using P = Pack16<T>;
  constexpr int V = P::kCount;
  constexpr int kOuter = kMaxRank - 1;
  const int inner = p.rank - 1;
  const T *dy = static_cast<const T *>(p.in);
  T *row = static_cast<T *>(p.out) + dx_base;
  const int64_t width = p.out_extent[inner], lo = p.pad_low[inner], m = p.in_extent[inner];
  const int64_t is = p.in_stride[inner], os = p.out_stride[inner];
  int64_t c0, c1;
  unit_columns(u, head, t.vec, width, c0, c1);
  if (c0 >= c1) return;
  A acc[V];
  int sources[V];
#pragma unroll
  for (int e = 0; e < V; ++e) {
    acc[e] = A(-0.0);
    sources[e] = 0;
  }
  int range[kOuter];
  int64_t at[kOuter];
  bool more = true;
  for (int d = 0; d < inner; ++d) {
    range[d] = 0;
    at[d] = src[d].begin[0];
    more &= src[d].count > 0;
  }
  while (more) {
    int64_t base = 0;
    for (int d = 0; d < inner; ++d) base += at[d] * p.in_stride[d];
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const int64_t c = c0 + e;
      if (c >= c1) break;
      const SourceRanges s = source_ranges<M>(c, lo, width, m);
      for (int q = 0; q < s.count; ++q)
        for (int64_t j = s.begin[q]; j < s.end[q]; ++j) {
          acc[e] += Accum<T>::load(dy[base + j * is]);
          ++sources[e];
        }
    }
    int d = inner - 1;
    for (; d >= 0; --d) {
      if (++at[d] < src[d].end[range[d]]) break;
      if (++range[d] < src[d].count) {
        at[d] = src[d].begin[range[d]];
        break;
      }
      range[d] = 0;
      at[d] = src[d].begin[0];
    }
    more = d >= 0;
  }
  P out;
#pragma unroll
  for (int e = 0; e < V; ++e) out.elem[e] = Accum<T>::store(sources[e] ? acc[e] : A(0));
  if (c1 - c0 == V && os == 1) {
    *reinterpret_cast<uint4 *>(row + c0) = out.vector;
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e)
      if (c0 + e < c1) row[(c0 + e) * os] = out.elem[e];
  }
}

// Blocks per SM the register budget is cut for (80 registers at 3).
#ifndef BARACUDA_BACKWARD_MIN_BLOCKS
#define BARACUDA_BACKWARD_MIN_BLOCKS 3
#endif

template <class T, IndexMap M>
__global__ void __launch_bounds__(kThreads, BARACUDA_BACKWARD_MIN_BLOCKS) pad_backward_rows_kernel(RowsProblem p, RowTiling t) {
  using A = typename Accum<T>::type;
  using P = Pack16<T>;
  constexpr int V = P::kCount;
  constexpr int kOuter = kMaxRank - 1;
  __shared__ int64_t s_dx[kBackwardRowsPerBlock];
  __shared__ int32_t s_head[kBackwardRowsPerBlock];
  __shared__ SourceRanges s_src[kBackwardRowsPerBlock][kOuter];
  __shared__ int64_t s_rows[kBackwardRowsPerBlock][kMaxSourceRows];  // dy row offsets
  __shared__ int32_t s_nrows[kBackwardRowsPerBlock];                   // -1: too many, use s_src

  const BlockSpan span = block_span(t);
  const int inner = p.rank - 1;
  const T *dy = static_cast<const T *>(p.in);
  T *dx = static_cast<T *>(p.out);

  if (static_cast<int>(threadIdx.x) < span.nrows) {
    RowCoords g(span.row0 + threadIdx.x, p.out_extent, inner);
    int64_t o = 0;
    for (int d = inner - 1; d >= 0; --d) {
      const int64_t c = g.next(p.out_extent[d]);
      o += c * p.out_stride[d];
      s_src[threadIdx.x][d] = source_ranges<M>(c, p.pad_low[d], p.out_extent[d], p.in_extent[d]);
    }
    s_dx[threadIdx.x] = o;
    s_head[threadIdx.x] = row_head(dx + o, sizeof(T), t.vec);
    // The outer source rows in odometer order, when few.
    int64_t count = 1;
    for (int d = 0; d < inner; ++d) {
      int64_t len = 0;
      const SourceRanges &sr = s_src[threadIdx.x][d];
      for (int q = 0; q < sr.count; ++q) len += sr.end[q] - sr.begin[q];
      count *= len;
      if (count > kMaxSourceRows) break;
    }
    s_nrows[threadIdx.x] = count > kMaxSourceRows ? -1 : static_cast<int32_t>(count);
    for (int64_t k = 0; k < count && count <= kMaxSourceRows; ++k) {
      int64_t rest = k, off = 0;
      for (int d = inner - 1; d >= 0; --d) {
        const SourceRanges &sr = s_src[threadIdx.x][d];
        int64_t len = 0;
        for (int q = 0; q < sr.count; ++q) len += sr.end[q] - sr.begin[q];
        int64_t pick = rest % len;
        rest /= len;
        for (int q = 0; q < sr.count; ++q) {
          const int64_t w = sr.end[q] - sr.begin[q];
          if (pick < w) {
            off += (sr.begin[q] + pick) * p.in_stride[d];
            break;
          }
          pick -= w;
        }
      }
      s_rows[threadIdx.x][k] = off;
    }
  }
  __syncthreads();

  if (span.nrows > 1) {  // several short rows
    const int total = span.nrows * span.units;
    for (int f = threadIdx.x; f < total; f += kThreads) {
      const int r = f / span.units;
      backward_unit_elements<T, M>(p, t, span.unit0 + (f - r * span.units), s_head[r], s_dx[r], s_src[r]);
    }
    return;
  }

  // One row (or a chunk of one). Units whose elements each have one source
  // per outer source row read those rows as shifted vectors.
  const int32_t head = s_head[0];
  const int nsrc = s_nrows[0];
  const int64_t width = p.out_extent[inner], lo = p.pad_low[inner], m = p.in_extent[inner];
  int64_t first = 0, last = 0;
  if (nsrc >= 0 && t.vec == V && p.out_stride[inner] == 1 && p.in_stride[inner] == 1) {
    int64_t cfirst, clast;
    single_source_columns<M>(lo, width, m, cfirst, clast);
    first = 1;
    last = 1 + floor_div(width - head, V);
    for (int q = 0; q < nsrc; ++q) {
      int64_t f, l;
      vector_run(head, V, width, cfirst, clast, dy + s_rows[0][q], lo, m, f, l);
      first = f > first ? f : first;
      last = l < last ? l : last;
    }
    if (nsrc == 0) {  // no dy cell reaches this row: zeros, but only where a unit is full
      first = 1;
    }
  }
  const int64_t end = span.unit0 + span.units;
  auto lean = [&](int64_t u) { return u >= first && u < last && u < end; };
  T *row = dx + s_dx[0];
  if (nsrc == 1) {  // a copy: a batch's loads all in flight before its first store
    const T *src = dy + s_rows[0][0];
    for (int64_t batch = span.unit0 + threadIdx.x; batch < end; batch += kUnitsPerBlock) {
      Load16 raw[kUnitsPerThread];
#pragma unroll
      for (int k = 0; k < kUnitsPerThread; ++k) {
        const int64_t u = batch + k * kThreads;
        if (lean(u)) raw[k] = issue_load16_at(src + head + (u - 1) * V + lo);
      }
#pragma unroll
      for (int k = 0; k < kUnitsPerThread; ++k) {
        const int64_t u = batch + k * kThreads;
        if (lean(u)) *reinterpret_cast<uint4 *>(row + head + (u - 1) * V) = combine16(raw[k]);
      }
    }
  } else {  // sums over nsrc rows (0 for rows no dy cell reaches), a batch's loads in flight per row
    for (int64_t batch = span.unit0 + threadIdx.x; batch < end; batch += kUnitsPerBlock) {
      A acc[kUnitsPerThread][V];
#pragma unroll
      for (int k = 0; k < kUnitsPerThread; ++k)
#pragma unroll
        for (int e = 0; e < V; ++e) acc[k][e] = A(nsrc ? -0.0 : 0.0);
      for (int q = 0; q < nsrc; ++q) {
        const T *src = dy + s_rows[0][q];
        Load16 raw[kUnitsPerThread];
#pragma unroll
        for (int k = 0; k < kUnitsPerThread; ++k) {
          const int64_t u = batch + k * kThreads;
          if (lean(u)) raw[k] = issue_load16_at(src + head + (u - 1) * V + lo);
        }
#pragma unroll
        for (int k = 0; k < kUnitsPerThread; ++k) {
          if (!lean(batch + k * kThreads)) continue;
          P in;
          in.vector = combine16(raw[k]);
#pragma unroll
          for (int e = 0; e < V; ++e) acc[k][e] += Accum<T>::load(in.elem[e]);
        }
      }
#pragma unroll
      for (int k = 0; k < kUnitsPerThread; ++k) {
        const int64_t u = batch + k * kThreads;
        if (!lean(u)) continue;
        P out;
#pragma unroll
        for (int e = 0; e < V; ++e) out.elem[e] = Accum<T>::store(acc[k][e]);
        *reinterpret_cast<uint4 *>(row + head + (u - 1) * V) = out.vector;
      }
    }
  }
  for (int64_t u = span.unit0 + threadIdx.x; u < end; u += kThreads)
    if (!lean(u)) backward_unit_elements<T, M>(p, t, u, head, s_dx[0], s_src[0]);
}

template <class T, IndexMap M>
int launch_pad_backward(const RowsProblem &p, cudaStream_t stream) {
  const RowTiling t = make_row_tiling(p, sizeof(T), kBackwardRowsPerBlock);
  if (t.blocks == 0 || p.out_extent[p.rank - 1] == 0) return 0;
  if (t.blocks > INT_MAX) return 3;
  pad_backward_rows_kernel<T, M><<<static_cast<unsigned>(t.blocks), kThreads, 0, stream>>>(p, t);
  return -static_cast<int>(cudaGetLastError());
}

template <class T>
int pad_backward_dispatch(const RowsProblem &p, cudaStream_t stream) {
  switch (p.map) {
    case IndexMap::Constant: return launch_pad_backward<T, IndexMap::Constant>(p, stream);
    case IndexMap::Reflect: return launch_pad_backward<T, IndexMap::Reflect>(p, stream);
    case IndexMap::Replicate: return launch_pad_backward<T, IndexMap::Replicate>(p, stream);
    case IndexMap::Circular: return launch_pad_backward<T, IndexMap::Circular>(p, stream);
    default: return 2;
  }
}

}  // namespace baracuda::kernels

#define BARACUDA_PAD_BACKWARD_ENTRY(NAME, TYPE)                                               \
  int baracuda::kernels::pad_backward_##NAME##_run(const RowsProblem &p, cudaStream_t s) { \
    return pad_backward_dispatch<TYPE>(p, s);                                                 \
  }
