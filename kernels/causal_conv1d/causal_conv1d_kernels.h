// Entry points of the causal conv1d family's kernels, for the plan layer.
// Each returns 0, a status, or a negated CUDA error. Hidden from the ABI.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "causal_conv1d/conv1d_heuristics.h"
#include "causal_conv1d/conv1d_problem.h"
#include "causal_conv1d/conv1d_traits.h"

namespace baracuda::kernels {

// The backward keeps one partial sum of dw and db per (b, chunk of timesteps,
// channel), the chunk at most the channel tiles' (the kernels along L and the
// walk take fewer slots): its workspace, in bytes. 128-bit, so that the plan
// layer can refuse a size beyond 2^62 instead of seeing it wrap.
inline __int128 causal_conv1d_backward_workspace(int64_t batch, int64_t channels, int64_t length, int32_t width,
                                                 bool f64) {
  const int64_t chunk = conv1d_channel_chunk(Conv1dPass::Backward, batch, channels, length);
  const __int128 slots = static_cast<__int128>(batch) * ((length + chunk - 1) / chunk);
  return slots * channels * (width + 1) * (f64 ? sizeof(double) : sizeof(float));
}

struct Conv1dEntries {
  int (*forward)(const Conv1dProblem &p, cudaStream_t stream);
  int (*backward)(const Conv1dProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);
  int (*update)(const Conv1dProblem &p, cudaStream_t stream);
};

// One dtype throughout; then 16-bit x with f32 WEIGHT, BIAS, DW, DB.
extern const Conv1dEntries kCausalConv1dF32, kCausalConv1dF16, kCausalConv1dBf16, kCausalConv1dF64;
extern const Conv1dEntries kCausalConv1dF16F32w, kCausalConv1dBf16F32w;

}  // namespace baracuda::kernels
