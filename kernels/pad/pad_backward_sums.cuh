// Pad backward's device side: the rows-of-sums kernel (pass 2, vectors) and
// the cells kernel (passes 2 and 3, a cell per thread), and how a block row
// finds its dy source rows. The passes and their launches:
// pad_backward_impl.cuh.
#pragma once

#include <cuda_runtime.h>

#include "common/accumulate.cuh"
#include "common/element_words.cuh"
#include "common/gather_rows.cuh"
#include "common/overlap_launch.cuh"
#include "common/pad_copies.cuh"
#include "common/rows_tiling.cuh"
#include "common/shifted_load.cuh"
#include "pad/pad_backward_copies.cuh"
#include "pad/pad_backward_heuristics.h"
#include "pad/pad_backward_traits.h"

namespace baracuda::kernels {

// ---- Sums (device) ------------------------------------------------------------

// A block row of sums: its dx offset, outer coordinates, and dy source rows
// in ascending order (count >= 0), or count -1 when there are too many to list.
struct SumRow {
  int64_t dx;
  int64_t coord[kMaxRank - 1];
  int64_t rows[kMaxSourceRows];
  int32_t count;
};

// dx cell (row, column c): the sum over every outer source row, in ascending
// dy order, of the column's inner sources.
template <class T, IndexMap M>
__device__ T summed_cell(const RowsProblem &p, const SumRow &r, int64_t c) {
  using A = typename Accum<T>::type;
  const int inner = p.rank - 1;
  const T *dy = static_cast<const T *>(p.in);
  const int64_t is = p.in_stride[inner];
  const IndexRanges cols = copies_of<M>(c, p.pad_low[inner], p.out_extent[inner], p.in_extent[inner]);
  A acc = A(-0.0);
  auto row = [&](int64_t base) {
    if constexpr (M != IndexMap::Replicate) {  // single-index ranges: loads first, then the ordered adds
      T v[3];
#pragma unroll
      for (int q = 0; q < 3; ++q)
        if (q < cols.count) v[q] = dy[base + cols.begin[q] * is];
#pragma unroll
      for (int q = 0; q < 3; ++q)
        if (q < cols.count) acc += Accum<T>::load(v[q]);
    } else {
      for (int q = 0; q < cols.count; ++q)
        for (int64_t j = cols.begin[q]; j < cols.end[q]; ++j) acc += Accum<T>::load(dy[base + j * is]);
    }
  };
  if (r.count >= 0) {
    for (int q = 0; q < r.count; ++q) row(r.rows[q]);
  } else {
    const CopyAxes a = dx_to_dy(p);
    for_each_copy_row<M>(r.coord, a, copy_row_count<M>(r.coord, a), row);
  }
  return Accum<T>::store(acc);
}

// The block rows' SumRows (one per thread of the first span.nrows).
template <IndexMap M>
__device__ __forceinline__ void plan_sum_row(const RowsProblem &p, const RowDomain &dom, int64_t g, SumRow &r) {
  const int inner = p.rank - 1;
  RowCoords rc(g, dom.extent, inner);
  int64_t o = 0;
#pragma unroll
  for (int d = kMaxRank - 2; d >= 0; --d) {
    if (d >= inner) continue;
    const int64_t c = nth_index(dom.axis[d], rc.next(dom.extent[d]));
    r.coord[d] = c;
    o += c * p.out_stride[d];
  }
  r.dx = o;
  const int a = dom.pair_axis;
  if (a < 0) {
    r.count = expand_copy_rows<M>(r.coord, dx_to_dy(p), r.rows, kMaxSourceRows);
    return;
  }
  // One padded axis: the row's own source, and the other copy along it when
  // there is one, in ascending dy order (the general lister's order).
  int64_t own = 0;
  for (int d = 0; d < inner; ++d) own += (r.coord[d] + p.pad_low[d]) * p.in_stride[d];
  const int64_t lo = p.pad_low[a], c = r.coord[a];
  const int64_t other = other_copy<M>(c, lo, p.out_extent[a], p.in_extent[a]);
  r.rows[0] = own;
  r.count = 1;
  if (other < 0) return;
  const int64_t other_row = own + (other - (c + lo)) * p.in_stride[a];
  r.rows[other < c + lo ? 0 : 1] = other_row;
  r.rows[other < c + lo ? 1 : 0] = own;
  r.count = 2;
}

constexpr int kSumUnits = PadBackwardTraits::kSumUnits;

// Pass 2, vectors: of a long dx row with several outer source rows (at most
// kMaxSourceRows), the units inside the columns [cbegin, cend) that have one
// inner source and whose loads stay inside every source row. The other
// columns are left to the cells kernel.
// [lean_first, lean_last): those units when every row has the same ones
// (rows of equal 16-byte phase, found once on the host); empty: per row.
template <class T, IndexMap M>
__global__ void __launch_bounds__(kGatherThreads)
    pad_backward_sum_rows_kernel(RowsProblem p, RowTiling t, RowDomain dom, int64_t cbegin, int64_t cend,
                                 int64_t lean_first, int64_t lean_last) {
  constexpr int kThreads = kGatherThreads;
  using A = typename Accum<T>::type;
  using P = Pack16<T>;
  constexpr int V = P::kCount;
  let_next_pass_start();
  __shared__ SumRow s_row;
  const BlockSpan span = block_span(t);
  if (threadIdx.x == 0) plan_sum_row<M>(p, dom, span.row0, s_row);
  __syncthreads();

  const int inner = p.rank - 1;
  const int nsrc = s_row.count;
  if (nsrc <= 0) return;
  const T *dy = static_cast<const T *>(p.in);
  T *row = static_cast<T *>(p.out) + s_row.dx;
  const int64_t width = p.out_extent[inner], lo = p.pad_low[inner], m = p.in_extent[inner];
  const int32_t head = row_head(row, sizeof(T), t.vec);
  int64_t first = lean_first, last = lean_last;  // the same for every row where phases agree
  if (first >= last) {
    first = 1, last = 1 + floor_div(width - head, V);
    for (int q = 0; q < nsrc; ++q) {
      int64_t f, l;
      vector_run(head, V, width, cbegin, cend, dy + s_row.rows[q], lo, m, f, l);
      first = f > first ? f : first;
      last = l < last ? l : last;
    }
  }
  const int64_t end = span.unit0 + span.units;
  auto lean = [&](int64_t u) { return u >= first && u < last && u < end; };
  for (int64_t batch = span.unit0 + threadIdx.x; batch < end; batch += kThreads * kSumUnits) {
    A acc[kSumUnits][V];
#pragma unroll
    for (int k = 0; k < kSumUnits; ++k)
#pragma unroll
      for (int e = 0; e < V; ++e) acc[k][e] = A(-0.0);
    // Ascending dy rows, two at a time: both rows' loads of the batch in flight together.
    for (int q = 0; q < nsrc; q += 2) {
      const bool pair = q + 1 < nsrc;
      const T *in0 = dy + s_row.rows[q] + head + lo;
      const T *in1 = dy + s_row.rows[pair ? q + 1 : q] + head + lo;
      Pair16 raw0[kSumUnits], raw1[kSumUnits];
#pragma unroll
      for (int k = 0; k < kSumUnits; ++k) {
        const int64_t u = batch + k * kThreads;
        if (!lean(u)) continue;
        raw0[k] = issue_load16_at(in0 + (u - 1) * V);
        if (pair) raw1[k] = issue_load16_at(in1 + (u - 1) * V);
      }
      const int shift0 = shift16_of(in0), shift1 = shift16_of(in1);
#pragma unroll
      for (int k = 0; k < kSumUnits; ++k) {
        if (!lean(batch + k * kThreads)) continue;
        P x;
        x.vector = combine16(raw0[k], shift0);
#pragma unroll
        for (int e = 0; e < V; ++e) acc[k][e] += Accum<T>::load(x.elem[e]);
        if (!pair) continue;
        x.vector = combine16(raw1[k], shift1);
#pragma unroll
        for (int e = 0; e < V; ++e) acc[k][e] += Accum<T>::load(x.elem[e]);
      }
    }
#pragma unroll
    for (int k = 0; k < kSumUnits; ++k) {
      const int64_t u = batch + k * kThreads;
      if (!lean(u)) continue;
      P out;
#pragma unroll
      for (int e = 0; e < V; ++e) out.elem[e] = Accum<T>::store(acc[k][e]);
      *reinterpret_cast<uint4 *>(row + head + (u - 1) * V) = out.vector;
    }
  }
}

// A set of cells to sum: the columns cols of the dx rows of dom, tiled by t
// (a unit per listed column, after an empty unit 0), from block first_block
// of its launch.
struct CellJob {
  RowDomain dom;
  IndexRanges cols;
  RowTiling t;
  int64_t first_block;
};
constexpr int kCellJobsPerLaunch = 4;
struct CellJobs {
  CellJob job[kCellJobsPerLaunch];
  int count;
};

// Passes 2 and 3, cells: one cell per thread, several rows per block, every
// job of the launch (the leftover columns of each pass 2 launch, and pass 3)
// in one grid of `blocks` blocks, walked by a grid of at most
// kCellGridBlocks, which starts whole at once: the passes after it then
// start at once too and overlap its latency-bound work.
constexpr int64_t kCellGridBlocks = PadBackwardTraits::kCellGridBlocks;
template <class T, IndexMap M>
__global__ void __launch_bounds__(kGatherThreads)
    pad_backward_sum_cells_kernel(RowsProblem p, CellJobs jobs, int64_t blocks) {
  constexpr int kThreads = kGatherThreads;
  let_next_pass_start();
  __shared__ SumRow s_row[kThreads];
  T *dx = static_cast<T *>(p.out);
  const int64_t os = p.out_stride[p.rank - 1];
  for (int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    int j = 0;
    while (j + 1 < jobs.count && jobs.job[j + 1].first_block <= b) ++j;
    const CellJob &job = jobs.job[j];
    const BlockSpan span = block_span(job.t, b - job.first_block);
    if (static_cast<int>(threadIdx.x) < span.nrows)
      plan_sum_row<M>(p, job.dom, span.row0 + threadIdx.x, s_row[threadIdx.x]);
    __syncthreads();
    const int total = span.nrows * span.units;
    for (int f = threadIdx.x; f < total; f += kThreads) {
      const int r = f / span.units;
      const int64_t u = span.unit0 + (f - r * span.units);
      if (u == 0) continue;
      const int64_t c = nth_index(job.cols, u - 1);
      dx[s_row[r].dx + c * os] = summed_cell<T, M>(p, s_row[r], c);
    }
    __syncthreads();  // before the rows are planned again
  }
}

}  // namespace baracuda::kernels
