// Pad backward for reflect, replicate and circular, as a gather: each dx cell
// sums, in ascending dy order, every dy cell that the forward copied it to. No atomics, so the result does not
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
  if constexpr (M == IndexMap::Reflect) {
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
  if constexpr (M == IndexMap::Reflect) {
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

// Block size and blocks per SM the register budget is cut for, as measured
// on the H200: 256 threads and 3 blocks (80 registers) for 4-byte and wider
// elements, 128 threads and 4 blocks below.
#ifndef BARACUDA_BACKWARD_THREADS_NARROW
#define BARACUDA_BACKWARD_THREADS_NARROW 128
#endif
#ifndef BARACUDA_BACKWARD_THREADS_WIDE
#define BARACUDA_BACKWARD_THREADS_WIDE 256
#endif
template <class T>
constexpr int kBackwardThreads = sizeof(T) < 4 ? BARACUDA_BACKWARD_THREADS_NARROW : BARACUDA_BACKWARD_THREADS_WIDE;
template <class T>
constexpr int backward_min_blocks() {
#ifdef BARACUDA_BACKWARD_MIN_BLOCKS
  return BARACUDA_BACKWARD_MIN_BLOCKS;
#else
  return sizeof(T) < 4 ? 4 : 3;
#endif
}


// Where a dx row's outer sources come from: the dy row offsets in ascending
// order when there are at most kMaxSourceRows of them (count >= 0), else only
// the per-axis ranges (count -1), walked by an odometer.
struct RowSources {
  int32_t count;
  const int64_t *rows;
  const SourceRanges *ranges;  // per outer axis
};

// The sum over every outer source row, in ascending dy order, of the inner
// sources of columns [c0, c0 + V) clipped to c1; counts[e] sources per element.
template <class T, IndexMap M, class Add>
__device__ void for_each_source(const RowsProblem &p, const RowSources &src, int64_t c0, int64_t c1, Add &&add) {
  constexpr int V = Pack16<T>::kCount;
  constexpr int kOuter = kMaxRank - 1;
  const int inner = p.rank - 1;
  const T *dy = static_cast<const T *>(p.in);
  const int64_t width = p.out_extent[inner], lo = p.pad_low[inner], m = p.in_extent[inner];
  const int64_t is = p.in_stride[inner];
  auto row = [&](int64_t base) {
    if constexpr (M == IndexMap::Replicate) {  // ranges of any length
#pragma unroll 1
      for (int e = 0; e < V; ++e) {
        const int64_t c = c0 + e;
        if (c >= c1) break;
        const SourceRanges s = source_ranges<M>(c, lo, width, m);
        for (int q = 0; q < s.count; ++q)
          for (int64_t j = s.begin[q]; j < s.end[q]; ++j) add(e, dy[base + j * is]);
      }
    } else {  // at most three single sources per element: a group's loads first, so they overlap
      constexpr int kGroup = V < 4 ? V : 4;
#pragma unroll 1
      for (int g = 0; g < V; g += kGroup) {
        T v[kGroup][3];
        int count[kGroup];
#pragma unroll
        for (int e = 0; e < kGroup; ++e) {
          count[e] = 0;
          if (c0 + g + e >= c1) continue;
          const SourceRanges s = source_ranges<M>(c0 + g + e, lo, width, m);
          count[e] = s.count;
#pragma unroll
          for (int q = 0; q < 3; ++q)
            if (q < s.count) v[e][q] = dy[base + s.begin[q] * is];
        }
#pragma unroll
        for (int e = 0; e < kGroup; ++e)
#pragma unroll
          for (int q = 0; q < 3; ++q)
            if (q < count[e]) add(g + e, v[e][q]);
      }
    }
  };
  if (src.count >= 0) {
    for (int q = 0; q < src.count; ++q) row(src.rows[q]);
    return;
  }
  // Odometer over the outer axes' source ranges, last axis fastest.
  int range[kOuter];
  int64_t at[kOuter];
  for (int d = 0; d < inner; ++d) {
    range[d] = 0;
    at[d] = src.ranges[d].begin[0];
  }
  while (true) {
    int64_t base = 0;
    for (int d = 0; d < inner; ++d) base += at[d] * p.in_stride[d];
    row(base);
    int d = inner - 1;
    for (; d >= 0; --d) {
      if (++at[d] < src.ranges[d].end[range[d]]) break;
      if (++range[d] < src.ranges[d].count) {
        at[d] = src.ranges[d].begin[range[d]];
        break;
      }
      range[d] = 0;
      at[d] = src.ranges[d].begin[0];
    }
    if (d < 0) return;
  }
}

// One dx unit, element by element.
template <class T, IndexMap M>
__device__ void backward_unit_elements(const RowsProblem &p, const RowTiling &t, int64_t u, int32_t head,
                                       int64_t dx_base, const RowSources &src) {
  using A = typename Accum<T>::type;
  using P = Pack16<T>;
  constexpr int V = P::kCount;
  const int inner = p.rank - 1;
  T *row = static_cast<T *>(p.out) + dx_base;
  const int64_t os = p.out_stride[inner];
  int64_t c0, c1;
  unit_columns(u, head, t.vec, p.out_extent[inner], c0, c1);
  if (c0 >= c1) return;
  A acc[V];
  int sources[V];
#pragma unroll
  for (int e = 0; e < V; ++e) {
    acc[e] = A(-0.0);
    sources[e] = 0;
  }
  for_each_source<T, M>(p, src, c0, c1, [&](int e, T v) {
    acc[e] += Accum<T>::load(v);
    ++sources[e];
  });
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

// One dx element of a long row's edge: its sum in ascending dy order. With at
// most two outer source rows and single inner sources (every mode but
// replicate) all loads are issued before the first add, so an edge costs one
// memory latency; otherwise the general walk.
template <class T, IndexMap M>
__device__ __forceinline__ T backward_edge_element(const RowsProblem &p, int64_t c, const RowSources &src) {
  using A = typename Accum<T>::type;
  const int inner = p.rank - 1;
  if constexpr (M != IndexMap::Replicate) {
    if (src.count >= 0 && src.count <= 2) {
      const T *dy = static_cast<const T *>(p.in);
      const int64_t is = p.in_stride[inner];
      const SourceRanges s = source_ranges<M>(c, p.pad_low[inner], p.out_extent[inner], p.in_extent[inner]);
      T v[2][3];
#pragma unroll
      for (int q = 0; q < 2; ++q)
#pragma unroll
        for (int r = 0; r < 3; ++r)
          if (q < src.count && r < s.count) v[q][r] = dy[src.rows[q] + s.begin[r] * is];
      A acc = A(-0.0);
#pragma unroll
      for (int q = 0; q < 2; ++q)
#pragma unroll
        for (int r = 0; r < 3; ++r)
          if (q < src.count && r < s.count) acc += Accum<T>::load(v[q][r]);
      return Accum<T>::store(src.count && s.count ? acc : A(0));
    }
  }
  A acc = A(-0.0);
  int sources = 0;
  for_each_source<T, M>(p, src, c, c + 1, [&](int, T v) {
    acc += Accum<T>::load(v);
    ++sources;
  });
  return Accum<T>::store(sources ? acc : A(0));
}

// A chunk of one long dx row. Units whose elements each have one source per
// outer source row read those rows as shifted vectors; the rest go element by
// element.
template <class T, IndexMap M>
__device__ __forceinline__ void backward_long_row(const RowsProblem &p, const RowTiling &t, const BlockSpan &span,
                                                  int32_t head, int64_t dx_base, const RowSources &src) {
  constexpr int kThreads = kBackwardThreads<T>;
  using A = typename Accum<T>::type;
  using P = Pack16<T>;
  constexpr int V = P::kCount;
  const int inner = p.rank - 1;
  const T *dy = static_cast<const T *>(p.in);
  T *row = static_cast<T *>(p.out) + dx_base;
  const int64_t width = p.out_extent[inner], lo = p.pad_low[inner], m = p.in_extent[inner];
  const int nsrc = src.count;
  int64_t first = 0, last = 0;
  if (nsrc >= 0 && t.vec == V && p.out_stride[inner] == 1 && p.in_stride[inner] == 1) {
    int64_t cfirst, clast;
    single_source_columns<M>(lo, width, m, cfirst, clast);
    first = 1;
    last = 1 + floor_div(width - head, V);
    if (nsrc == 0) cfirst = 0, clast = width;  // no dy cell reaches this row: zeros
    for (int q = 0; q < nsrc; ++q) {
      int64_t f, l;
      vector_run(head, V, width, cfirst, clast, dy + src.rows[q], lo, m, f, l);
      first = f > first ? f : first;
      last = l < last ? l : last;
    }
  }
  const int64_t end = span.unit0 + span.units;
  auto lean = [&](int64_t u) { return u >= first && u < last && u < end; };
  {  // The edge units first, one thread per element, so their latency hides under the lean loads.
    const int64_t lean_begin = first < span.unit0 ? span.unit0 : (first > end ? end : first);
    const int64_t lean_end = last < lean_begin ? lean_begin : (last > end ? end : last);
    const int64_t front = lean_begin - span.unit0, edges = front + (end - lean_end);
    const int64_t os = p.out_stride[inner];
    for (int64_t k = threadIdx.x; k < edges * V; k += kThreads) {
      const int64_t e = k / V, u = e < front ? span.unit0 + e : lean_end + (e - front);
      int64_t c0, c1;
      unit_columns(u, head, t.vec, width, c0, c1);
      const int64_t c = c0 + (k - e * V);
      if (c < c1) row[c * os] = backward_edge_element<T, M>(p, c, src);
    }
  }
  if (nsrc == 1) {  // a copy: a batch's loads all in flight before its first store
    const T *in = dy + src.rows[0] + head + lo;
    const int shift = shift16_of(in);
    for (int64_t batch = span.unit0 + threadIdx.x; batch < end; batch += kThreads * kUnitsPerThread) {
      Pair16 raw[kUnitsPerThread];
#pragma unroll
      for (int k = 0; k < kUnitsPerThread; ++k) {
        const int64_t u = batch + k * kThreads;
        if (lean(u)) raw[k] = issue_load16_at(in + (u - 1) * V);
      }
#pragma unroll
      for (int k = 0; k < kUnitsPerThread; ++k) {
        const int64_t u = batch + k * kThreads;
        if (lean(u)) *reinterpret_cast<uint4 *>(row + head + (u - 1) * V) = combine16(raw[k], shift);
      }
    }
  } else if (nsrc == 2) {  // a sum of two rows in ascending dy order, two units' loads in flight
    constexpr int kPair = kUnitsPerThread / 2;
    const T *in0 = dy + src.rows[0] + head + lo, *in1 = dy + src.rows[1] + head + lo;
    const int shift0 = shift16_of(in0), shift1 = shift16_of(in1);
    for (int64_t batch = span.unit0 + threadIdx.x; batch < end; batch += kThreads * kPair) {
      Pair16 a[kPair], b[kPair];
#pragma unroll
      for (int k = 0; k < kPair; ++k) {
        const int64_t u = batch + k * kThreads;
        if (lean(u)) {
          a[k] = issue_load16_at(in0 + (u - 1) * V);
          b[k] = issue_load16_at(in1 + (u - 1) * V);
        }
      }
#pragma unroll
      for (int k = 0; k < kPair; ++k) {
        const int64_t u = batch + k * kThreads;
        if (!lean(u)) continue;
        P x, y, out;
        x.vector = combine16(a[k], shift0);
        y.vector = combine16(b[k], shift1);
#pragma unroll
        for (int e = 0; e < V; ++e)
          out.elem[e] = Accum<T>::store(A(-0.0) + Accum<T>::load(x.elem[e]) + Accum<T>::load(y.elem[e]));
        *reinterpret_cast<uint4 *>(row + head + (u - 1) * V) = out.vector;
      }
    }
  } else {  // a sum over nsrc rows, or zeros where no dy cell reaches the row
    for (int64_t u = span.unit0 + threadIdx.x; u < end; u += kThreads) {
      if (!lean(u)) continue;
      A acc[V];
#pragma unroll
      for (int e = 0; e < V; ++e) acc[e] = A(nsrc ? -0.0 : 0.0);
      for (int q = 0; q < nsrc; ++q) {
        P in;
        in.vector = load16_at(dy + src.rows[q] + head + (u - 1) * V + lo);
#pragma unroll
        for (int e = 0; e < V; ++e) acc[e] += Accum<T>::load(in.elem[e]);
      }
      P out;
#pragma unroll
      for (int e = 0; e < V; ++e) out.elem[e] = Accum<T>::store(acc[e]);
      *reinterpret_cast<uint4 *>(row + head + (u - 1) * V) = out.vector;
    }
  }

}


template <class T, IndexMap M>
__global__ void __launch_bounds__(kBackwardThreads<T>, backward_min_blocks<T>())
    pad_backward_rows_kernel(RowsProblem p, RowTiling t) {
  constexpr int kThreads = kBackwardThreads<T>;
  constexpr int kOuter = kMaxRank - 1;
  __shared__ int64_t s_dx[kBackwardRowsPerBlock];
  __shared__ int32_t s_head[kBackwardRowsPerBlock];
  __shared__ SourceRanges s_src[kBackwardRowsPerBlock][kOuter];
  __shared__ int64_t s_rows[kBackwardRowsPerBlock][kMaxSourceRows];
  __shared__ int32_t s_nrows[kBackwardRowsPerBlock];

  const BlockSpan span = block_span(t);
  const int inner = p.rank - 1;
  T *dx = static_cast<T *>(p.out);

  if (static_cast<int>(threadIdx.x) < span.nrows) {
    const int r = threadIdx.x;
    RowCoords g(span.row0 + r, p.out_extent, inner);
    int64_t o = 0, first_row = 0, count = 1;
    int32_t len[kOuter];
    for (int d = inner - 1; d >= 0; --d) {
      const int64_t c = g.next(p.out_extent[d]);
      o += c * p.out_stride[d];
      const SourceRanges sr = source_ranges<M>(c, p.pad_low[d], p.out_extent[d], p.in_extent[d]);
      s_src[r][d] = sr;
      int64_t n = 0;
      for (int q = 0; q < sr.count; ++q) n += sr.end[q] - sr.begin[q];
      len[d] = n > kMaxSourceRows ? kMaxSourceRows + 1 : static_cast<int32_t>(n);
      first_row += sr.begin[0] * p.in_stride[d];
      count = count > kMaxSourceRows ? count : count * len[d];  // saturates past the limit
    }
    for (int d = 0; d < inner; ++d)
      if (len[d] == 0) count = 0;  // some axis has no source: the row is all zeros
    s_dx[r] = o;
    s_head[r] = row_head(dx + o, sizeof(T), t.vec);
    s_nrows[r] = count > kMaxSourceRows ? -1 : static_cast<int32_t>(count);
    if (count == 1) {
      s_rows[r][0] = first_row;
    } else {
      // The few outer source rows, in the odometer's order (last axis fastest).
      for (int k = 0; k < count && count <= kMaxSourceRows; ++k) {
        int rest = k;
        int64_t off = 0;
        for (int d = inner - 1; d >= 0; --d) {
          const SourceRanges &sr = s_src[r][d];
          int pick = rest % len[d];
          rest /= len[d];
          for (int q = 0; q < sr.count; ++q) {
            const int w = static_cast<int>(sr.end[q] - sr.begin[q]);
            if (pick < w) {
              off += (sr.begin[q] + pick) * p.in_stride[d];
              break;
            }
            pick -= w;
          }
        }
        s_rows[r][k] = off;
      }
    }
  }
  __syncthreads();

  if (span.nrows > 1) {  // several short rows
    const int total = span.nrows * span.units;
    for (int f = threadIdx.x; f < total; f += kThreads) {
      const int r = f / span.units;
      backward_unit_elements<T, M>(p, t, span.unit0 + (f - r * span.units), s_head[r], s_dx[r],
                                   RowSources{s_nrows[r], s_rows[r], s_src[r]});
    }
    return;
  }
  backward_long_row<T, M>(p, t, span, s_head[0], s_dx[0], RowSources{s_nrows[0], s_rows[0], s_src[0]});
}

template <class T, IndexMap M>
int launch_pad_backward(const RowsProblem &p, cudaStream_t stream) {
  const RowTiling t = make_row_tiling(p, sizeof(T), kBackwardRowsPerBlock, kBackwardThreads<T>);
  if (t.blocks == 0 || p.out_extent[p.rank - 1] == 0) return 0;
  if (t.blocks > INT_MAX) return 3;
  pad_backward_rows_kernel<T, M><<<static_cast<unsigned>(t.blocks), kBackwardThreads<T>, 0, stream>>>(p, t);
  return -static_cast<int>(cudaGetLastError());
}

template <class T>
int pad_backward_dispatch(const RowsProblem &p, cudaStream_t stream) {
  switch (p.map) {  // constant mode's backward is a slice: the plan sends it to the gather kernel
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
