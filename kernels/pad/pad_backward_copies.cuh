// The inverse of a pad's index map, as pad backward walks it: the output
// indices that a pad forward fills from one input index, and the dy rows
// that hold copies of a dx row. Pad backward sums, into each dx cell, the dy
// cells these name.
#pragma once

#include <climits>
#include <cstdint>

#include "common/copy_counts.h"
#include "common/pad_copies.cuh"

namespace baracuda::kernels {

// The output indices that copy input index i, in ascending order: a run
// [begin, end) with at most one single index before it and one after it
// (-1: none). n: input extent, m = lo + n + hi: output extent. Scalars, so
// that a caller indexing them stays in registers; of any signed index type
// (the row tiles' short rows take 32-bit ones).
template <class I>
struct CopyRunOf {
  I before, begin, end, after;
};
using CopyRun = CopyRunOf<int64_t>;

template <IndexMap M, class I>
__host__ __device__ __forceinline__ CopyRunOf<I> copy_run(I i, I lo, I n, I m) {
  const I j = i + lo;  // where the forward put x[i] itself
  CopyRunOf<I> r{-1, j, j + 1, -1};
  if constexpr (M == IndexMap::Reflect) {
    if (i >= 1 && i <= lo) r.before = lo - i;
    const I mirror = lo + 2 * (n - 1) - i;
    if (mirror >= lo + n && mirror < m) r.after = mirror;
  } else if constexpr (M == IndexMap::Replicate) {
    if (i == 0) r.begin = 0;
    if (i == n - 1) r.end = m;
  } else if constexpr (M == IndexMap::Circular) {
    if (j - n >= 0) r.before = j - n;
    if (j + n < m) r.after = j + n;
  }
  return r;
}

__host__ __device__ __forceinline__ int64_t copy_run_size(const CopyRun &r) {
  return (r.before >= 0) + (r.end - r.begin) + (r.after >= 0);
}

// The k-th (0-based) of those indices.
__host__ __device__ __forceinline__ int64_t nth_copy(const CopyRun &r, int64_t k) {
  if (r.before >= 0) {
    if (k == 0) return r.before;
    --k;
  }
  return k < r.end - r.begin ? r.begin + k : r.after;
}

// The same indices as up to three ascending ranges.
template <IndexMap M>
__host__ __device__ __forceinline__ IndexRanges copies_of(int64_t i, int64_t lo, int64_t n, int64_t m) {
  const CopyRun r = copy_run<M>(i, lo, n, m);
  IndexRanges s;
  s.count = 0;
  auto add = [&s](int64_t b, int64_t e) {
    s.begin[s.count] = b;
    s.end[s.count] = e;
    ++s.count;
  };
  if (r.before >= 0) add(r.before, r.before + 1);
  add(r.begin, r.end);
  if (r.after >= 0) add(r.after, r.after + 1);
  return s;
}

// Where copies_of's results land, axis by axis over the outer axes: the
// source extents n, the copied extents m, the pads and the strides of the
// copied side.
struct CopyAxes {
  const int64_t *lo;
  const int64_t *n;
  const int64_t *m;
  const int64_t *stride;
  int axes;
};

// A pad backward's dy rows that hold copies of a dx row (out = dx, in = dy).
__device__ __forceinline__ CopyAxes dx_to_dy(const RowsProblem &p) {
  return CopyAxes{p.pad_low, p.out_extent, p.in_extent, p.in_stride, p.rank - 1};
}

// How many rows the copies of the row at outer coordinates coord make.
template <IndexMap M>
__device__ __forceinline__ int64_t copy_row_count(const int64_t *coord, const CopyAxes &a) {
  int64_t count = 1;
#pragma unroll
  for (int d = 0; d < kMaxRank - 1; ++d)
    if (d < a.axes) count *= copy_count<M>(coord[d], a.lo[d], a.n[d], a.m[d]);
  return count;
}

// The offset of the k-th (0-based) of those rows, in ascending order (last
// axis fastest), the row's coordinates given by coord_at(d), asked for from
// the last outer axis to the first. The axes' loop is unrolled so that a
// caller's coord array stays in registers.
template <IndexMap M, class CoordAt>
__device__ __forceinline__ int64_t nth_copy_row_at(CoordAt &&coord_at, const CopyAxes &a, int64_t count, int64_t k) {
  int64_t rest = k, off = 0;
#pragma unroll
  for (int d = kMaxRank - 2; d >= 0; --d) {
    if (d >= a.axes) continue;
    const CopyRun r = copy_run<M>(coord_at(d), a.lo[d], a.n[d], a.m[d]);
    const int64_t size = copy_run_size(r);
    int64_t pick = 0;  // the copy of a row's single copy along most axes needs no division
    if (size > 1 && count <= INT32_MAX) {  // 32-bit division: several times cheaper
      pick = static_cast<uint32_t>(rest) % static_cast<uint32_t>(size);
      rest = static_cast<uint32_t>(rest) / static_cast<uint32_t>(size);
    } else if (size > 1) {
      pick = rest % size;
      rest /= size;
    }
    off += nth_copy(r, pick) * a.stride[d];
  }
  return off;
}

template <IndexMap M>
__device__ __forceinline__ int64_t nth_copy_row(const int64_t *coord, const CopyAxes &a, int64_t count, int64_t k) {
  return nth_copy_row_at<M>([coord](int d) { return coord[d]; }, a, count, k);
}

// fn(offset) for each of those rows, in ascending order.
template <IndexMap M, class Fn>
__device__ __forceinline__ void for_each_copy_row(const int64_t *coord, const CopyAxes &a, int64_t count, Fn &&fn) {
  for (int64_t k = 0; k < count; ++k) fn(nth_copy_row<M>(coord, a, count, k));
}

// The offsets of those rows into rows[0 .. cap); how many, or -1 when more than cap.
template <IndexMap M>
__device__ __forceinline__ int expand_copy_rows(const int64_t *coord, const CopyAxes &a, int64_t *rows, int cap) {
  const int64_t count = copy_row_count<M>(coord, a);
  if (count > cap) return -1;
  int k = 0;
  for_each_copy_row<M>(coord, a, count, [&](int64_t off) { rows[k++] = off; });
  return static_cast<int>(count);
}

}  // namespace baracuda::kernels
