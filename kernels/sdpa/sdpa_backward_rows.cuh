// The row-wise passes around the tensor-core backward's main kernel: delta =
// rowsum(dout * out) before it, and the f32 dq accumulator to dq's dtype
// after it. Both are memory-bound and tiny beside the main kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "sdpa/sdpa_problem.h"

namespace baracuda::kernels::sdpa {

constexpr int kRowThreads = 256;
constexpr int64_t kRowGridCap = 65535;

// One warp per (b, h, i) row, lanes across Dv; a fixed shuffle tree, so
// delta is bit-stable.
template <class T>
__global__ void __launch_bounds__(kRowThreads) sdpa_backward_delta_kernel(const SdpaProblem p, float *delta) {
  const int lane = threadIdx.x % 32;
  const int64_t rows = p.batch * p.heads_q * p.queries;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kRowThreads / 32);
  for (int64_t r = blockIdx.x * static_cast<int64_t>(kRowThreads / 32) + threadIdx.x / 32; r < rows; r += warps) {
    const int64_t i = r % p.queries, bh = r / p.queries;
    const int64_t h = bh % p.heads_q, b = bh / p.heads_q;
    const T *o = static_cast<const T *>(p.out.data) + b * p.out.stride[0] + h * p.out.stride[1] + i * p.out.stride[2];
    const T *d =
        static_cast<const T *>(p.dout.data) + b * p.dout.stride[0] + h * p.dout.stride[1] + i * p.dout.stride[2];
    float acc = 0.f;
    for (int c = lane; c < p.head_dim_v; c += 32) acc += static_cast<float>(o[c]) * static_cast<float>(d[c]);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) delta[r] = acc;
  }
}

template <class T>
__global__ void __launch_bounds__(kRowThreads) sdpa_backward_dq_kernel(const SdpaProblem p, const float *dq_acc) {
  const int64_t n = p.batch * p.heads_q * p.queries * p.head_dim;
  const int64_t threads = static_cast<int64_t>(gridDim.x) * kRowThreads;
  for (int64_t e = blockIdx.x * static_cast<int64_t>(kRowThreads) + threadIdx.x; e < n; e += threads) {
    const int64_t c = e % p.head_dim, r = e / p.head_dim;
    const int64_t i = r % p.queries, bh = r / p.queries;
    const int64_t h = bh % p.heads_q, b = bh / p.heads_q;
    T *dq = static_cast<T *>(p.dq.data) + b * p.dq.stride[0] + h * p.dq.stride[1] + i * p.dq.stride[2];
    dq[c] = static_cast<T>(dq_acc[e]);
  }
}

inline unsigned row_grid(int64_t items, int64_t per_block) {
  const int64_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < kRowGridCap ? blocks : kRowGridCap);
}

}  // namespace baracuda::kernels::sdpa
