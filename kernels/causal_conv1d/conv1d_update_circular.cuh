// The decoding update over a circular state of short contiguous rows
// (conv1d_update_choice.h): a thread per (batch row, channel), as
// update_kernel, lean where that kernel is general, since at a large batch
// the threads' instructions, not only their memory round trips, are the time
// (H200, session 18: loading the row whole, which took update_kernel's
// second round trip away, gained 1-4% while its window was picked by
// selects). Here:
// - offsets are 32-bit (the host checked every one under 2^31: conv1d_update_choice.h);
// - the thread loads its channel's whole row as 16-byte vectors (the sector
//   the gather of W-1 entries reads anyway: 16 bf16 entries are 32 bytes),
//   whose address needs no slot: without a pool the row, the tokens, the
//   taps and the indices are one round trip; with a pool the row waits for
//   its index, as in update_kernel;
// - the slot is the same across the block (one batch row), so the window is
//   read from registers at constant indices behind uniform branches.
// The tokens go to their slots one element each, as update_kernel writes them.
#pragma once

#include "causal_conv1d/conv1d_update.cuh"
#include "causal_conv1d/conv1d_update_choice.h"
#include "causal_conv1d/conv1d_update_vectors.cuh"

namespace baracuda::kernels::conv1d {

// 32-bit word i of a row held as 16-byte vectors (i a constant once unrolled).
template <class T, int N>
__device__ __forceinline__ uint32_t row_word(const Packs<T, N, 16> &row, int i) {
  const uint4 &v = row.vector[i / 4];
  return i % 4 == 0 ? v.x : i % 4 == 1 ? v.y : i % 4 == 2 ? v.z : v.w;
}

// Entry k of the row (k a constant once unrolled).
template <class T, int N>
__device__ __forceinline__ T row_entry(const Packs<T, N, 16> &row, int k) {
  constexpr int E = sizeof(T);
  typename Word<E>::type bits;
  if constexpr (E == 8) {
    bits = static_cast<uint64_t>(row_word(row, 2 * k + 1)) << 32 | row_word(row, 2 * k);
  } else {
    bits = static_cast<typename Word<E>::type>(row_word(row, k * E / 4) >> (8 * (k * E % 4)));
  }
  T v;
  memcpy(&v, &bits, E);
  return v;
}

// win[1..W-1] = the row's entries first, first + 1, ... (mod N), first in
// [Lo, Hi): a binary search by branches (uniform: first is the block's) down
// to leaves that read constant indices.
template <int Lo, int Hi, class T, int N, int W>
__device__ __forceinline__ void window_from_row(const Packs<T, N, 16> &row, int first, T (&win)[W]) {
  if constexpr (Hi - Lo == 1) {
#pragma unroll
    for (int j = 0; j < W - 1; ++j) win[j + 1] = row_entry(row, (Lo + j) % N);
  } else {
    constexpr int Mid = (Lo + Hi) / 2;
    if (first < Mid) {
      window_from_row<Lo, Mid>(row, first, win);
    } else {
      window_from_row<Mid, Hi>(row, first, win);
    }
  }
}

// `blocks` capped at what an SM holds on the arch this pass compiles for (sm
// 86 and 87 stop at 16, sm 89 at 24, the others at 32): a larger
// launch-bounds minimum is out of range there, and ptxas drops it with a warning.
__host__ __device__ constexpr int within_resident_blocks(int blocks) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870)
  return blocks < 16 ? blocks : 16;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 890
  return blocks < 24 ? blocks : 24;
#else
  return blocks < 32 ? blocks : 32;
#endif
}

// The grid is update_kernel's; RowBytes is the state row's (S * sizeof(T), a
// power of two); Pooled: CONV_STATE_INDICES given (each form without the
// other's instructions, and with its own blocks an SM).
template <class T, int W, class Wt, int RowBytes, bool Pooled>
__global__ void __launch_bounds__(
    kUpdateThreads, within_resident_blocks(Conv1dUpdateCircularTraits::blocks(W, sizeof(T), RowBytes, Pooled)))
    update_circular_rows_kernel(Conv1dProblem p) {
  constexpr int S = RowBytes / static_cast<int>(sizeof(T));
  const int32_t c = blockIdx.x * kUpdateThreads + threadIdx.x;
  const int32_t b = blockIdx.z * gridDim.y + blockIdx.y;
  if (c >= p.channels || b >= p.batch) return;
  const Taps<T, W, Wt> taps = update_taps<T, W, Wt>(p, c);
  const UpdateRowIndex<int32_t> index = update_row_index(p, b);
  const UpdateRow<const T, int32_t> x(p.x, b, c);
  T tokens[kUpdateChunk];
  if (p.length == 1) {
    tokens[0] = x[0];  // the common step alone: one load, not a chunk's predicated ones
  } else {
    load_tokens(tokens, x, 0, static_cast<int32_t>(p.length));
  }
  const T *rows = static_cast<const T *>(p.state.data) + c * static_cast<int32_t>(p.state.stride[1]);
  const int32_t row_stride = static_cast<int32_t>(p.state.stride[0]);
  Packs<T, S, 16> row;
  if constexpr (!Pooled) row.load(rows + b * row_stride);  // row b's address is known: no wait for the indices
  issued_before_here();
  if constexpr (Pooled) {
    if (skipped_row(p, index.state_row)) return;
    row.load(rows + index.state_row * row_stride);
  }
  // S divides 2^32: the slots mod S of the unsigned seqlen are those of the signed one.
  const uint32_t seqlen = static_cast<uint32_t>(index.seqlen);
  T win[W];  // the W-1 entries before token 0's slot, oldest first, in win[1..]
  window_from_row<0, S>(row, static_cast<int>((seqlen - (W - 1)) % S), win);
  CircularSlots<UpdateRow<T, int32_t>> slots{UpdateRow<T, int32_t>(p.state, index.state_row, c),
                                             static_cast<int32_t>(seqlen % S), S};
  step_tokens<true>(taps, win, tokens, x, UpdateRow<T, int32_t>(p.y, b, c), static_cast<int32_t>(p.length), p.silu,
                    slots);
}

}  // namespace baracuda::kernels::conv1d
