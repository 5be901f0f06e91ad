// The causal conv1d kernels beside the main passes, one thread per row or
// tap: the reduction of the backward's dw/db partial sums (per channel, in
// slot order: no atomics), FINAL_STATES / DINITIAL_STATES (the update has its own file,
// conv1d_update.cuh).
#pragma once

#include "causal_conv1d/conv1d_math.cuh"
#include "common/overlap_launch.cuh"

namespace baracuda::kernels::conv1d {

// dw[c, k] and db[c] (of the weights' type Wt): the slots' partial sums, in
// slot order. A thread's loads go out kReduceBatch at a time ahead of its
// adds (the same adds in the same order): the loop the compiler unrolled by 4
// made a sum of S slots S / 4 round trips to L2, most of a short backward's
// reduction (bench/NOTES.md, session 17). Launched overlapping the pass that
// writes the slots (common/overlap_launch.cuh): its launch hides behind the
// pass's last blocks, and it waits for the pass before its first read.
template <class T, int W, class Wt = T>
__global__ void __launch_bounds__(kThreads)
    reduce_partials_kernel(Conv1dProblem p, const Acc<T> *partials, int64_t slots) {
  constexpr int kBatch = Conv1dTraits::kReduceBatch;
  wait_for_previous_pass();  // every block, so that this kernel ends after the pass
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= p.channels * (W + 1)) return;
  const int64_t c = i / (W + 1), stride = p.channels * (W + 1);
  const int k = static_cast<int>(i - c * (W + 1));
  Acc<T> sum = Acc<T>(0);
  const Acc<T> *slot = partials + i;
  int64_t s = 0;
  for (; s + kBatch <= slots; s += kBatch, slot += kBatch * stride) {
    Acc<T> batch[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) batch[j] = slot[j * stride];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) sum += batch[j];
  }
  for (; s < slots; ++s, slot += stride) sum += *slot;
  if (k < W && p.dweight.data) *at<Wt>(p.dweight, c, k, 0) = Accum<Wt>::store(sum);
  if (k == W && p.dbias.data) *at<Wt>(p.dbias, c, 0, 0) = Accum<Wt>::store(sum);
}

// ---- Row ends: the forward's FINAL_STATES, the backward's DINITIAL_STATES and DFINAL_STATES ----

template <class T, int W, class Wt = T>
__global__ void __launch_bounds__(kThreads) row_ends_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (row >= p.batch * p.channels) return;
  int64_t b, c;
  split_row(row, p.channels, b, c);
  const int64_t L = p.length;
  // The last sequence's inputs: bit j + 1 of the last timestep's window is
  // x_pad[L - (W-1) + j]; none where the row ends in padding (bit W-1 clear).
  const unsigned window = L > 0 ? window_mask<W>(p, b, L - 1) : ~0u;
  const unsigned last = (window >> (W - 1)) & 1u ? window : 0u;
  if (p.final_states.data)
#pragma unroll
    for (int j = 0; j < W - 1; ++j)
      *at<T>(p.final_states, b, c, j) = Accum<T>::store(kept(last, j + 1, x_pad<T, W>(p, b, c, L - (W - 1) + j)));
  if (!p.dinitial.data && !p.dfinal.data) return;
  const Taps<T, W, Wt> taps(p, c);
  auto g_at = [&](int64_t s) {  // the upstream gradient at timestep s (0 outside the sequence)
    return s < 0 || s >= L ? A(0) : upstream_at(p, taps, b, c, s);
  };
  // The gradient arriving on x_pad[t] through FINAL_STATES, which holds x_pad[L - (W-1) ..] of the last sequence.
  auto dfinal_at = [&](int64_t t) {
    const int64_t j = t - (L - (W - 1));
    return p.dfinal.data && j >= 0 && j < W - 1 ? kept(last, static_cast<int>(j) + 1, get<T>(p.dfinal, b, c, j))
                                                : A(0);
  };
  // dx[t] = sum_k w[k] g[t + (W-1) - k] over the outputs of t's sequence, for
  // the W-1 timesteps from `from`, plus what arrives through FINAL_STATES.
  auto transposed = [&](int64_t from, A (&out)[W - 1]) {
    A g[2 * (W - 1)];
#pragma unroll 1
    for (int s = 0; s < 2 * (W - 1); ++s) g[s] = g_at(from + s);
#pragma unroll
    for (int j = 0; j < W - 1; ++j) {
      const unsigned reach = L > 0 ? ahead_mask<W>(p, b, from + j) : ~0u;
      A sum = dfinal_at(from + j);
#pragma unroll
      for (int k = 0; k < W; ++k) sum += taps.w[k] * kept(reach, W - 1 - k, g[j + W - 1 - k]);
      out[j] = sum;
    }
  };
  // DINITIAL_STATES (the W-1 inputs before x), then dx of the last W-1
  // inputs, recomputed whole so that it is rounded once (DFINAL_STATES): one
  // copy of `transposed` in a loop (the kernel is a thread a row; unrolled,
  // its two copies were most of its code and build time).
#pragma unroll 1
  for (int end = 0; end < 2; ++end) {
    const Conv1dView &out = end ? p.dx : p.dinitial;
    if (!(end ? p.dfinal.data : p.dinitial.data)) continue;
    const int64_t from = end ? L - (W - 1) : -(W - 1);
    A ends[W - 1];
    transposed(from, ends);
#pragma unroll
    for (int j = 0; j < W - 1; ++j)
      if (!end || from + j >= 0) *at<T>(out, b, c, end ? from + j : j) = Accum<T>::store(ends[j]);
  }
}

}  // namespace baracuda::kernels::conv1d
