// The decoding update: a thread per (batch row, channel) steps n new tokens
// against the row's state. A thread moves a few bytes, so its time is the
// chain of memory round trips it waits on. Every load of a phase is issued
// before the phase's first store: a store may alias a later load (the
// compiler cannot tell state, x and y apart), so a load written after it
// waits for the store's data, one more round trip. A one-token step is one
// round trip: the window and the token are loaded together, then y and the
// state are stored.
#pragma once

#include "causal_conv1d/conv1d_math.cuh"

namespace baracuda::kernels::conv1d {

constexpr int kUpdateThreads = Conv1dTraits::kUpdateThreads;
constexpr int kUpdateChunk = Conv1dTraits::kUpdateChunk;

// A row of a [B, C, L] view: element i of (b, c).
template <class T>
struct UpdateRow {
  T *data;
  int64_t stride;
  __device__ UpdateRow(const Conv1dView &v, int64_t b, int64_t c)
      : data(at<T>(v, b, c, 0)), stride(v.stride[2]) {}
  __device__ T &operator[](int64_t i) const { return data[i * stride]; }
};

// Row b's steps once its window (the state's last W-1 entries before token 0)
// and token 0 are in registers; pos is the circular state's slot of token 0.
template <class T, int W, class Wt>
__device__ __forceinline__ void finish_row(const Conv1dProblem &p, const Taps<T, W, Wt> &taps, int64_t b, int64_t sb,
                                           int64_t c, int64_t pos, T (&win)[W], T first) {
  using A = Acc<T>;
  const int64_t n = p.length, S = p.state_len;
  const bool circular = p.cache_seqlens.data != nullptr;
  const UpdateRow<T> state(p.state, sb, c), y(p.y, b, c);
  const UpdateRow<const T> x(p.x, b, c);
  // A shifted state longer than the window: its entries before the last W-1,
  // state[s] = (state ++ x)[s + n], in ascending chunks, each read whole
  // before it is written over (and before the window's entries are).
  const int64_t head = circular ? 0 : S - (W - 1);
  for (int64_t s0 = 0; s0 < head; s0 += kUpdateChunk) {
    T moved[kUpdateChunk];
#pragma unroll
    for (int k = 0; k < kUpdateChunk; ++k) {
      const int64_t q = s0 + k + n;
      if (s0 + k < head) moved[k] = q < S ? state[q] : x[q - S];
    }
#pragma unroll
    for (int k = 0; k < kUpdateChunk; ++k)
      if (s0 + k < head) state[s0 + k] = moved[k];
  }
  int64_t next_slot = pos;  // circular: the slot token i writes
  auto step = [&](int64_t i, T token) {
#pragma unroll
    for (int j = 0; j + 1 < W; ++j) win[j] = win[j + 1];
    win[W - 1] = token;
    A z = taps.bias;
#pragma unroll
    for (int j = 0; j < W; ++j) z += taps.w[j] * Accum<T>::load(win[j]);
    y[i] = Accum<T>::store(p.silu ? activate<T, true>(z) : z);
    if (circular) {
      state[next_slot] = token;
      next_slot = next_slot + 1 == S ? 0 : next_slot + 1;
    }
  };
  if (n > 0) step(0, first);
  for (int64_t i0 = 1; i0 < n; i0 += kUpdateChunk) {
    T tokens[kUpdateChunk];
#pragma unroll
    for (int k = 0; k < kUpdateChunk; ++k)
      if (i0 + k < n) tokens[k] = x[i0 + k];
#pragma unroll
    for (int k = 0; k < kUpdateChunk; ++k)
      if (i0 + k < n) step(i0 + k, tokens[k]);
  }
  // The shifted state's last W-1 entries are the window's.
  if (!circular)
#pragma unroll
    for (int j = 0; j < W - 1; ++j) state[head + j] = win[j + 1];
}

// The grid is (channel blocks, batch row groups, groups / kMaxGridY): a
// thread steps channel c of R consecutive batch rows, with every row's loads
// (indices, then windows and first tokens) issued before any row's stores, so
// that R rows cost the round trips of one and share the taps. No division, no
// loop over the grid: registers cap the threads in flight, the whole speed
// of a large batch.
template <class T, int W, class Wt = T>
__global__ void __launch_bounds__(kUpdateThreads, Conv1dTraits::update_blocks(W, sizeof(T)))
    update_kernel(Conv1dProblem p) {
  constexpr int R = Conv1dTraits::update_rows(W, sizeof(T));
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kUpdateThreads + threadIdx.x;
  const int64_t b0 = (static_cast<int64_t>(blockIdx.z) * gridDim.y + blockIdx.y) * R;
  if (c >= p.channels || b0 >= p.batch) return;
  const Taps<T, W, Wt> taps(p, c);
  const int64_t S = p.state_len;
  const bool circular = p.cache_seqlens.data != nullptr;

  int64_t sb[R];  // the state rows, negative for rows skipped
  int32_t seqlen[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int64_t b = b0 + r;
    sb[r] = b < p.batch ? b : -1, seqlen[r] = 0;
    if (b >= p.batch) continue;
    if (p.state_indices.data) sb[r] = static_cast<const int32_t *>(p.state_indices.data)[b * p.state_indices.stride[0]];
    if (circular) seqlen[r] = static_cast<const int32_t *>(p.cache_seqlens.data)[b * p.cache_seqlens.stride[0]];
    if (sb[r] >= p.state_rows) sb[r] = -1;  // padding (or an index past the pool): untouched
  }
  T win[R][W], first[R];  // each row's window and token 0
  int64_t pos[R];         // circular: each row's slot of token 0, in [0, S)
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (sb[r] < 0) continue;
    // A 32-bit remainder: |seqlen| < 2^31.
    pos[r] = S > INT32_MAX ? seqlen[r] : seqlen[r] % static_cast<int32_t>(S);
    if (pos[r] < 0) pos[r] += S;
    const UpdateRow<T> state(p.state, sb[r], c);
#pragma unroll
    for (int j = 0; j < W - 1; ++j) {
      const int64_t q = circular ? pos[r] - (W - 1) + j : S - (W - 1) + j;  // S >= W-1
      win[r][j + 1] = state[q < 0 ? q + S : q];
    }
    if (p.length > 0) first[r] = *at<const T>(p.x, b0 + r, c, 0);
  }
#pragma unroll
  for (int r = 0; r < R; ++r)
    if (sb[r] >= 0) finish_row<T, W, Wt>(p, taps, b0 + r, sb[r], c, pos[r], win[r], first[r]);
}

}  // namespace baracuda::kernels::conv1d
