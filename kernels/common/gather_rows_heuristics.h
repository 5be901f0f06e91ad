// Which walk of the row kernel (gather_rows.cuh) serves a pad forward.
// Host-only, no CUDA.
#pragma once

#include <cstdint>

#include "common/copy_counts.h"
#include "common/rows_problem.h"

namespace baracuda::kernels {

// The mirror walk serves a pad forward whose one padded outer axis gives no
// input index more than two copies, and whose copies of a row share a
// 16-byte phase: it walks the axis's interior only, each block writing its
// row and the row's copy from one read (a reflected plane then costs its
// stores but no second pass of its loads through the SMs). That axis, or -1 for the plain
// gather walk. For the modes whose rows have copies (not Constant or Copy).
template <IndexMap M>
int32_t mirror_walk_axis(const RowsProblem &p, int elem_bytes) {
  int32_t axis = -1;
  for (int d = 0; d < p.rank - 1; ++d) {
    if (p.out_extent[d] == p.in_extent[d]) continue;
    if (axis >= 0) return -1;
    axis = d;
  }
  if (axis < 0 || (p.out_stride[axis] * elem_bytes) % 16 != 0) return -1;
  if (!at_most_two_copies<M>(p.pad_low[axis], p.in_extent[axis], p.out_extent[axis])) return -1;
  return axis;
}

}  // namespace baracuda::kernels
