// How a rows problem is cut into thread blocks. A row is cut into "units":
// unit 0 covers the elements before the first 16-byte boundary of the output
// row, every later unit one 16-byte vector (or one element when the output
// row is not unit-stride). A block of `threads` threads takes several short
// rows (about threads * kUnitsPerThread units in all), or one chunk of up to
// GatherRowsTraits::kChunkBatches times that of a long row, which its threads
// walk in batches of kUnitsPerThread units each so that a batch's loads are all in
// flight together. Long chunks keep the per-block set-up (the row's offsets)
// small beside the bytes moved.
#pragma once

#include <climits>
#include <cstdint>

#include "common/rows_problem.h"
#include "common/rows_tiling_heuristics.h"
#include "common/shifted_load.cuh"

namespace baracuda::kernels {

#ifdef __CUDACC__

// The rows and units of this block.
struct BlockSpan {
  int64_t row0;
  int32_t nrows;
  int64_t unit0;
  int32_t units;  // per row, in this block
};

// b: the block's index within the launch's share of blocks for t.
__device__ inline BlockSpan block_span(const RowTiling &t, int64_t b = blockIdx.x) {
  BlockSpan s;
  const int64_t row_block = b / t.chunks_per_row;
  const int64_t chunk = b - row_block * t.chunks_per_row;
  s.row0 = row_block * t.rows_per_block;
  const int64_t rows_left = t.num_rows - s.row0;
  s.nrows = static_cast<int32_t>(rows_left < t.rows_per_block ? rows_left : t.rows_per_block);
  s.unit0 = chunk * t.units_per_chunk;
  const int64_t units_left = t.units_per_row - s.unit0;
  s.units = static_cast<int32_t>(units_left < t.units_per_chunk ? units_left : t.units_per_chunk);
  return s;
}

// Row index g (< the product of extent[0 .. axes)) split into coordinates,
// innermost first, by calls to next(); 32-bit division when everything fits,
// as it nearly always does, since 64-bit division is several times dearer.
struct RowCoords {
  int64_t rest;
  bool narrow;
  __device__ RowCoords(int64_t g, const int64_t *extent, int axes) : rest(g), narrow(g < INT32_MAX) {
    for (int d = 0; d < axes; ++d) narrow &= extent[d] < INT32_MAX;
  }
  __device__ int64_t next(int64_t extent) {
    int64_t c;
    if (narrow) {
      const uint32_t r = static_cast<uint32_t>(rest), e = static_cast<uint32_t>(extent);
      c = r % e;
      rest = r / e;
    } else {
      c = rest % extent;
      rest /= extent;
    }
    return c;
  }
};

// The output columns [begin, end) of unit u in a row of `width` elements
// whose first `head` elements precede the first 16-byte boundary.
__device__ inline void unit_columns(int64_t u, int32_t head, int32_t vec, int64_t width, int64_t &begin,
                                    int64_t &end) {
  if (u == 0) {
    begin = 0;
    end = head < width ? head : width;
  } else {
    begin = head + (u - 1) * vec;
    end = begin + vec < width ? begin + vec : width;
  }
}

// Elements before the first 16-byte boundary of an output row starting at
// byte address `addr` (element-aligned). 0 when rows are not unit-stride.
__host__ __device__ inline int32_t row_head(const void *addr, int elem_bytes, int32_t vec) {
  if (vec == 1) return 0;
  const uint32_t mis = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(addr) & 15u);
  return mis == 0 ? 0 : static_cast<int32_t>((16u - mis) / static_cast<uint32_t>(elem_bytes));
}

__host__ __device__ __forceinline__ int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The full 16-byte units [first, last) of a row (head elements before the
// first boundary, vec elements per unit) whose columns c all lie in
// [cbegin, cend) and read source element c + delta of a source row of
// src_len elements, such that issue_load16_at stays inside that row. Units in the
// run cost two vector loads, a funnel shift and one vector store each.
template <class E>
__host__ __device__ inline void vector_run(int32_t head, int32_t vec, int64_t width, int64_t cbegin, int64_t cend,
                                  const E *src_row, int64_t delta, int64_t src_len, int64_t &first,
                                  int64_t &last) {
  const int64_t lo = cbegin > 0 ? cbegin : 0;
  const int64_t hi = cend < width ? cend : width;
  first = 1 + floor_div(lo - head + vec - 1, vec);
  if (first < 1) first = 1;
  last = 1 + floor_div(hi - head, vec);
  auto safe = [&](int64_t u) {
    return can_load16_at(src_row + head + (u - 1) * vec + delta, src_row, src_row + src_len);
  };
  while (first < last && !safe(first)) ++first;
  while (first < last && !safe(last - 1)) --last;
}

// The units of [unit0, end) outside the lean run [first, last), numbered
// 0 .. count: the front ones, then the back ones. Edge k goes to lane
// k / warps of warp k % warps (first_edge), so that a row's few slow edge
// units run in different warps rather than one after another in one.
template <int Threads>
struct EdgeUnits {
  int64_t unit0, front, lean_end, count;

  __device__ EdgeUnits(int64_t begin, int64_t end, int64_t first, int64_t last) : unit0(begin) {
    const int64_t lean_begin = first < begin ? begin : (first > end ? end : first);
    lean_end = last < lean_begin ? lean_begin : (last > end ? end : last);
    front = lean_begin - begin;
    count = front + (end - lean_end);
  }
  __device__ int64_t unit(int64_t k) const { return k < front ? unit0 + k : lean_end + (k - front); }
  __device__ static int64_t first_edge() { return (threadIdx.x % 32) * (Threads / 32) + threadIdx.x / 32; }
};

// Output index j of one axis mapped to the input, per the IndexMap; -1 when
// it falls outside a Constant-mode input.
template <IndexMap M>
__device__ __forceinline__ int64_t map_index(int64_t j, int64_t pad_low, int64_t n) {
  const int64_t i = j - pad_low;
  if constexpr (M == IndexMap::Copy) {
    return i;
  } else if constexpr (M == IndexMap::Constant) {
    return (i >= 0 && i < n) ? i : -1;
  } else if constexpr (M == IndexMap::Reflect) {
    return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i);
  } else if constexpr (M == IndexMap::Replicate) {
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
  } else {
    return i < 0 ? i + n : (i >= n ? i - n : i);
  }
}

#endif  // __CUDACC__

}  // namespace baracuda::kernels
