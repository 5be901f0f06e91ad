// The row-wise passes around the tensor-core backward's main kernel: delta =
// rowsum(dout * out) before it, and the f32 dq accumulator to dq's dtype
// after it. Both are memory-bound and tiny beside the main kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_tc_primitives.cuh"

namespace baracuda::kernels::sdpa {

constexpr int kRowThreads = 256;
constexpr int64_t kRowGridCap = 65535;

// One warp per (b, h, i) row, lanes across Dv; a fixed shuffle tree, so
// delta is bit-stable. dq_acc (non-null): the f32 dq accumulator ([rows][D],
// 16-byte aligned), whose row r the warp zeroes beside it in place of a
// memset (the pass reads far below the bandwidth: the stores ride along).
template <class T>
__global__ void __launch_bounds__(kRowThreads) sdpa_backward_delta_kernel(const SdpaProblem p, float *delta,
                                                                          float *dq_acc) {
  const int lane = threadIdx.x % 32;
  const int64_t rows = p.batch * p.heads_q * p.queries;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kRowThreads / 32);
  for (int64_t r = blockIdx.x * static_cast<int64_t>(kRowThreads / 32) + threadIdx.x / 32; r < rows; r += warps) {
    if (dq_acc != nullptr)
      for (int c = 4 * lane; c < p.head_dim; c += 128)
        *reinterpret_cast<float4 *>(dq_acc + r * p.head_dim + c) = float4{0, 0, 0, 0};
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

// The same sums where Dv is 32 or 64 and the out and dout rows start on 16
// bytes, read 16 bytes a lane: Dv / 8 lanes a row (a power of two, as the
// shuffles' width must be), a warp's run of rows taken 32 / (Dv / 8) at a
// time, kDeltaPasses of them in flight. Lane t of a row holds the columns
// 8t + j, the terms k = t / 4 of the sums of the lanes 8 (t % 4) + j above;
// lanes t < 4 gather the later terms in order (fmaf, as the sum above
// compiles) and run the same tree, its steps 16 and 8 across lanes, 4, 2
// and 1 across j. The row's (b, h, i) is stepped rather than divided out per
// row. dq_acc (non-null): the f32 dq accumulator, whose rows the warp
// zeroes as it goes, in place of a memset. On the H200 (bf16, session 20):
// 72 -> 34 us at B16 H16 S1024 D 64 (FlashAttention-2's pass 36), the
// whole backward 1.04-1.07x; zeroing dq here as well 1.015-1.02x more; at
// Dv 128 135 us either way, at 256 190 against 90 (the gather's shuffles,
// 72 a row), so wider rows keep the kernel above.
constexpr int kDeltaPasses = 4;
template <class T>
__device__ __forceinline__ float unpack_half(uint32_t word, int high) {
  const uint32_t bits = high ? word >> 16 : word & 0xffffu;
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __uint_as_float(bits << 16);
  else
    return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
}
template <class T>
__global__ void __launch_bounds__(kRowThreads) sdpa_backward_delta_kernel_16(const SdpaProblem p, float *delta,
                                                                             float *dq_acc) {
  constexpr int U = kDeltaPasses;
  const int lane = threadIdx.x % 32;
  const int per_row = p.head_dim_v / 8, rows_per_pass = 32 / per_row, terms = p.head_dim_v / 32;
  const int t = lane % per_row;
  const int64_t rows = p.batch * p.heads_q * p.queries;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kRowThreads / 32);
  const int64_t warp = blockIdx.x * static_cast<int64_t>(kRowThreads / 32) + threadIdx.x / 32;
  const int64_t run = rows_per_pass * U;  // rows a warp covers a round
  const int64_t per_warp = ((rows + warps - 1) / warps + run - 1) / run * run;
  const int64_t first = warp * per_warp, end = first + per_warp < rows ? first + per_warp : rows;
  if (first >= rows) return;
  // (b, h, i) of this lane's row, stepped by rows_per_pass.
  int64_t r = first + lane / per_row;
  int64_t i = r % p.queries, h = r / p.queries % p.heads_q, b = r / p.queries / p.heads_q;
  auto advance = [&] {
    r += rows_per_pass, i += rows_per_pass;
    while (i >= p.queries) {
      i -= p.queries;
      if (++h == p.heads_q) h = 0, ++b;
    }
  };
  for (int64_t r0 = first; r0 < end; r0 += run) {
    if (dq_acc != nullptr) {  // these rows of the accumulator ([rows][D], 16-byte aligned)
      const int64_t from = r0 * p.head_dim / 4, to = (r0 + run < end ? r0 + run : end) * p.head_dim / 4;
      for (int64_t x = from + lane; x < to; x += 32) reinterpret_cast<float4 *>(dq_acc)[x] = float4{0, 0, 0, 0};
    }
    uint4 o[U], d[U];
    int64_t at[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      at[u] = r < end ? r : -1;
      if (at[u] >= 0) {
        o[u] = *reinterpret_cast<const uint4 *>(static_cast<const T *>(p.out.data) + b * p.out.stride[0] +
                                                h * p.out.stride[1] + i * p.out.stride[2] + 8 * t);
        d[u] = *reinterpret_cast<const uint4 *>(static_cast<const T *>(p.dout.data) + b * p.dout.stride[0] +
                                                h * p.dout.stride[1] + i * p.dout.stride[2] + 8 * t);
      } else {
        o[u] = d[u] = uint4{0, 0, 0, 0};
      }
      advance();
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const uint32_t ow[4] = {o[u].x, o[u].y, o[u].z, o[u].w}, dw[4] = {d[u].x, d[u].y, d[u].z, d[u].w};
      float acc[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        acc[j] = fmaf(unpack_half<T>(ow[j / 2], j % 2), unpack_half<T>(dw[j / 2], j % 2), 0.f);
      for (int k = 1; k < terms; ++k) {
        uint32_t og[4], dg[4];
#pragma unroll
        for (int w = 0; w < 4; ++w) {
          og[w] = __shfl_down_sync(0xffffffffu, ow[w], 4 * k, per_row);
          dg[w] = __shfl_down_sync(0xffffffffu, dw[w], 4 * k, per_row);
        }
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[j] = fmaf(unpack_half<T>(og[j / 2], j % 2), unpack_half<T>(dg[j / 2], j % 2), acc[j]);
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], 2, per_row);
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], 1, per_row);
#pragma unroll
      for (int step = 4; step > 0; step /= 2) {
        float next[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) next[j] = acc[j] + acc[j ^ step];
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[j] = next[j];
      }
      if (t == 0 && at[u] >= 0) delta[at[u]] = acc[0];
    }
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
