// The row-wise passes around the tensor-core backward's main kernel: delta =
// rowsum(dout * out) before it, and the f32 dq accumulator to dq's dtype
// after it. Both are memory-bound and tiny beside the main kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_tc_primitives.cuh"

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

// One 16-byte global store (at 16-byte aligned); a uint4 store through a
// cast pointer came out of nvcc as four 4-byte ones.
__device__ __forceinline__ void store_16_bytes(void *at, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(at), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}

// Eight columns a thread (D is a multiple of 8): two 16-byte loads of the
// dense accumulator and one 16-byte store where the dq row allows it, the
// row's (b, h, i) worked out once per eight elements (a thread an element
// spent most of this pass on 64-bit divisions).
constexpr int kDqColumnsPerThread = 8;
template <class T>
__global__ void __launch_bounds__(kRowThreads) sdpa_backward_dq_kernel(const SdpaProblem p, const float *dq_acc) {
  constexpr int C = kDqColumnsPerThread;
  const int64_t chunks_per_row = p.head_dim / C;
  const int64_t n = p.batch * p.heads_q * p.queries * chunks_per_row;
  const int64_t threads = static_cast<int64_t>(gridDim.x) * kRowThreads;
  for (int64_t e = blockIdx.x * static_cast<int64_t>(kRowThreads) + threadIdx.x; e < n; e += threads) {
    const int64_t c = e % chunks_per_row * C, r = e / chunks_per_row;
    const int64_t i = r % p.queries, bh = r / p.queries;
    const int64_t h = bh % p.heads_q, b = bh / p.heads_q;
    T *dq = static_cast<T *>(p.dq.data) + b * p.dq.stride[0] + h * p.dq.stride[1] + i * p.dq.stride[2] + c;
    const float4 *acc = reinterpret_cast<const float4 *>(dq_acc + e * C);
    const float4 lo = acc[0], hi = acc[1];
    const float v[C] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    if (reinterpret_cast<uintptr_t>(dq) % 16 == 0) {
      using sdpa_tc::pack2;
      store_16_bytes(dq, pack2<T>(v[0], v[1]), pack2<T>(v[2], v[3]), pack2<T>(v[4], v[5]), pack2<T>(v[6], v[7]));
    } else {
#pragma unroll
      for (int k = 0; k < C; ++k) dq[k] = static_cast<T>(v[k]);
    }
  }
}

inline unsigned row_grid(int64_t items, int64_t per_block) {
  const int64_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < kRowGridCap ? blocks : kRowGridCap);
}

}  // namespace baracuda::kernels::sdpa
