// One tree's causal conv1d forward (bias + SiLU) behind a C entry named
// PROBE_ENTRY, for one x dtype (PROBE_DTYPE: 0 bf16 x with f32 weights, 2 f16
// x with f32 weights, 3 f32), its namespace renamed on the command line so
// that several trees link into one library. variant 0: the kernel the tree's
// heuristics choose; with PROBE_DIRECT (a tree that has conv1d_direct.cuh),
// variants 1.. force a register-fed kernel and its knobs (status 3 where the
// layout does not fit it).
#include <cstdint>

#include "../common/conv1d_probe_view.h"
#include "causal_conv1d/causal_conv1d_impl.cuh"
#ifdef PROBE_DIRECT
#include "causal_conv1d/conv1d_direct.cuh"
#endif

namespace {

using baracuda::kernels::Conv1dKernel;
using baracuda::kernels::Conv1dLaunch;
using baracuda::kernels::Conv1dPass;
using baracuda::kernels::Conv1dProblem;
namespace cv = baracuda::kernels::conv1d;


#ifdef PROBE_DIRECT
// blocks: the launch's grid (0: the probe's own).
template <int W, int Steps>
int rows(const Conv1dProblem &p, cudaStream_t s, int64_t blocks = 0) {
  constexpr int V = cv::kTimeVec<T>;
  const int64_t units = p.length / V;
  if constexpr (W - 1 > V) return 3;
  if (p.length % V || (units & (units - 1)) || units < 1) return 3;
  if (!blocks) blocks = (p.batch * p.channels * units + cv::kThreads * Steps - 1) / (cv::kThreads * Steps);
  cv::forward_direct_rows_kernel<T, W, true, Wt, Steps>
      <<<static_cast<unsigned>(blocks), cv::kThreads, 0, s>>>(p, __builtin_ctzll(units));
  return -static_cast<int>(cudaGetLastError());
}
#endif

// The tree's forward_launch for SiLU alone (half the instantiations).
template <int W>
int heuristic(const Conv1dProblem &p, const Conv1dLaunch &l, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>(l.grid_x), static_cast<unsigned>(l.grid_y), static_cast<unsigned>(l.grid_z));
  switch (l.kernel) {
    case Conv1dKernel::StagedTimeTiles:
      cv::forward_time_tiles_kernel<T, W, true, Wt><<<grid, cv::kThreads, 0, s>>>(p);
      break;
    case Conv1dKernel::StagedRowGroups:
      cv::forward_row_groups_kernel<T, W, true, Wt><<<grid, cv::kThreads, 0, s>>>(p);
      break;
    case Conv1dKernel::StagedChannelTiles:
      cv::forward_channel_tiles_kernel<T, W, true, false, Wt>
          <<<grid, cv::kThreads, 0, s>>>(p, static_cast<int>(l.chunk));
      break;
#ifdef PROBE_DIRECT
    case Conv1dKernel::DirectRows:
      return rows<W, baracuda::kernels::Conv1dTraits::direct_rows_steps(sizeof(T))>(p, s, l.grid_x);
#endif
    default:
      return 3;
  }
  return -static_cast<int>(cudaGetLastError());
}


template <int W>
int run(const Conv1dProblem &p, int variant, bool cl, cudaStream_t s) {
  if (variant == 0)
    return heuristic<W>(p, baracuda::kernels::choose_conv1d_launch(Conv1dPass::Forward, sizeof(T), p), s);
#ifdef PROBE_DIRECT
  if (!cl) {
    if (variant == 1) return rows<W, 1>(p, s);
    if (variant == 2) return rows<W, 2>(p, s);
    if (variant == 3) return rows<W, 4>(p, s);
  }
#endif
  return 3;
}

}  // namespace

// x and y [B, C, L] contiguous (cl 0) or channels-last ([B, L, C] memory, cl 1);
// weight [C, W], bias [C] contiguous; initial states [B, C, W-1] contiguous
// (null: zeros). Returns 0, 3 (variant does not serve the row) or a negative
// CUDA error.
extern "C" int PROBE_ENTRY(int variant, void *x, void *weight, void *bias, void *y, int64_t B, int64_t C, int64_t L,
                           int32_t W, int32_t cl, void *initial, void *stream) {
  Conv1dProblem p;
  p.batch = B, p.channels = C, p.length = L, p.width = W, p.silu = 1;
  p.x = cl ? view(x, C * L, 1, C) : view(x, C * L, L, 1);
  p.y = cl ? view(y, C * L, 1, C) : view(y, C * L, L, 1);
  p.weight = view(weight, W, 1, 0);
  p.bias = view(bias, 1, 0, 0);
  p.initial = view(initial, C * (W - 1), W - 1, 1);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (W == 2) return run<2>(p, variant, cl, s);
  if (W == 3) return run<3>(p, variant, cl, s);
  if (W == 4) return run<4>(p, variant, cl, s);
  return 3;
}
