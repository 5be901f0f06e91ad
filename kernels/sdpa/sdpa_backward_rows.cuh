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

// A warp per (b, h, i) row, lane l summing columns l, l + 32, ... in that
// order, then a fixed shuffle tree: delta is bit-stable. Each warp takes
// kDeltaRowsPerWarp rows at once and issues all their loads before the
// first sum (a loop over the columns at run time waited for each pair of
// loads in turn), and zeroes those rows of the f32 dq accumulator
// (dq_acc, [rows][D] dense; null: left as it is), so that no separate pass
// clears it.
constexpr int kDeltaRowsPerWarp = 4;
constexpr int kDeltaColumnSteps = 8;  // Dv <= 256
template <class T>
__global__ void __launch_bounds__(kRowThreads) sdpa_backward_delta_kernel(const SdpaProblem p, float *delta,
                                                                          float *dq_acc) {
  constexpr int R = kDeltaRowsPerWarp, C = kDeltaColumnSteps;
  const int lane = threadIdx.x % 32;
  const int64_t rows = p.batch * p.heads_q * p.queries;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kRowThreads / 32);
  for (int64_t r0 = (blockIdx.x * static_cast<int64_t>(kRowThreads / 32) + threadIdx.x / 32) * R; r0 < rows;
       r0 += warps * R) {
    float o[R][C], d[R][C];
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const int64_t r = r0 + j < rows ? r0 + j : rows - 1;
      const int64_t i = r % p.queries, bh = r / p.queries;
      const int64_t h = bh % p.heads_q, b = bh / p.heads_q;
      const T *out =
          static_cast<const T *>(p.out.data) + b * p.out.stride[0] + h * p.out.stride[1] + i * p.out.stride[2];
      const T *dout =
          static_cast<const T *>(p.dout.data) + b * p.dout.stride[0] + h * p.dout.stride[1] + i * p.dout.stride[2];
#pragma unroll
      for (int k = 0; k < C; ++k) {
        const int c = lane + 32 * k;
        o[j][k] = c < p.head_dim_v ? static_cast<float>(out[c]) : 0.f;
        d[j][k] = c < p.head_dim_v ? static_cast<float>(dout[c]) : 0.f;
      }
    }
    if (dq_acc != nullptr) {
      // The rows [r0, r0 + R) are R * D consecutive floats, D a multiple of 8.
      const int64_t first = r0 * p.head_dim / 4, end = (r0 + R < rows ? r0 + R : rows) * p.head_dim / 4;
      for (int64_t x = first + lane; x < end; x += 32) reinterpret_cast<float4 *>(dq_acc)[x] = float4{0, 0, 0, 0};
    }
#pragma unroll
    for (int j = 0; j < R; ++j) {
      float acc = 0.f;
#pragma unroll
      for (int k = 0; k < C; ++k)
        if (lane + 32 * k < p.head_dim_v) acc += o[j][k] * d[j][k];
#pragma unroll
      for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
      if (lane == 0 && r0 + j < rows) delta[r0 + j] = acc;
    }
  }
}

// One 16-byte global store (at 16-byte aligned); a uint4 store through a
// cast pointer came out of nvcc as four 4-byte ones.
__device__ __forceinline__ void store_16_bytes(void *at, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(at), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}

// Eight dq columns: loaded from the f32 accumulator (16-byte aligned)
// through L2 alone (the main kernel converts tiles that other SMs added
// to), stored in dq's dtype, one 16-byte store where the dq row allows it.
constexpr int kDqColumnsPerThread = 8;
struct DqColumns {
  float4 lo, hi;
};
__device__ __forceinline__ DqColumns load_dq_columns(const float *acc) {
  return {__ldcg(reinterpret_cast<const float4 *>(acc)), __ldcg(reinterpret_cast<const float4 *>(acc) + 1)};
}
template <class T>
__device__ __forceinline__ void store_dq_columns(const DqColumns &c, T *dq) {
  const float v[kDqColumnsPerThread] = {c.lo.x, c.lo.y, c.lo.z, c.lo.w, c.hi.x, c.hi.y, c.hi.z, c.hi.w};
  if (reinterpret_cast<uintptr_t>(dq) % 16 == 0) {
    using sdpa_tc::pack2;
    store_16_bytes(dq, pack2<T>(v[0], v[1]), pack2<T>(v[2], v[3]), pack2<T>(v[4], v[5]), pack2<T>(v[6], v[7]));
  } else {
#pragma unroll
    for (int k = 0; k < kDqColumnsPerThread; ++k) dq[k] = static_cast<T>(v[k]);
  }
}

// Eight columns a thread (D is a multiple of 8), the row's (b, h, i) worked
// out once per eight elements (a thread an element spent most of this pass
// on 64-bit divisions).
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
    store_dq_columns(load_dq_columns(dq_acc + e * C),
                     static_cast<T *>(p.dq.data) + b * p.dq.stride[0] + h * p.dq.stride[1] + i * p.dq.stride[2] + c);
  }
}

inline unsigned row_grid(int64_t items, int64_t per_block) {
  const int64_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < kRowGridCap ? blocks : kRowGridCap);
}

}  // namespace baracuda::kernels::sdpa
