// Float64 reference of attention, written from include/baracuda/sdpa.h: the
// score pipeline (scale, softcap, ALiBi bias, mask) per (i, j), the forward
// (out, lse) and the backward (dq, dk, dv, with softcap's derivative; dk and
// dv of a shared kv head summed over its query heads). Dense row-major
// arrays: q [B][Hq][Q][D], k [B][Hkv][K][D], v [B][Hkv][K][Dv], out and dout
// [B][Hq][Q][Dv], lse [B][Hq][Q], slopes [Hq] or [B][Hq].
//
// Also the "math path" that PyTorch's sdpa takes at f16 / bf16, emulated:
// every product summed in f32 and each stage rounded to the dtype (scores,
// probabilities, out; in the backward dp, ds and the gradients). FlashAttention
// judges its kernels by this path's error against float64 (theirs may be at
// most twice as large), and so do the GPU tests.
#pragma once

#include <cstdint>
#include <vector>

#include "baracuda/baracuda.h"

namespace baracuda::reference {

struct SdpaShape {
  int64_t batch = 1, heads_q = 1, heads_kv = 1, queries = 1, keys = 1;
  int64_t head_dim = 8, head_dim_v = 8;
  double scale = 0;    // resolved, never 0
  double softcap = 0;  // 0: none
  bool causal = false, bottom_right = false;
  int64_t window_left = -1, window_right = -1;
  int32_t alibi = 0;  // 0, BARACUDA_ALIBI_SIGNED or _SYMMETRIC
  bool per_batch_slopes = false;
};

struct SdpaInputs {
  std::vector<double> q, k, v, slopes;
};

struct SdpaForward {
  std::vector<double> out, lse;  // lse -inf for a row that sees no key
};

struct SdpaGrads {
  std::vector<double> dq, dk, dv;
};

// Whether key j is visible to query i.
bool sdpa_visible(const SdpaShape &s, int64_t i, int64_t j);

SdpaForward sdpa_forward(const SdpaShape &s, const SdpaInputs &in);
SdpaGrads sdpa_backward(const SdpaShape &s, const SdpaInputs &in, const std::vector<double> &dout);

// The math path at dtype (f16 or bf16); the inputs already hold dtype values.
SdpaForward sdpa_forward_math_path(const SdpaShape &s, const SdpaInputs &in, baracuda_dtype_t dtype);
SdpaGrads sdpa_backward_math_path(const SdpaShape &s, const SdpaInputs &in, const std::vector<double> &dout,
                                  baracuda_dtype_t dtype);

}  // namespace baracuda::reference
