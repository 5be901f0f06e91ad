// Which pad forwards take the flat walk (pad_forward_flat.cuh) rather than
// the row kernel. Host-only, no CUDA.
#pragma once

#include <cstdint>

#include "common/flat_rows.h"
#include "common/rows_problem.h"
#include "pad/pad_flat_traits.h"

namespace baracuda::kernels {

// The flat walk wins where every vector takes its lean path (measured on
// the H200: with vectors gathered element by element, divergent within
// their warps, it ran up to 2.7x slower than the row kernel): rows of
// at most PadFlatTraits::kMaxRowBytes, each of whole 16-byte vectors of an
// aligned output; no pad column (an inner axis unpadded or cropped) and no
// row of fill values (constant outer pads that only crop); input rows of one
// 16-byte phase (outer strides multiples of 16 bytes), so that the last
// vector of the first row stands for every row in keeping its two aligned
// loads inside the input row. Constant mode's backward (a slice of dy, run
// as a forward with the pads negated) is the case that meets it.
inline bool pad_forward_takes_flat_walk(const RowsProblem &p, int elem_bytes) {
  if (!flat_walk_serves(p, elem_bytes)) return false;
  const int inner = p.rank - 1;
  const int64_t w = p.out_extent[inner], n = p.in_extent[inner], lo = p.pad_low[inner];
  const int64_t row_bytes = w * elem_bytes;
  if (row_bytes > PadFlatTraits::kMaxRowBytes || row_bytes % 16 != 0) return false;
  if (reinterpret_cast<uintptr_t>(p.out) % 16 != 0 || lo > 0 || lo + n < w) return false;
  for (int d = 0; d < inner; ++d) {
    if ((p.in_stride[d] * elem_bytes) % 16 != 0) return false;
    if (p.map == IndexMap::Constant && (p.pad_low[d] > 0 || p.pad_low[d] + p.in_extent[d] < p.out_extent[d]))
      return false;
  }
  const uintptr_t row = reinterpret_cast<uintptr_t>(p.in);
  const uintptr_t last = row + static_cast<uintptr_t>((w - 16 / elem_bytes - lo) * elem_bytes);
  const uintptr_t loads_end = (last & ~uintptr_t{15}) + ((last & 15u) ? 32 : 16);
  return loads_end <= row + static_cast<uintptr_t>(n * elem_bytes);
}

}  // namespace baracuda::kernels
