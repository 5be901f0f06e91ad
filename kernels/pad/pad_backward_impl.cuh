// Pad backward for reflect, replicate and circular. Each dx cell is the sum,
// in ascending dy order, of every dy cell the forward copied it to; no
// atomics, so the result does not depend on the launch shape. The sum starts
// from -0.0, so a cell with a single source is an exact copy (-0 + x == x).
//
// Small problems (pad_backward_one_launch) run as one launch of the cells
// kernel (pass 3 below) over every dx cell: launch latency dominates them.
// In larger ones most cells have one source, so the work is split by how
// many sources a cell has, each part in a kernel lean enough for its job:
//   1. the copy pass: dx rows whose outer axes have one dy source row are a
//      shifted copy of it (the gather kernel's single-source walk);
//   2. rows of sums: for each outer axis d with summed indices, the dx rows
//      whose earlier axes have one source and axis d several, summed as
//      vectors (pad_backward_sum_rows_kernel), one launch per such axis;
//   3. cells: the columns the vectors left (row ends, the band of columns
//      with several sources along the row, in the rows of pass 1 too), one
//      thread per cell, all in one launch (pad_backward_sum_cells_kernel).
// Pass 1 writes only the widest span of single-source columns of its rows,
// pass 3 the rest of them, so no two passes write the same cell with
// different values: they run as independent launches, each overlapping the
// one before it (common/overlap_launch.cuh), in the order cells, rows of
// sums, copy.
#pragma once

#include <cuda_runtime.h>

#include <climits>

#include "common/gather_rows.cuh"
#include "common/overlap_launch.cuh"
#include "common/pad_copies.cuh"
#include "common/rows_tiling.cuh"
#include "pad/pad_backward_heuristics.h"
#include "pad/pad_backward_sums.cuh"
#include "pad/pad_backward_tiles.cuh"
#include "pad/pad_backward_traits.h"
#include "pad/pad_kernels.h"

namespace baracuda::kernels {

// ---- Which dx indices have several sources ------------------------------------

// Sorted, overlapping or touching spans joined.
__host__ __device__ inline IndexRanges joined(IndexRanges r) {
  IndexRanges out{};
  for (int q = 0; q < r.count; ++q)  // at most three spans: a selection sort
    for (int k = q + 1; k < r.count; ++k)
      if (r.begin[k] < r.begin[q]) {
        const int64_t b = r.begin[q], e = r.end[q];
        r.begin[q] = r.begin[k], r.end[q] = r.end[k];
        r.begin[k] = b, r.end[k] = e;
      }
  for (int q = 0; q < r.count; ++q) {
    if (r.begin[q] >= r.end[q]) continue;
    if (out.count > 0 && r.begin[q] <= out.end[out.count - 1]) {
      if (r.end[q] > out.end[out.count - 1]) out.end[out.count - 1] = r.end[q];
    } else {
      out.begin[out.count] = r.begin[q];
      out.end[out.count] = r.end[q];
      ++out.count;
    }
  }
  return out;
}

// The dx indices of an axis (n dx cells, pads lo and hi) with more than one
// dy source: the indices whose copies_of has size > 1.
template <IndexMap M>
__host__ __device__ IndexRanges summed_indices(int64_t lo, int64_t n, int64_t hi) {
  IndexRanges r{};
  auto add = [&r](int64_t b, int64_t e) {
    r.begin[r.count] = b;
    r.end[r.count] = e;
    ++r.count;
  };
  if constexpr (M == IndexMap::Reflect) {
    add(1, lo + 1);
    add(n - 1 - hi, n - 1);
  } else if constexpr (M == IndexMap::Replicate) {
    if (lo > 0 || (n == 1 && hi > 0)) add(0, 1);
    if (hi > 0) add(n - 1, n);
  } else {
    add(0, hi);
    add(n - lo, n);
  }
  return joined(r);
}

// [0, n) less the joined spans r.
__host__ __device__ inline IndexRanges complement(const IndexRanges &r, int64_t n) {
  IndexRanges out{};
  int64_t at = 0;
  for (int q = 0; q < r.count; ++q) {
    if (r.begin[q] > at) {
      out.begin[out.count] = at;
      out.end[out.count] = r.begin[q];
      ++out.count;
    }
    at = r.end[q];
  }
  if (at < n) {
    out.begin[out.count] = at;
    out.end[out.count] = n;
    ++out.count;
  }
  return out;
}

// ---- Launches (host) ----------------------------------------------------------

// Collects cell jobs and launches them kCellJobsPerLaunch at a time.
template <class T, IndexMap M>
class CellLauncher {
 public:
  CellLauncher(const RowsProblem &p, PassSequence &passes) : p_(p), passes_(passes) {}

