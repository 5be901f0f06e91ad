// One tree's causal conv1d forward behind a C entry named PROBE_ENTRY, for
// one x dtype (PROBE_DTYPE: 0 bf16 x with f32 weights, 2 f16 x with f32
// weights, 3 f32, 4 f64), its namespace renamed on the command line so that
// several trees link into one library. variant 0: the tree's own forward
// (its heuristics' launch, SiLU on or off) for widths PROBE_MIN_W ..
// PROBE_MAX_W (not built with PROBE_VARIANTS_ONLY); with PROBE_VARIANTS (probe_variants.cuh on the include path,
// defining probe_variant<T, Wt, W>(p, variant, stream)), variants 1.. force
// other kernels of the tree.
#include <cstdint>

#include "../common/conv1d_probe_view.h"
#include "causal_conv1d/causal_conv1d_impl.cuh"
#ifdef PROBE_VARIANTS
#include "probe_variants.cuh"
#endif
#ifndef PROBE_MIN_W
#define PROBE_MIN_W 2
#endif
#ifndef PROBE_MAX_W
#define PROBE_MAX_W 4
#endif

namespace {

using baracuda::kernels::Conv1dProblem;
namespace cv = baracuda::kernels::conv1d;

template <int W = PROBE_MIN_W>
int run(const Conv1dProblem &p, int variant, cudaStream_t s) {
  if constexpr (W > PROBE_MAX_W) {
    return 3;
  } else {
    if (p.width != W) return run<W + 1>(p, variant, s);
#ifndef PROBE_VARIANTS_ONLY
    if (variant == 0) return cv::forward_width<T, Wt, W>(p, s);
#endif
#ifdef PROBE_VARIANTS
    return probe_variant<T, Wt, W>(p, variant, s);
#else
    return 3;
#endif
  }
}

}  // namespace

// x and y [B, C, L] with stride 1 along L (cl 0) or along C (channels-last,
// cl 1), batch_stride elements between batch rows (0: dense); weight [C, W],
// bias [C] contiguous; initial states [B, C, W-1] contiguous and seq_idx [B,
// L] int32 contiguous (null: none). Returns 0, 3 (not served) or a status /
// negative CUDA error.
extern "C" int PROBE_ENTRY(int variant, int silu, void *x, void *weight, void *bias, void *y, int64_t B, int64_t C,
                           int64_t L, int32_t W, int32_t cl, int64_t batch_stride, void *initial, void *seq_idx,
                           void *stream) {
  Conv1dProblem p;
  p.batch = B, p.channels = C, p.length = L, p.width = W, p.silu = silu;
  const int64_t bs = batch_stride ? batch_stride : C * L;
  p.x = cl ? view(x, bs, 1, C) : view(x, bs, L, 1);
  p.y = cl ? view(y, bs, 1, C) : view(y, bs, L, 1);
  p.weight = view(weight, W, 1, 0);
  p.bias = view(bias, 1, 0, 0);
  p.initial = view(initial, C * (W - 1), W - 1, 1);
  p.seq_idx = view(seq_idx, L, 1, 0);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return run(p, variant, s);
}
