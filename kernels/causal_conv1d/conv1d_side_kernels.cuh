// The causal conv1d kernels beside the main passes, one thread per row or
// tap: the reduction of the backward's dw/db partial sums (per channel, in
// slot order: no atomics), FINAL_STATES / DINITIAL_STATES, and the update.
#pragma once

#include "causal_conv1d/conv1d_math.cuh"

namespace baracuda::kernels::conv1d {

// dw[c, k] and db[c]: the slots' partial sums, in slot order.
template <class T, int W>
__global__ void __launch_bounds__(kThreads)
    reduce_partials_kernel(Conv1dProblem p, const Acc<T> *partials, int64_t slots) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= p.channels * (W + 1)) return;
  const int64_t c = i / (W + 1);
  const int k = static_cast<int>(i - c * (W + 1));
  Acc<T> sum = Acc<T>(0);
  for (int64_t s = 0; s < slots; ++s) sum += partials[s * p.channels * (W + 1) + i];
  if (k < W && p.dweight.data) *at<T>(p.dweight, c, k, 0) = Accum<T>::store(sum);
  if (k == W && p.dbias.data) *at<T>(p.dbias, c, 0, 0) = Accum<T>::store(sum);
}

// ---- Row ends: the forward's FINAL_STATES, the backward's DINITIAL_STATES ----

template <class T, int W>
__global__ void __launch_bounds__(kThreads) row_ends_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (row >= p.batch * p.channels) return;
  int64_t b, c;
  split_row(row, p.channels, b, c);
  if (p.final_states.data) {
    // The last sequence's inputs: bit j + 1 of the last timestep's window is x_pad[L - (W-1) + j].
    const unsigned last = p.length > 0 ? window_mask<W>(p, b, p.length - 1) : ~0u;
#pragma unroll
    for (int j = 0; j < W - 1; ++j)
      *at<T>(p.final_states, b, c, j) =
          Accum<T>::store(kept(last, j + 1, x_pad<T, W>(p, b, c, p.length - (W - 1) + j)));
  }
  if (!p.dinitial.data) return;
  // dinitial[j] = sum_{k <= j} w[k] g[j - k], over the first W-1 timesteps
  // (those of the first sequence: the initial inputs' own).
  const Taps<T, W> taps(p, c);
  const unsigned first = p.length > 0 ? ahead_mask<W>(p, b, 0) : ~0u;
  A g[W - 1];
#pragma unroll
  for (int s = 0; s < W - 1; ++s) {
    if (s >= p.length) {
      g[s] = A(0);
      continue;
    }
    const unsigned mask = window_mask<W>(p, b, s);
    A xs[W];
#pragma unroll
    for (int j = 0; j < W; ++j) xs[j] = kept(mask, j, x_pad<T, W>(p, b, c, s - (W - 1) + j));
    g[s] = kept(first, s, upstream_of<T, W>(p, taps, xs, get<T>(p.dy, b, c, s)));
  }
#pragma unroll
  for (int j = 0; j < W - 1; ++j) {
    A sum = A(0);
#pragma unroll
    for (int k = 0; k <= j; ++k) sum += taps.w[k] * g[j - k];
    *at<T>(p.dinitial, b, c, j) = Accum<T>::store(sum);
  }
}

// ---- Update -------------------------------------------------------------------

template <class T, int W>
__global__ void __launch_bounds__(kThreads) update_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (row >= p.batch * p.channels) return;
  int64_t b, c;
  split_row(row, p.channels, b, c);
  const Taps<T, W> taps(p, c);
  const int64_t n = p.length, S = p.state_len;
  const bool circular = p.cache_seqlens.data != nullptr;
  int64_t pos = 0;
  if (circular) {
    pos = static_cast<const int32_t *>(p.cache_seqlens.data)[b * p.cache_seqlens.stride[0]] % S;
    if (pos < 0) pos += S;
  }
  auto slot = [&](int64_t j) {  // state index of the input j steps before token 0 (j < 0) or token j
    if (!circular) return S + j;
    const int64_t q = (pos + j) % S;
    return q < 0 ? q + S : q;
  };
  A win[W];  // x[i - (W-1) + j], the state before token 0
#pragma unroll
  for (int j = 0; j < W - 1; ++j) win[j + 1] = get<T>(p.state, b, c, slot(j - (W - 1)));
  for (int64_t i = 0; i < n; ++i) {
#pragma unroll
    for (int j = 0; j + 1 < W; ++j) win[j] = win[j + 1];
    win[W - 1] = get<T>(p.x, b, c, i);
    A z = taps.bias;
#pragma unroll
    for (int j = 0; j < W; ++j) z += taps.w[j] * win[j];
    *at<T>(p.y, b, c, i) = Accum<T>::store(p.silu ? activate<T, true>(z) : z);
  }
  if (circular) {
    for (int64_t i = 0; i < n; ++i) *at<T>(p.state, b, c, slot(i)) = *at<T>(p.x, b, c, i);
  } else {  // shift left by n, ascending, so every entry is read before it is overwritten
    for (int64_t s = 0; s < S; ++s)
      *at<T>(p.state, b, c, s) = s + n < S ? *at<T>(p.state, b, c, s + n) : *at<T>(p.x, b, c, s + n - S);
  }
}

}  // namespace baracuda::kernels::conv1d
