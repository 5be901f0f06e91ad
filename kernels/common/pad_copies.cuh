// Ranges of indices along one axis of a pad, and the one other output index
// that copies an input index where an axis has at most two: what the gather
// kernel's walks (mirror, single-source) and pad backward share.
#pragma once

#include <cstdint>

#include "common/rows_problem.h"

namespace baracuda::kernels {

// Up to three ascending ranges [begin, end) of output indices.
struct IndexRanges {
  int64_t begin[3];
  int64_t end[3];
  int count;

  __host__ __device__ int64_t size() const {
    int64_t n = 0;
    for (int q = 0; q < count; ++q) n += end[q] - begin[q];
    return n;
  }
};

// The output index other than i + lo that copies input i, or -1, on an axis
// where no index has more than two copies (the case the mirror walk serves).
template <IndexMap M>
__host__ __device__ __forceinline__ int64_t other_copy(int64_t i, int64_t lo, int64_t n, int64_t m) {
  if constexpr (M == IndexMap::Reflect) {
    if (i >= 1 && i <= lo) return lo - i;
    const int64_t mirror = lo + 2 * (n - 1) - i;
    return mirror >= lo + n && mirror < m ? mirror : -1;
  } else if constexpr (M == IndexMap::Replicate) {
    if (i == 0 && lo > 0) return 0;
    return i == n - 1 && m > lo + n ? lo + n : -1;
  } else if constexpr (M == IndexMap::Circular) {
    if (i + lo - n >= 0) return i + lo - n;
    return i + lo + n < m ? i + lo + n : -1;
  } else {
    return -1;
  }
}

// The outer indices a row walk visits, per axis (rows of sums, or rows with
// one source), and how many of each: the extents its rows are counted over.
struct RowDomain {
  IndexRanges axis[kMaxRank - 1];
  int64_t extent[kMaxRank];
  // The one padded outer axis when no other is padded and no index has more
  // than two copies (a row's sources are then its own and one other_copy
  // away); -1 otherwise.
  int32_t pair_axis = -1;
};

// The k-th index (0-based) of the ranges r.
__host__ __device__ __forceinline__ int64_t nth_index(const IndexRanges &r, int64_t k) {
  for (int q = 0; q < 3; ++q) {
    if (q >= r.count) break;
    const int64_t w = r.end[q] - r.begin[q];
    if (k < w) return r.begin[q] + k;
    k -= w;
  }
  return -1;
}

}  // namespace baracuda::kernels
