// The decoding update's common case, one token a step (or a few: speculative
// decoding) over dense channels: a thread takes 16 bytes of channels (8 in
// 16-bit, 4 in f32) of one batch row, or 8 bytes where the batch is small or
// the step has several tokens (more threads, each with less math between its
// loads and its stores), so that x, y, the taps and a shifted state's rows
// move as vectors.
// Its time is a large batch's blocks in flight (memory latency, not
// bandwidth): the thread-per-channel kernel (conv1d_update.cuh) held 25
// blocks of 64 channels an SM, 1600 channels in flight; this one issues ~14
// vector loads for 8 channels at once. Every load is issued before the first
// store (a store may alias a later load as far as the compiler knows).
// A circular state stays on the thread-per-channel kernel: gathered here,
// each warp load touched 32 sectors 256 bytes apart (a thread's channels),
// and it ran at half that kernel's speed (H200, session 14).
#pragma once

#include "causal_conv1d/conv1d_math.cuh"

namespace baracuda::kernels::conv1d {

// N elements of T as vectors of Bytes (8 or 16; N * sizeof(T) a multiple) or as words.
template <class T, int N, int Bytes>
union Packs {
  static_assert(N * sizeof(T) % Bytes == 0, "whole vectors");
  static constexpr int kVectors = N * static_cast<int>(sizeof(T)) / Bytes;
  using Vector = typename Word<Bytes>::type;
  Vector vector[kVectors];
  typename Word<sizeof(T)>::type elem[N];

  __device__ void load(const T *from) {
#pragma unroll
    for (int k = 0; k < kVectors; ++k) vector[k] = reinterpret_cast<const Vector *>(from)[k];
  }
  // 16 bytes as PTX: the compiler may split a 16-byte store of words it assembled (conv1d_math.cuh's store_run).
  __device__ void store(T *to) const {
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      if constexpr (Bytes == 16) {
        asm volatile("{\n.reg .u64 g;\ncvta.to.global.u64 g, %0;\nst.global.v4.u32 [g], {%1, %2, %3, %4};\n}" ::"l"(
                         to + k * Bytes / sizeof(T)),
                     "r"(vector[k].x), "r"(vector[k].y), "r"(vector[k].z), "r"(vector[k].w));
      } else {
        reinterpret_cast<Vector *>(to)[k] = vector[k];
      }
    }
  }
  __device__ Acc<T> value(int i) const {
    T v;
    memcpy(&v, &elem[i], sizeof(T));
    return Accum<T>::load(v);
  }
};

// Every load above is issued before the code below runs (a warp barrier,
// which no memory access crosses). Without it the compiler sank later loads
// below the math of earlier ones (fewer registers) and the taps below the
// padding test: a memory round trip each.
__device__ __forceinline__ void issued_before_here() { __syncwarp(__activemask()); }

// The grid is update_kernel's, each thread Bytes of channels (conv1d_heuristics.h's update_vector_bytes) and
// their N tokens (x and y [B, C, N] with each channel's N contiguous: a thread's are V * N in a row).
template <class T, int W, class Wt, int Bytes, int N>
__global__ void __launch_bounds__(kUpdateThreads) update_vectors_kernel(Conv1dProblem p) {
  constexpr int V = Bytes / static_cast<int>(sizeof(T)), S = W - 1;
  const int64_t c0 = (static_cast<int64_t>(blockIdx.x) * kUpdateThreads + threadIdx.x) * V;
  const int64_t b = static_cast<int64_t>(blockIdx.z) * gridDim.y + blockIdx.y;
  if (c0 >= p.channels || b >= p.batch) return;
  int64_t sb = b;  // the state row
  if (p.state_indices.data) sb = static_cast<const int32_t *>(p.state_indices.data)[b * p.state_indices.stride[0]];
  Packs<Wt, V * W, Bytes> taps;  // channel c0 + v's tap j at v * W + j
  taps.load(static_cast<const Wt *>(p.weight.data) + c0 * W);
  Packs<Wt, V, Bytes> bias{};
  if (p.bias.data) bias.load(static_cast<const Wt *>(p.bias.data) + c0);
  Packs<T, V * N, Bytes> x;  // channel c0 + v's token i at v * N + i
  x.load(static_cast<const T *>(p.x.data) + b * p.x.stride[0] + c0 * N);
  issued_before_here();
  if (sb < 0 || sb >= p.state_rows) return;  // padding (or an index past the pool): untouched
  T *const row = static_cast<T *>(p.state.data) + sb * p.state.stride[0];
  Packs<T, V * S, Bytes> window;  // channel c0 + v's inputs before token 0 at v * S + j, oldest first
  window.load(row + c0 * S);
  issued_before_here();

  // Input k of channel v's history (its window, then its tokens).
  auto input = [&](int v, int k) { return k < S ? window.value(v * S + k) : x.value(v * N + k - S); };
  Acc<T> y[V * N];
#pragma unroll
  for (int v = 0; v < V; ++v)
#pragma unroll
    for (int i = 0; i < N; ++i) {
      Acc<T> z = bias.value(v);  // summed oldest first, as update_kernel and the forward do
#pragma unroll
      for (int j = 0; j < W; ++j) z += taps.value(v * W + j) * input(v, i + j);
      y[v * N + i] = p.silu ? activate<T, true>(z) : z;
    }
  T *const out = static_cast<T *>(p.y.data) + b * p.y.stride[0] + c0 * N;
#pragma unroll
  for (int k = 0; k < N; ++k) store_run<T, V>(out + k * V, y + k * V);
  // The state shifts by N: each channel keeps the last S of its history
  // (ascending, each entry read before it is written over).
#pragma unroll
  for (int v = 0; v < V; ++v)
#pragma unroll
    for (int j = 0; j < S; ++j)
      window.elem[v * S + j] = N + j < S ? window.elem[v * S + N + j] : x.elem[v * N + N + j - S];
  window.store(row + c0 * S);
}

}  // namespace baracuda::kernels::conv1d
