// The rows problem of a pad between contiguous tensors, for the probe's
// entries (included after a tree's kernel headers, so it takes that tree's
// renamed namespace): `shape` the unpadded tensor's extents, padded by lo/hi
// per axis; forward: in unpadded, out padded; backward the other way round.
#pragma once

#include <cstdint>

#include "common/rows_problem.h"

namespace {

baracuda::kernels::RowsProblem contiguous_pad(int rank, int mode, const int64_t *shape, const int64_t *lo,
                                              const int64_t *hi, bool backward) {
  using namespace baracuda::kernels;
  RowsProblem p;
  p.rank = rank;
  p.map = static_cast<IndexMap>(mode);
  int64_t small = 1, padded = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t n = shape[d], m = shape[d] + lo[d] + hi[d];
    p.pad_low[d] = lo[d];
    p.in_extent[d] = backward ? m : n, p.out_extent[d] = backward ? n : m;
    p.in_stride[d] = backward ? padded : small, p.out_stride[d] = backward ? small : padded;
    small *= n, padded *= m;
  }
  return p;
}

}  // namespace
