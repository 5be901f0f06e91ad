// An attention problem as the kernels see it: extents, the score pipeline's
// options, and the tensors' addresses and strides (in elements), already
// validated by the plan layer (see include/baracuda/sdpa.h for the meaning of
// every field). Host-includable, no CUDA.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

// A [B, H, S, D] tensor: its address and the strides of B, H and S (D's is 1).
struct SdpaTensor {
  const void *data;
  int64_t stride[3];
};
struct SdpaOutTensor {
  void *data;
  int64_t stride[3];
};

struct SdpaProblem {
  int64_t batch, heads_q, heads_kv, queries, keys;
  int32_t head_dim, head_dim_v;  // D and Dv, multiples of 8 up to 256
  double scale;                  // resolved: never 0 for the default (f32 kernels round it to float)
  double softcap;                // 0: none
  bool causal;
  bool bottom_right;             // i' = i + K - Q, else i' = i
  int64_t window_left, window_right;  // -1: unbounded
  int32_t alibi;                 // 0, BARACUDA_ALIBI_SIGNED or BARACUDA_ALIBI_SYMMETRIC
  // SLOPES (f32; f64 for f64 attention): strides of B and H, B's 0 for [Hq] slopes.
  const void *slopes;
  int64_t slope_stride[2];

  SdpaTensor q, k, v;
  SdpaOutTensor out;
  // LSE [B, Hq, Q] (f32; f64 for f64): strides of B, H and Q. Optional in the
  // forward (data NULL: not written), an input of the backward.
  void *lse;
  int64_t lse_stride[3];

  // Backward only.
  SdpaTensor dout;
  SdpaOutTensor dq, dk, dv;
  bool deterministic;  // the plan promised bitwise repeatable results
};

}  // namespace baracuda::kernels
