// Pad backward for reflect, replicate and circular. Each dx cell is the sum,
// in ascending dy order, of every dy cell the forward copied it to; no
// atomics, so the result does not depend on the launch shape. The sum starts
// from -0.0, so a cell with a single source is an exact copy (-0 + x == x).
//
// Most cells have one source, so the work is split by how many sources a
// cell has, each part in a kernel lean enough for its job:
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

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <climits>

#include "common/accumulate.cuh"
#include "common/element_words.cuh"
#include "common/gather_rows.cuh"
#include "common/overlap_launch.cuh"
#include "common/pad_copies.cuh"
#include "common/rows_tiling.cuh"
#include "common/shifted_load.cuh"
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

// ---- Sums (device) ------------------------------------------------------------

// Rows whose outer source list is longer than this walk their sources from
// the coordinates, cell by cell.
constexpr int kMaxSourceRows = 8;

// A block row of sums: its dx offset, outer coordinates, and dy source rows
// in ascending order (count >= 0), or count -1 when there are too many to list.
struct SumRow {
  int64_t dx;
  int64_t coord[kMaxRank - 1];
  int64_t rows[kMaxSourceRows];
  int32_t count;
};

__device__ __forceinline__ CopyAxes dx_to_dy(const RowsProblem &p) {
  return CopyAxes{p.pad_low, p.out_extent, p.in_extent, p.in_stride, p.rank - 1};
}

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

// Units a thread sums per batch (each from every source row): fewer than the
// copy's kUnitsPerThread, since each unit holds V accumulators.
#ifndef BARACUDA_SUMS_UNITS
#define BARACUDA_SUMS_UNITS 2
#endif
constexpr int kSumUnits = BARACUDA_SUMS_UNITS;

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
#ifndef BARACUDA_CELL_GRID_BLOCKS
#define BARACUDA_CELL_GRID_BLOCKS 1024
#endif
constexpr int64_t kCellGridBlocks = BARACUDA_CELL_GRID_BLOCKS;
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

// Rows at least this many bytes long are summed as vectors, a chunk of one
// row per block, chunks as long as the copy's (with the sums before the copy,
// measured on the H200 against chunks 2x and 4x as long: 0.5-1% faster).
constexpr int64_t kLongRowBytes = 2048;

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
  const bool vectors = width * static_cast<int64_t>(sizeof(T)) >= kLongRowBytes && p.out_stride[inner] == 1 &&
                       p.in_stride[inner] == 1 && max_sources <= kMaxSourceRows;
  if (!vectors) return cells.add(dom, whole);
  int64_t cbegin, cend, rest_begin, rest_end, first = 0, last = 0;
  widest_range(complement(summed_indices<M>(lo, width, m - width - lo), width), cbegin, cend);
  if (cbegin == cend) return cells.add(dom, whole);
  bool uniform = true;
  for (int d = 0; d < inner; ++d)
    uniform &= (p.out_stride[d] * sizeof(T)) % 16 == 0 && (p.in_stride[d] * sizeof(T)) % 16 == 0;
  if (uniform) {
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
  // Sources by other_copy when one outer axis is padded and none of its indices has over two copies.
  int32_t pair_axis = -1, padded = 0;
  for (int d = 0; d < inner; ++d)
    if (p.out_extent[d] != p.in_extent[d]) ++padded, pair_axis = d;
  if (padded != 1 || !at_most_two_copies<M>(p.pad_low[pair_axis], p.out_extent[pair_axis], p.in_extent[pair_axis]))
    pair_axis = -1;
  auto domain = [&](int axis) {  // axes before `axis` single-source, `axis` summed, later ones whole
    RowDomain dom{};
    dom.pair_axis = pair_axis;
    for (int e = 0; e < inner; ++e) {
      const IndexRanges all{{0}, {p.out_extent[e]}, 1};
      dom.axis[e] = e < axis ? complement(summed[e], p.out_extent[e]) : e == axis ? summed[e] : all;
      dom.extent[e] = dom.axis[e].size();
    }
    return dom;
  };
  int64_t max_sources = 1;  // the most outer source rows any dx row has, saturating past kMaxSourceRows
  for (int d = 0; d < inner; ++d) {
    const int64_t c = max_copies<M>(p.pad_low[d], p.out_extent[d], p.in_extent[d] - p.out_extent[d] - p.pad_low[d]);
    max_sources = c > kMaxSourceRows ? kMaxSourceRows + 1 : max_sources * c;
    if (max_sources > kMaxSourceRows) max_sources = kMaxSourceRows + 1;
  }

  PassSequence passes(stream);
  CellLauncher<T, M> cells(p, passes);
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
