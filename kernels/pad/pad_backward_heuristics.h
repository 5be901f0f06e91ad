// Pad backward's choices of pass structure (pad_backward_impl.cuh): how a
// block row finds its dy source rows, and which rows of sums are summed as
// vectors. Host-only, no CUDA.
#pragma once

#include <cstdint>

#include "common/copy_counts.h"
#include "common/rows_problem.h"
#include "pad/pad_backward_traits.h"

namespace baracuda::kernels {

// Rows whose outer source list is longer than this walk their sources from
// the coordinates, cell by cell.
constexpr int kMaxSourceRows = 8;

// The outer axis along which a dx row's sources are its own and one
// other_copy away: the one padded outer axis, when no other is padded and no
// index of it has over two copies; -1 (sources listed in general) otherwise.
template <IndexMap M>
int32_t pad_backward_pair_axis(const RowsProblem &p) {
  int32_t pair_axis = -1, padded = 0;
  for (int d = 0; d < p.rank - 1; ++d)
    if (p.out_extent[d] != p.in_extent[d]) ++padded, pair_axis = d;
  if (padded != 1 || !at_most_two_copies<M>(p.pad_low[pair_axis], p.out_extent[pair_axis], p.in_extent[pair_axis]))
    return -1;
  return pair_axis;
}

// The most outer source rows any dx row has, saturating at cap + 1.
template <IndexMap M>
int64_t pad_backward_max_sources(const RowsProblem &p, int64_t cap = kMaxSourceRows) {
  int64_t max_sources = 1;
  for (int d = 0; d < p.rank - 1; ++d) {
    const int64_t c = max_copies<M>(p.pad_low[d], p.out_extent[d], p.in_extent[d] - p.out_extent[d] - p.pad_low[d]);
    max_sources = c > cap ? cap + 1 : max_sources * c;
    if (max_sources > cap) max_sources = cap + 1;
  }
  return max_sources;
}

// The elements of a tensor of extents e[0 .. rank), saturating at cap + 1
// (an extent product past int64 is never formed).
inline int64_t elements_up_to(const int64_t *e, int rank, int64_t cap) {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d)
    if (e[d] == 0) return 0;
  for (int d = 0; d < rank; ++d) {
    if (n > cap / e[d]) return cap + 1;
    n *= e[d];
  }
  return n;
}

// Small problems (dx and dy together at most kOneLaunchBytes) are summed cell
// by cell in one launch, every dx cell from its sources in the same order as
// the passes sum it; larger ones take the three passes.
inline bool pad_backward_one_launch(const RowsProblem &p, int elem_bytes) {
  const int64_t cap = PadBackwardTraits::kOneLaunchBytes / elem_bytes;
  const int64_t dx = elements_up_to(p.out_extent, p.rank, cap);
  return dx <= cap && elements_up_to(p.in_extent, p.rank, cap - dx) <= cap - dx;
}

// Rows of sums are summed as vectors (pass 2) when they are long, unit-stride
// on both sides, and have at most kMaxSourceRows outer sources; else cell by
// cell (pass 3).
inline bool sum_rows_as_vectors(const RowsProblem &p, int elem_bytes, int64_t max_sources) {
  const int inner = p.rank - 1;
  return p.out_extent[inner] * elem_bytes >= PadBackwardTraits::kLongRowBytes && p.out_stride[inner] == 1 &&
         p.in_stride[inner] == 1 && max_sources <= kMaxSourceRows;
}

// Every dx row and every dy row has the same 16-byte phase (outer strides
// multiples of 16 bytes): the vector units are then the same in every row,
// found once on the host.
inline bool uniform_row_phases(const RowsProblem &p, int elem_bytes) {
  bool uniform = true;
  for (int d = 0; d < p.rank - 1; ++d)
    uniform &= (p.out_stride[d] * elem_bytes) % 16 == 0 && (p.in_stride[d] * elem_bytes) % 16 == 0;
  return uniform;
}

}  // namespace baracuda::kernels
