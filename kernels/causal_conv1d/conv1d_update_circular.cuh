// The decoding update over a circular state of short contiguous rows
// (conv1d_update_circular.h): a thread per channel of R batch rows, which
// share its taps. update_kernel gathered the W-1 entries before the slot of
// token 0 only once CACHE_SEQLENS had answered (two memory round trips, as
// Tri Dao's). Here the thread loads its channel's whole row as 16-byte
// vectors (the sector the gather reads anyway: 16 bf16 entries are 32
// bytes), whose address needs no slot, and picks the window from
// registers: without a pool, the rows, the tokens, the taps and the indices
// are one round trip. With a pool a row waits for its index, as in both
// others. The tokens go to their slots one element each, as update_kernel
// writes them.
#pragma once

#include "causal_conv1d/conv1d_update.cuh"
#include "causal_conv1d/conv1d_update_circular.h"
#include "causal_conv1d/conv1d_update_vectors.cuh"

namespace baracuda::kernels::conv1d {

// 32-bit word i of a row held as 16-byte vectors (i a constant once unrolled).
template <class T, int N>
__device__ __forceinline__ uint32_t row_word(const Packs<T, N, 16> &row, int i) {
  const uint4 &v = row.vector[i / 4];
  return i % 4 == 0 ? v.x : i % 4 == 1 ? v.y : i % 4 == 2 ? v.z : v.w;
}

// Entry k of the row: selects over its words (k is the same across a block),
// so that the row stays in registers.
template <class T, int N>
__device__ __forceinline__ T row_entry(const Packs<T, N, 16> &row, int k) {
  constexpr int E = sizeof(T), kWords = N * E / 4;
  typename Word<E>::type bits;
  if constexpr (E == 8) {
    uint32_t lo = 0, hi = 0;
#pragma unroll
    for (int i = 0; i < kWords; i += 2) {
      lo = i / 2 == k ? row_word(row, i) : lo;
      hi = i / 2 == k ? row_word(row, i + 1) : hi;
    }
    bits = static_cast<uint64_t>(hi) << 32 | lo;
  } else {
    const int at = k * E / 4;
    uint32_t word = 0;
#pragma unroll
    for (int i = 0; i < kWords; ++i) word = i == at ? row_word(row, i) : word;
    bits = static_cast<typename Word<E>::type>(word >> (8 * (k * E % 4)));
  }
  T v;
  memcpy(&v, &bits, E);
  return v;
}

// The grid is (channel blocks, batch rows / R, by z past kMaxGridY), R
// batch rows b0 + r a thread; RowBytes is the state row's (S * sizeof(T)).
template <class T, int W, class Wt, int RowBytes, int R>
__global__ void __launch_bounds__(kUpdateThreads, Conv1dUpdateCircularTraits::blocks(W, sizeof(T), RowBytes, R))
    update_circular_rows_kernel(Conv1dProblem p) {
  constexpr int S = RowBytes / static_cast<int>(sizeof(T));
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kUpdateThreads + threadIdx.x;
  const int64_t b0 = (static_cast<int64_t>(blockIdx.z) * gridDim.y + blockIdx.y) * R;
  if (c >= p.channels || b0 >= p.batch) return;
  const Taps<T, W, Wt> taps(p, c);
  const bool pooled = p.state_indices.data != nullptr;
  UpdateRowIndex index[R];
  T tokens[R][kUpdateChunk];
  Packs<T, S, 16> row[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int64_t b = b0 + r;
    if (b >= p.batch) break;
    index[r] = update_row_index(p, b);
    load_tokens(tokens[r], UpdateRow<const T>(p.x, b, c), 0, p.length);
    if (!pooled) row[r].load(at<T>(p.state, b, c, 0));  // row b's address is known: no wait for the indices
  }
  issued_before_here();
  if (pooled)
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (b0 + r < p.batch && !skipped_row(p, index[r].state_row))
        row[r].load(at<T>(p.state, index[r].state_row, c, 0));
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int64_t b = b0 + r;
    if (b >= p.batch || (pooled && skipped_row(p, index[r].state_row))) continue;
    const int pos = static_cast<int>(circular_slot(index[r].seqlen, S));
    T win[W];  // the W-1 entries before token 0's slot, oldest first, in win[1..]
#pragma unroll
    for (int j = 0; j < W - 1; ++j) {
      const int q = pos - (W - 1) + j;  // S >= W-1
      win[j + 1] = row_entry(row[r], q < 0 ? q + S : q);
    }
    CircularSlots<T> slots{UpdateRow<T>(p.state, index[r].state_row, c), pos, S};
    step_tokens<true>(taps, win, tokens[r], UpdateRow<const T>(p.x, b, c), UpdateRow<T>(p.y, b, c), p.length, p.silu,
                      slots);
  }
}

}  // namespace baracuda::kernels::conv1d