  int add(const RowDomain &dom, const IndexRanges &cols) {
    CellJob job{dom, cols, {}, 0};
    RowsProblem shape = p_;  // the tiling's view: a unit per listed column
    shape.out_extent[p_.rank - 1] = cols.size();
    shape.out_stride[p_.rank - 1] = 0;
    // About one cell per thread, so each block's cells wait on memory once.
    job.t = make_row_tiling(shape, dom.extent, sizeof(T), kGatherThreads, kGatherThreads / kUnitsPerThread);
    if (job.t.blocks == 0 || cols.size() == 0) return 0;
    if (jobs_.count == kCellJobsPerLaunch)
      if (const int rc = flush()) return rc;
    job.first_block = blocks_;
    blocks_ += job.t.blocks;
    jobs_.job[jobs_.count++] = job;
    return 0;
  }

  int flush() {
    if (jobs_.count == 0) return 0;
    const int64_t grid = blocks_ < kCellGridBlocks ? blocks_ : kCellGridBlocks;
    const int rc = passes_.launch(pad_backward_sum_cells_kernel<T, M>, static_cast<unsigned>(grid), kGatherThreads, p_,
                                  jobs_, blocks_);
    jobs_.count = 0;
    blocks_ = 0;
    return rc;
  }

 private:
  RowsProblem p_;
  PassSequence &passes_;
  CellJobs jobs_{};
  int64_t blocks_ = 0;
};

// The widest of ranges (empty ranges give [0, 0)).
inline void widest_range(const IndexRanges &r, int64_t &begin, int64_t &end) {
  begin = end = 0;
  for (int k = 0; k < r.count; ++k)
    if (r.end[k] - r.begin[k] > end - begin) begin = r.begin[k], end = r.end[k];
}

// A pass 2 launch: the vector units [first, last) of the columns [cbegin,
// cend) of dom's rows (first == last: found per row).
struct SumRowsLaunch {
  RowTiling t;
  RowDomain dom;
  int64_t cbegin, cend, first, last;
};

// Plans pass 2 over the rows of dom. Long rows: vectors inside the widest span
// of single-source columns (launch.t.blocks > 0), and a cells job for the
// columns outside the vectors. Where every dx row and every dy row has the
// same 16-byte phase (outer strides multiples of 16 bytes), every row has the
// same vector units and the cells are exactly the rest; otherwise the vectors
// keep a vector's margin inside the span, so that none is trimmed for its
// loads, and the cells take the span's ends grown by two vectors (an overlap
// written twice, with equal sums). dom's rows may have at most
// kMaxSourceRows outer sources for the vectors.
template <class T, IndexMap M>
int plan_sum_rows(const RowsProblem &p, const RowDomain &dom, int64_t max_sources, CellLauncher<T, M> &cells,
                  SumRowsLaunch &launch) {
  constexpr int64_t V = 16 / sizeof(T);
  const int inner = p.rank - 1;
  const int64_t width = p.out_extent[inner], lo = p.pad_low[inner], m = p.in_extent[inner];
  const IndexRanges whole{{0}, {width}, 1};
  launch.t.blocks = 0;
  if (!sum_rows_as_vectors(p, sizeof(T), max_sources)) return cells.add(dom, whole);
  int64_t cbegin, cend, rest_begin, rest_end, first = 0, last = 0;
  widest_range(complement(summed_indices<M>(lo, width, m - width - lo), width), cbegin, cend);
  if (cbegin == cend) return cells.add(dom, whole);
  if (uniform_row_phases(p, sizeof(T))) {
    const int32_t head = row_head(p.out, sizeof(T), V);
    vector_run(head, V, width, cbegin, cend, static_cast<const T *>(p.in), lo, m, first, last);
    rest_begin = first < last ? head + (first - 1) * V : width;
    rest_end = first < last ? head + (last - 1) * V : width;
  } else {
    cbegin += V;
    cend -= V;
    rest_begin = cbegin + V;
    rest_end = cend - V;
  }
  if (rest_end - rest_begin < 2 * V) return cells.add(dom, whole);
  launch.t = make_row_tiling(p, dom.extent, sizeof(T), 1, kGatherThreads);
  if (launch.t.blocks > INT_MAX) return 3;  // UNSUPPORTED: over 2^31 blocks
  launch.dom = dom;
  launch.cbegin = cbegin, launch.cend = cend, launch.first = first, launch.last = last;
  return cells.add(dom, joined(IndexRanges{{0, rest_end}, {rest_begin, width}, 2}));
}

template <class T, IndexMap M>
int launch_pad_backward(const RowsProblem &p, cudaStream_t stream) {
  const int inner = p.rank - 1;
  const int64_t width = p.out_extent[inner];
  IndexRanges summed[kMaxRank];
  for (int d = 0; d < p.rank; ++d)
    summed[d] = summed_indices<M>(p.pad_low[d], p.out_extent[d], p.in_extent[d] - p.out_extent[d] - p.pad_low[d]);
  int64_t single_begin, single_end;  // the dx columns of one inner source each that tiles sum as vectors
  widest_range(complement(summed[inner], width), single_begin, single_end);
  SumTiles tiles;
  if (width <= INT32_MAX &&
      pad_backward_takes_tiles(p, sizeof(T), pad_backward_max_sources<M>(p, kMaxTileSmemBytes),
                               sum_band_columns<M>(p, summed[inner].size()), tiles)) {
    const int32_t a = static_cast<int32_t>(single_begin);  // short rows, any size
    return launch_pad_backward_tiles<T, M>(p, tiles, a, single_end > single_begin ? static_cast<int32_t>(single_end) : a,
                                           stream);
  }
  const int32_t pair_axis = pad_backward_pair_axis<M>(p);
  // Axes before `axis` single-source, `axis` summed, later ones whole (axis -1: every row).
  auto domain = [&](int axis) {
    RowDomain dom{};
    dom.pair_axis = pair_axis;
    for (int e = 0; e < inner; ++e) {
      const IndexRanges all{{0}, {p.out_extent[e]}, 1};
      dom.axis[e] = e < axis ? complement(summed[e], p.out_extent[e]) : e == axis ? summed[e] : all;
      dom.extent[e] = dom.axis[e].size();
    }
    return dom;
  };
  const int64_t max_sources = pad_backward_max_sources<M>(p);

  PassSequence passes(stream);
  CellLauncher<T, M> cells(p, passes);
  if (pad_backward_one_launch(p, sizeof(T))) {  // every cell of every row, in the cells kernel alone
    if (const int rc = cells.add(domain(-1), IndexRanges{{0}, {width}, 1})) return rc;
    return cells.flush();
  }
  SumRowsLaunch sums[kMaxRank];
  int nsums = 0;
  for (int d = 0; d < inner; ++d)  // pass 2's plans, and their cells
    if (summed[d].count > 0) {
      if (const int rc = plan_sum_rows<T, M>(p, domain(d), max_sources, cells, sums[nsums])) return rc;
      if (sums[nsums].t.blocks > 0) ++nsums;
    }
  WalkArgs<RowWalk::SingleSource> single;  // pass 1 copies the widest single-source span; pass 3 sums the rest
  single.dom = domain(inner);
  widest_range(complement(summed[inner], width), single.cbegin, single.cend);
  if (const int rc = cells.add(single.dom, joined(IndexRanges{{0, single.cend}, {single.cbegin, width}, 2}))) return rc;
  if (const int rc = cells.flush()) return rc;  // first: the passes after it overlap its latency-bound cells

  // The rows of sums before the copy: the copy pass's short-lived blocks then
  // fill the last wave of the sums' longer ones, and end the op.
  for (int k = 0; k < nsums; ++k) {
    const SumRowsLaunch &q = sums[k];
    if (const int rc = passes.launch(pad_backward_sum_rows_kernel<T, M>, static_cast<unsigned>(q.t.blocks),
                                     kGatherThreads, p, q.t, q.dom, q.cbegin, q.cend, q.first, q.last))
      return rc;
  }
  if (single.cbegin >= single.cend) return 0;
  RowsProblem copy = p;  // pass 1 reads dy at dx index + lo
  for (int d = 0; d < p.rank; ++d) copy.pad_low[d] = -p.pad_low[d];
  return launch_rows_walk<sizeof(T), M, RowWalk::SingleSource>(copy, single, stream, &passes);
}

template <class T>
int pad_backward_dispatch(const RowsProblem &p, cudaStream_t stream) {
  switch (p.map) {  // constant mode's backward is a slice: the plan sends it to the gather kernel
    case IndexMap::Reflect:
      return launch_pad_backward<T, IndexMap::Reflect>(p, stream);
    case IndexMap::Replicate:
      return launch_pad_backward<T, IndexMap::Replicate>(p, stream);
    case IndexMap::Circular:
      return launch_pad_backward<T, IndexMap::Circular>(p, stream);
    default:
      return 2;
  }
}

}  // namespace baracuda::kernels

#define BARACUDA_PAD_BACKWARD_ENTRY(NAME, TYPE)                                            \
  int baracuda::kernels::pad_backward_##NAME##_run(const RowsProblem &p, cudaStream_t s) { \
    return pad_backward_dispatch<TYPE>(p, s);                                              \
  }
