// One tree's causal conv1d backward behind C entries named PROBE_ENTRY and
// PROBE_ENTRY_workspace (its namespace renamed on the command line, so that
// several trees link into one library): the main kernel the tree's
// heuristics pick for a dense [B, C, L] problem with bias and SiLU, then the
// reduction of its dw/db partial sums, as the tree's backward_launch would.
// Only the kernels of the [B, C, L] rows the probe times are instantiated
// (the time tiles and the row groups, widths 2-4, 2-8 with PROBE_WIDE), so that a tree builds in
// seconds; PROBE_DTYPE picks the element and weight types of the TU.
#include <cstdint>

#include "../common/conv1d_probe_view.h"
#include "causal_conv1d/causal_conv1d_impl.cuh"

namespace {

using baracuda::kernels::Conv1dProblem;

template <int W>
int launch(const Conv1dProblem &p, float *partials, cudaStream_t s) {
  using namespace baracuda::kernels;
  using namespace baracuda::kernels::conv1d;
  const Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Backward, sizeof(T), p);
  const dim3 grid = grid_of(l);
  if (l.kernel == Conv1dKernel::StagedTimeTiles) {
    if (l.sums_direct)
      backward_time_tiles_kernel<T, W, true, Wt, true><<<grid, kThreads, 0, s>>>(p, nullptr);
    else
      backward_time_tiles_kernel<T, W, true, Wt><<<grid, kThreads, 0, s>>>(p, partials);
  } else if (l.kernel == Conv1dKernel::StagedRowGroups) {
    backward_row_groups_kernel<T, W, true, Wt><<<grid, kThreads, 0, s>>>(p, l.sums_direct ? nullptr : partials);
#ifdef PROBE_REGISTER_TILES
  } else if (l.kernel == Conv1dKernel::RegisterTimeTiles) {
    if constexpr (kHaloVecs<T, W> == 1) {  // (as the tree's dispatch: the heuristics take no other)
      if (l.sums_direct)
        backward_register_tiles_kernel<T, W, true, Wt, true><<<grid, kThreads, 0, s>>>(p, nullptr);
      else
        backward_register_tiles_kernel<T, W, true, Wt><<<grid, kThreads, 0, s>>>(p, partials);
    }
#endif
  } else {
    return 1000 + static_cast<int>(l.kernel);  // not a kernel this probe builds
  }
  if (const int rc = launch_error()) return rc;
  if ((p.dweight.data || p.dbias.data) && !l.sums_direct)
    return launch_overlapping(reduce_partials_kernel<T, W, Wt>, blocks_for(p.channels * (W + 1)), kThreads, s, p,
                              static_cast<const float *>(partials), l.partial_slots);
  return 0;
}

}  // namespace

// Every tensor contiguous: x, dy, dx [B, C, L], weight [C, W], bias, db [C],
// dw [C, W]; dw and db null: the main kernel alone (no reduction launch).
extern "C" int PROBE_ENTRY(void *x, void *weight, void *bias, void *dy, void *dx, void *dw, void *db, int64_t B,
                           int64_t C, int64_t L, int32_t W, void *workspace, int64_t workspace_bytes, void *stream) {
  using namespace baracuda::kernels;
  Conv1dProblem p;
  p.batch = B, p.channels = C, p.length = L, p.width = W, p.silu = 1;
  p.x = view(x, C * L, L, 1);
  p.dy = view(dy, C * L, L, 1);
  p.dx = view(dx, C * L, L, 1);
  p.weight = view(weight, W, 1, 0);
  p.bias = view(bias, 1, 0, 0);
  p.dweight = view(dw, W, 1, 0);
  p.dbias = view(db, 1, 0, 0);
  if (workspace_bytes < causal_conv1d_backward_workspace(B, C, L, W, false)) return 4;
  auto *partials = static_cast<float *>(workspace);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (W) {
    case 2: return launch<2>(p, partials, s);
    case 3: return launch<3>(p, partials, s);
    case 4: return launch<4>(p, partials, s);
#ifdef PROBE_WIDE  // widths 5-8 too (a correctness pass)
    case 5: return launch<5>(p, partials, s);
    case 6: return launch<6>(p, partials, s);
    case 7: return launch<7>(p, partials, s);
    case 8: return launch<8>(p, partials, s);
#endif
  }
  return 3;
}

#define PROBE_CAT2(a, b) a##b
#define PROBE_CAT(a, b) PROBE_CAT2(a, b)
extern "C" int64_t PROBE_CAT(PROBE_ENTRY, _workspace)(int64_t B, int64_t C, int64_t L, int32_t W) {
  return static_cast<int64_t>(baracuda::kernels::causal_conv1d_backward_workspace(B, C, L, W, false));
}
