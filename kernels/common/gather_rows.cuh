// The row kernel behind pad forward and write_slice: every output element is
// one input element (or the fill value), found through an IndexMap per axis.
// Stores are 16-byte vectors along the aligned part of each output row. Where
// a block works on one long row, the units whose inputs are one contiguous
// run (the row's interior) take a lean path: index arithmetic linear in the
// unit, two aligned vector loads and a funnel shift, all units' loads issued
// before any is used. Row edges, short rows and strided rows go element by
// element.
//
// Three walks share the kernel, differing only in which output rows the
// blocks take. Gather: every output row. Mirror (pad forward with one padded
// outer axis): the rows of that axis's interior, each also stored to its copy
// in the pad. Single-source (pad backward's copy pass): the dx rows whose
// outer axes have one dy source row, each that row shifted; rows of sums are
// left to the backward's own kernels.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstring>

#include "common/element_words.cuh"
#include "common/gather_rows_heuristics.h"
#include "common/gather_rows_traits.h"
#include "common/overlap_launch.cuh"
#include "common/pad_copies.cuh"
#include "common/rows_tiling.cuh"
#include "common/shifted_load.cuh"

namespace baracuda::kernels {

// One unit's elements, read element by element (any mapping, any strides)
// apart from being written, so that the loads can be issued early.
template <int Bytes>
struct UnitElements {
  Pack16<typename Word<Bytes>::type> vals;
  int64_t c0, c1;  // its columns
};

template <int Bytes, IndexMap M>
__device__ __forceinline__ UnitElements<Bytes> load_unit_elements(const RowsProblem &p, const RowTiling &t, int64_t u,
                                                                  int32_t head, int64_t in_base,
                                                                  typename Word<Bytes>::type fill_value) {
  using E = typename Word<Bytes>::type;
  constexpr int V = Pack16<E>::kCount;
  const int inner = p.rank - 1;
  const int64_t n = p.in_extent[inner], lo = p.pad_low[inner], is = p.in_stride[inner];
  const E *in = static_cast<const E *>(p.in);
  UnitElements<Bytes> x;
  unit_columns(u, head, t.vec, p.out_extent[inner], x.c0, x.c1);
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const int64_t c = x.c0 + e;
    if (c >= x.c1) break;
    const int64_t m = in_base < 0 ? -1 : map_index<M>(c, lo, n);
    x.vals.elem[e] = m < 0 ? fill_value : in[in_base + m * is];
  }
  return x;
}

// Stores the unit's elements whose columns lie in [cbegin, cend).
template <int Bytes>
__device__ __forceinline__ void store_unit_elements(const RowsProblem &p, int64_t out_base,
                                                    const UnitElements<Bytes> &x, int64_t cbegin, int64_t cend) {
  using E = typename Word<Bytes>::type;
  constexpr int V = Pack16<E>::kCount;
  const int64_t os = p.out_stride[p.rank - 1];
  E *out = static_cast<E *>(p.out) + out_base;
  if (x.c1 - x.c0 == V && os == 1 && x.c0 >= cbegin && x.c1 <= cend) {
    *reinterpret_cast<uint4 *>(out + x.c0) = x.vals.vector;
    return;
  }
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const int64_t c = x.c0 + e;
    if (c < x.c1 && c >= cbegin && c < cend) out[c * os] = x.vals.elem[e];
  }
}

enum class RowWalk { Gather, Mirror, SingleSource };

// What a walk needs besides the problem: nothing, the padded axis whose copies
// a mirror walk writes, or the rows with one source and the columns of them
// it writes (the caller writes the others).
template <RowWalk W>
struct WalkArgs {};
template <>
struct WalkArgs<RowWalk::Mirror> {
  int32_t axis;
  int64_t lo, n, m;  // the axis's pad_low, input and output extents before it was cut to its interior
};
template <>
struct WalkArgs<RowWalk::SingleSource> {
  RowDomain dom;
  int64_t cbegin, cend;
};

