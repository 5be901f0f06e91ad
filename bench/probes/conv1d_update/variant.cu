// One tree's causal conv1d update behind a C entry named PROBE_ENTRY (its
// namespace renamed on the command line, so that several trees link into
// one library): the kernels that tree's dispatch picks for the problem.
#include <cstdint>

#include "../common/conv1d_probe_view.h"
#include "causal_conv1d/causal_conv1d_impl.cuh"

namespace {

using baracuda::kernels::Conv1dProblem;

}  // namespace

// dtype: 0 bf16 x with f32 weights, 1 bf16, 2 f16 x with f32 weights, 3 f32, 4 f64.
// Every tensor contiguous: x and y [B, C, n], weight [C, W], bias [C],
// state [P, C, S], seqlens and indices [B] (null: left out).
extern "C" int PROBE_ENTRY(int dtype, void *x, void *weight, void *bias, void *y, void *state, void *seqlens,
                           void *indices, int64_t B, int64_t C, int64_t n, int32_t W, int64_t S, int64_t P,
                           int32_t silu, void *stream) {
  using namespace baracuda::kernels::conv1d;
  Conv1dProblem p;
  p.batch = B, p.channels = C, p.length = n, p.width = W, p.silu = silu;
  p.x = view(x, C * n, n, 1);
  p.y = view(y, C * n, n, 1);
  p.weight = view(weight, W, 1, 0);
  p.bias = view(bias, 1, 0, 0);
  p.state = view(state, C * S, S, 1);
  p.cache_seqlens = view(seqlens, 1, 0, 0);
  p.state_indices = view(indices, 1, 0, 0);
  p.state_len = S, p.state_rows = P;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  // PROBE_MAMBA_ONLY: bf16 x with f32 weights alone (a knob variant built in a fraction of the time).
  switch (dtype) {
    case 0: return update<__nv_bfloat16, float>(p, s);
#ifndef PROBE_MAMBA_ONLY
    case 1: return update<__nv_bfloat16, __nv_bfloat16>(p, s);
    case 2: return update<__half, float>(p, s);
    case 3: return update<float, float>(p, s);
    case 4: return update<double, double>(p, s);
#endif
  }
  return 3;
}
