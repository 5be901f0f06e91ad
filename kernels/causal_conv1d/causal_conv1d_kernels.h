// Entry points of the causal conv1d family's kernels, for the plan layer.
// Each returns 0, a status, or a negated CUDA error. Hidden from the ABI.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace baracuda::kernels {

// A tensor as the kernels see it: its data and element strides, over
// [B, C, L] (or [C, W], [C], [B]); data null when the argument was left out.
struct Conv1dView {
  void *data = nullptr;
  int64_t stride[3] = {};
};

struct Conv1dProblem {
  int64_t batch = 0, channels = 0;
  int64_t length = 0;  // L; the update's n new tokens
  int32_t width = 0;
  int32_t silu = 0;
  Conv1dView x, weight, bias, y, initial, final_states;  // forward (and the inputs of the others)
  Conv1dView dy, dx, dweight, dbias, dinitial;           // backward
  Conv1dView state, cache_seqlens;                       // update
  int64_t state_len = 0;
};

// The backward keeps one partial sum of dw and db per (b, chunk of this
// many timesteps, channel): its workspace, in bytes. 128-bit, so that the plan
// layer can refuse a size beyond 2^62 instead of seeing it wrap.
constexpr int64_t kConv1dChunk = 256;
inline __int128 causal_conv1d_backward_workspace(int64_t batch, int64_t channels, int64_t length, int32_t width,
                                                 bool f64) {
  const __int128 slots = static_cast<__int128>(batch) * ((length + kConv1dChunk - 1) / kConv1dChunk);
  return slots * channels * (width + 1) * (f64 ? sizeof(double) : sizeof(float));
}

struct Conv1dEntries {
  int (*forward)(const Conv1dProblem &p, cudaStream_t stream);
  int (*backward)(const Conv1dProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);
  int (*update)(const Conv1dProblem &p, cudaStream_t stream);
};

extern const Conv1dEntries kCausalConv1dF32, kCausalConv1dF16, kCausalConv1dBf16, kCausalConv1dF64;

}  // namespace baracuda::kernels