// Where block row g reads (in_base, -1 for a row of fill values) and writes.
template <IndexMap M, RowWalk W>
__device__ __forceinline__ void plan_row(const RowsProblem &p, const WalkArgs<W> &w, int64_t g, int64_t &in_base,
                                         int64_t &out_base, int64_t &mirror) {
  const int inner = p.rank - 1;
  int64_t o = 0, i = 0;
  bool fill = false;
  mirror = 0;
  if constexpr (W == RowWalk::SingleSource) {  // dx row c reads dy row c + lo; pad_low holds -lo
    RowCoords rc(g, w.dom.extent, inner);
#pragma unroll
    for (int d = kMaxRank - 2; d >= 0; --d) {
      if (d >= inner) continue;
      const int64_t c = nth_index(w.dom.axis[d], rc.next(w.dom.extent[d]));
      o += c * p.out_stride[d];
      i += (c - p.pad_low[d]) * p.in_stride[d];
    }
  } else {
    RowCoords rc(g, p.out_extent, inner);
    for (int d = inner - 1; d >= 0; --d) {
      const int64_t c = rc.next(p.out_extent[d]);
      o += c * p.out_stride[d];
      const int64_t m = map_index<M>(c, p.pad_low[d], p.in_extent[d]);
      fill |= m < 0;
      i += m * p.in_stride[d];
      if constexpr (W == RowWalk::Mirror) {
        if (d == w.axis) {  // the interior row c has at most one other copy along the axis
          const int64_t other = other_copy<M>(c, w.lo, w.n, w.m);
          if (other >= 0) mirror = (other - (c + w.lo)) * p.out_stride[d];
        }
      }
    }
  }
  in_base = fill ? -1 : i;
  out_base = o;
}

template <int Bytes>
constexpr int gather_min_blocks() {
  return Bytes >= 4 ? GatherRowsTraits::kMinBlocksWide : GatherRowsTraits::kMinBlocksNarrow;
}

constexpr int kGatherThreads = GatherRowsTraits::kThreads;

template <int Bytes, IndexMap M, RowWalk W>
__global__ void __launch_bounds__(kGatherThreads, gather_min_blocks<Bytes>())
    gather_rows_kernel(RowsProblem p, RowTiling t, WalkArgs<W> w) {
  constexpr int kThreads = kGatherThreads;
  if constexpr (W == RowWalk::SingleSource) let_next_pass_start();  // pad backward's next pass may overlap it
  // The index map of the walk: the copy pass reads dy at dx index + lo.
  constexpr IndexMap kMap = W == RowWalk::SingleSource ? IndexMap::Copy : M;
  using E = typename Word<Bytes>::type;
  using P = Pack16<E>;
  constexpr int V = P::kCount;
  __shared__ int64_t s_out[kMaxRowsPerBlock];
  __shared__ int64_t s_mirror[W == RowWalk::Mirror ? kMaxRowsPerBlock : 1];  // offset of the row's copy, 0: none
  __shared__ int64_t s_in[kMaxRowsPerBlock];                                 // -1: a row of fill values
  __shared__ int32_t s_head[kMaxRowsPerBlock];

  const BlockSpan span = block_span(t);
  const int inner = p.rank - 1;
  const E *in = static_cast<const E *>(p.in);
  E *out = static_cast<E *>(p.out);

  if (static_cast<int>(threadIdx.x) < span.nrows) {
    int64_t in_base, out_base, mirror;
    plan_row<M, W>(p, w, span.row0 + threadIdx.x, in_base, out_base, mirror);
    s_out[threadIdx.x] = out_base;
    if constexpr (W == RowWalk::Mirror) s_mirror[threadIdx.x] = mirror;
    s_in[threadIdx.x] = in_base;
    s_head[threadIdx.x] = row_head(out + out_base, Bytes, t.vec);
  }
  __syncthreads();

  E fill_value;
  memcpy(&fill_value, p.fill, Bytes);
  // The columns the walk writes.
  int64_t cbegin = 0, cend = p.out_extent[inner];
  if constexpr (W == RowWalk::SingleSource) cbegin = w.cbegin, cend = w.cend;

  if (span.nrows > 1) {  // several short rows
    const int total = span.nrows * span.units;
    for (int f = threadIdx.x; f < total; f += kThreads) {
      const int r = f / span.units;
      const UnitElements<Bytes> x =
          load_unit_elements<Bytes, kMap>(p, t, span.unit0 + (f - r * span.units), s_head[r], s_in[r], fill_value);
      store_unit_elements<Bytes>(p, s_out[r], x, cbegin, cend);
      if constexpr (W == RowWalk::Mirror)
        if (s_mirror[r]) store_unit_elements<Bytes>(p, s_out[r] + s_mirror[r], x, cbegin, cend);
    }
    return;
  }

  // One row (or a chunk of one): the lean path over its vector run.
  const int32_t head = s_head[0];
  const int64_t in_base = s_in[0], out_base = s_out[0];
  const int64_t mirror = W == RowWalk::Mirror ? s_mirror[0] : 0;
  const int64_t width = p.out_extent[inner], n = p.in_extent[inner], lo = p.pad_low[inner];
  int64_t first = 0, last = 0;  // empty unless rows are unit-stride
  if (t.vec == V && p.out_stride[inner] == 1) {
    if (in_base < 0) {
      first = 1;
      last = 1 + floor_div(width - head, V);
    } else if (p.in_stride[inner] == 1) {
      vector_run(head, V, width, lo > cbegin ? lo : cbegin, lo + n < cend ? lo + n : cend, in + in_base, -lo, n, first,
                 last);
    }
  }
  P fill_pack;
#pragma unroll
  for (int e = 0; e < V; ++e) fill_pack.elem[e] = fill_value;

  const int64_t end = span.unit0 + span.units;
  auto lean = [&](int64_t u) { return u >= first && u < last && u < end; };
  const int shift = shift16_of(in + in_base + head - lo);  // the same for every unit of the row
  for (int64_t batch = span.unit0 + threadIdx.x; batch < end; batch += kThreads * kUnitsPerThread) {
    Pair16 raw[kUnitsPerThread];
#pragma unroll
    for (int k = 0; k < kUnitsPerThread; ++k) {
      const int64_t u = batch + k * kThreads;
      if (lean(u) && in_base >= 0) raw[k] = issue_load16_at(in + in_base + head + (u - 1) * V - lo);
    }
#pragma unroll
    for (int k = 0; k < kUnitsPerThread; ++k) {
      const int64_t u = batch + k * kThreads;
      if (!lean(u)) continue;
      const uint4 v = in_base < 0 ? fill_pack.vector : combine16(raw[k], shift);
      *reinterpret_cast<uint4 *>(out + out_base + head + (u - 1) * V) = v;
      if constexpr (W == RowWalk::Mirror)
        if (mirror) *reinterpret_cast<uint4 *>(out + out_base + mirror + head + (u - 1) * V) = v;
    }
  }
  // The edge units last: read ahead of the vector loads, they cost the
  // registers that occupancy needs (measured slower on the H200).
  const EdgeUnits<kThreads> edges(span.unit0, end, first, last);
  for (int64_t edge = EdgeUnits<kThreads>::first_edge(); edge < edges.count; edge += kThreads) {
    const UnitElements<Bytes> x = load_unit_elements<Bytes, kMap>(p, t, edges.unit(edge), head, in_base, fill_value);
    store_unit_elements<Bytes>(p, out_base, x, cbegin, cend);
    if (mirror) store_unit_elements<Bytes>(p, out_base + mirror, x, cbegin, cend);
  }
}

