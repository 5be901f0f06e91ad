// Random pad and pad backward problems, drawn at the row kernels' boundaries
// (kernels/common/rows_tiling_heuristics.h, kernels/pad/*_heuristics.h and
// *_traits.h), for the random-shape cases of both suites.
#pragma once

#include <algorithm>
#include <vector>

#include "gpu_helpers.hpp"
#include "random_draws.hpp"

namespace baracuda::check {

// A pad of an axis of n elements in mode, V elements to a 16-byte vector:
// 0, 1, V - 1, V, V + 1 or up to the mode's limit (reflect n - 1, circular
// n; replicate and constant past the extent, so that a row has more than
// the 8 outer sources pad backward lists); constant mode crops now and then,
// never a whole axis.
inline int64_t random_pad(Draws &d, int32_t mode, int64_t n, int64_t v) {
  if (mode == BARACUDA_PAD_CONSTANT && d.percent(20)) return -d.between(0, (n - 1) / 2);
  const int64_t most = mode == BARACUDA_PAD_REFLECT ? n - 1 : mode == BARACUDA_PAD_CIRCULAR ? n : 3 * n + v;
  return d.size({0, 1, v - 1, v, v + 1, most}, 0, most);
}

// A pad (op BARACUDA_OP_PAD) or pad backward case of dtype, every mode:
// rank 1 to 5, now and then 8. The inner axis tiny, or about a vector, a
// row of 126 to 128 vectors (a row a block from there; pad backward's 2 KiB
// row bound), of 255 or 256 vectors (the row tiles' 4 KiB bound), a chunk of 1024 vectors (long rows cut in chunks) or twice that; outer axes of 1 to 9 rows, one in four about 128
// (the rows-per-block cap), about half of them padded (one padded axis: the
// mirror and pair walks); either tensor at most 2^18 elements (pad
// backward's one-launch bound, 256 KiB of both, lies inside); every layout
// the harness has, each tensor its own.
inline PadCase random_pad_case(Draws &d, int32_t op, baracuda_dtype_t dtype) {
  const bool backward = op == BARACUDA_OP_PAD_BACKWARD;
  const int64_t v = 16 / (baracuda_dtype_bits(dtype) / 8);
  const int32_t mode =
      d.pick({BARACUDA_PAD_CONSTANT, BARACUDA_PAD_REFLECT, BARACUDA_PAD_REPLICATE, BARACUDA_PAD_CIRCULAR});
  constexpr int64_t kMaxElements = int64_t{1} << 18;
  std::vector<int64_t> in, low, high;
  int64_t in_elements = 0, out_elements = 0;
  while (in_elements == 0 || in_elements > kMaxElements || out_elements > kMaxElements) {
    const size_t rank = d.percent(5) ? 8 : static_cast<size_t>(d.between(1, 5));
    in.assign(rank, 1);
    low.assign(rank, 0);
    high.assign(rank, 0);
    in_elements = out_elements = 1;
    for (size_t a = 0; a < rank; ++a) {
      const bool inner = a + 1 == rank;
      in[a] = inner         ? d.size({1, 2, 3, v, 2 * v, 126 * v, 127 * v, 128 * v, 255 * v, 256 * v, 1024 * v, 2048 * v}, 1, 2100 * v)
              : d.percent(25) ? d.size({128}, 1, 130)
                              : d.between(1, 9);
      if (inner || d.percent(50)) {
        low[a] = random_pad(d, mode, in[a], v);
        high[a] = random_pad(d, mode, in[a], v);
      }
      in_elements *= in[a];
      out_elements *= in[a] + low[a] + high[a];
    }
  }
  // Half the time an unpadded outermost axis grows up to the bound: more
  // problems past pad backward's one-launch bound, where its passes run.
  if (in.size() > 1 && low[0] == 0 && high[0] == 0 && d.percent(50))
    in[0] *= d.between(1, kMaxElements / std::max(in_elements, out_elements));
  std::vector<Layout> inputs = {Layout::Contiguous,   Layout::Contiguous, Layout::Gapped, Layout::InnerStride2,
                                Layout::ColumnMajor, Layout::Offset,     Layout::Offset};
  if (!backward) inputs.push_back(Layout::Broadcast);
  const Layout in_layout = d.pick(inputs);
  const Layout out_layout = d.pick({Layout::Contiguous, Layout::Contiguous, Layout::Gapped, Layout::InnerStride2,
                                    Layout::ColumnMajor, Layout::Offset, Layout::Offset});
  return PadCase{pad_desc(op, dtype, mode, in, low, high, fill_for(dtype)), in_layout, out_layout, d.seed()};
}

}  // namespace baracuda::check
