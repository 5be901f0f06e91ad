#include "core/layout.hpp"

namespace baracuda {

namespace {

void copy_axis(const AxisSet &from, int32_t src, AxisSet &to, int32_t dst) {
  to.extent[dst] = from.extent[src];
  to.pinned[dst] = from.pinned[src];
  to.origin[dst] = from.origin[src];
  for (int32_t t = 0; t < from.tensors; ++t) to.stride[t][dst] = from.stride[t][src];
}

}  // namespace

AxisSet simplify_axes(const AxisSet &in) {
  AxisSet kept;
  kept.tensors = in.tensors;
  for (int32_t d = 0; d < in.rank; ++d)
    if (in.pinned[d] || in.extent[d] != 1) copy_axis(in, d, kept, kept.rank++);
  if (kept.rank == 0) {  // every axis had extent 1: one element
    copy_axis(in, in.rank - 1, kept, 0);
    kept.rank = 1;
    return kept;
  }
  AxisSet out;
  out.tensors = in.tensors;
  copy_axis(kept, kept.rank - 1, out, 0);
  out.rank = 1;
  // Walk from the innermost axis outwards; out is built innermost-first and reversed at the end.
  for (int32_t d = kept.rank - 2; d >= 0; --d) {
    const int32_t inner = out.rank - 1;
    bool merge = !kept.pinned[d] && !out.pinned[inner];
    for (int32_t t = 0; merge && t < kept.tensors; ++t)
      merge = kept.stride[t][d] == out.stride[t][inner] * out.extent[inner];
    if (merge) {
      out.extent[inner] *= kept.extent[d];  // the merged axis keeps the inner stride
    } else {
      copy_axis(kept, d, out, out.rank++);
    }
  }
  AxisSet reversed;
  reversed.tensors = out.tensors;
  reversed.rank = out.rank;
  for (int32_t d = 0; d < out.rank; ++d) copy_axis(out, out.rank - 1 - d, reversed, d);
  return reversed;
}

}  // namespace baracuda