// 0, or the negated CUDA error of the launch: an ordinary one on stream, or
// the next pass of passes.
template <int Bytes, IndexMap M, RowWalk W>
int launch_rows_walk(const RowsProblem &p, const WalkArgs<W> &w, cudaStream_t stream, PassSequence *passes = nullptr) {
  const int64_t *row_extent = p.out_extent;
  if constexpr (W == RowWalk::SingleSource) row_extent = w.dom.extent;
  const RowTiling t = make_row_tiling(p, row_extent, Bytes, kMaxRowsPerBlock, kGatherThreads);
  if (t.blocks == 0 || p.out_extent[p.rank - 1] == 0) return 0;
  if (t.blocks > INT_MAX) return 3;  // UNSUPPORTED: over 2^31 blocks (~2^41 elements)
  if (passes)
    return passes->launch(gather_rows_kernel<Bytes, M, W>, static_cast<unsigned>(t.blocks), kGatherThreads, p, t, w);
  gather_rows_kernel<Bytes, M, W><<<static_cast<unsigned>(t.blocks), kGatherThreads, 0, stream>>>(p, t, w);
  return -static_cast<int>(cudaGetLastError());
}

// The mirror walk's arguments and the problem cut to the axis's interior,
// where mirror_walk_axis takes it; false otherwise.
template <int Bytes, IndexMap M>
bool mirror_walk(const RowsProblem &p, WalkArgs<RowWalk::Mirror> &w, RowsProblem &q) {
  w.axis = mirror_walk_axis<M>(p, Bytes);
  if (w.axis < 0) return false;
  const int a = w.axis;
  w.lo = p.pad_low[a], w.n = p.in_extent[a], w.m = p.out_extent[a];
  q = p;
  q.out = static_cast<unsigned char *>(p.out) + w.lo * p.out_stride[a] * Bytes;
  q.out_extent[a] = w.n;
  q.pad_low[a] = 0;
  return true;
}

template <int Bytes, IndexMap M>
int launch_gather_rows(const RowsProblem &p, cudaStream_t stream) {
  if constexpr (M != IndexMap::Constant && M != IndexMap::Copy) {  // the modes whose rows have copies
    WalkArgs<RowWalk::Mirror> w;
    RowsProblem q;
    if (mirror_walk<Bytes, M>(p, w, q)) return launch_rows_walk<Bytes, M, RowWalk::Mirror>(q, w, stream);
  }
  return launch_rows_walk<Bytes, M, RowWalk::Gather>(p, WalkArgs<RowWalk::Gather>{}, stream);
}

}  // namespace baracuda::kernels
