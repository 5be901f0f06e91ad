// The timing rows' inputs like bench_ops' (real_inputs.cu): standard-normal
// q, k, v, dout and out and lse from a forward over them.
#pragma once
#include <cuda_bf16.h>

#include <cstdint>

struct RealInputs {
  int64_t B, H, S, D;
  bool causal;  // top-left
  __nv_bfloat16 *q, *k, *v, *dout, *out;
  float *lse;  // [B, H, S]
};
void fill_real_inputs(const RealInputs &in);
