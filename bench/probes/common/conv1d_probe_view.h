// What the conv1d probes' C entries share: a tensor's Conv1dView from its
// data and three strides (they take contiguous tensors as raw pointers), and
// the x and weight types T, Wt of the TU's PROBE_DTYPE (0 bf16 x with f32
// weights, 2 f16 x with f32 weights, 3 f32, 4 f64).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "causal_conv1d/conv1d_problem.h"

namespace {

baracuda::kernels::Conv1dView view(void *data, int64_t s0, int64_t s1, int64_t s2) {
  baracuda::kernels::Conv1dView v;
  v.data = data;
  v.stride[0] = s0, v.stride[1] = s1, v.stride[2] = s2;
  return v;
}

#ifdef PROBE_DTYPE
#if PROBE_DTYPE == 0
using T = __nv_bfloat16;
using Wt = float;
#elif PROBE_DTYPE == 2
using T = __half;
using Wt = float;
#elif PROBE_DTYPE == 4
using T = double;
using Wt = double;
#else
using T = float;
using Wt = float;
#endif
#endif

}  // namespace
