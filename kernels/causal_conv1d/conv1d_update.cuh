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

// A row of a [B, C, L] view: element i of (b, c), offsets computed in I
// (int32_t where the host found every offset of the problem under 2^31:
// conv1d_update_choice.h).
template <class T, class I>
struct UpdateRow {
  using Elem = T;
  using Index = I;
  T *data;
  I stride;
  __device__ UpdateRow(const Conv1dView &v, I b, I c)
      : data(static_cast<T *>(v.data) + (b * static_cast<I>(v.stride[0]) + c * static_cast<I>(v.stride[1]))),
        stride(static_cast<I>(v.stride[2])) {}
  __device__ T &operator[](I i) const { return data[i * stride]; }
};

// Channel c's taps and bias, as Taps reads them, at offsets in I. Taps of
// 8 or 16 bytes a channel in a dense, aligned [C, W] come as one vector (a
// warp's W loads were W requests over the same sectors).
template <class T, int W, class Wt, class I>
__device__ __forceinline__ Taps<T, W, Wt> update_taps(const Conv1dProblem &p, I c) {
  Taps<T, W, Wt> t;
  const Wt *w = static_cast<const Wt *>(p.weight.data) + c * static_cast<I>(p.weight.stride[0]);
  constexpr int kBytes = W * static_cast<int>(sizeof(Wt));
  bool loaded = false;
  if constexpr (kBytes == 8 || kBytes == 16) {
    const bool dense = p.weight.stride[1] == 1 && p.weight.stride[0] == W;
    if (dense && reinterpret_cast<uintptr_t>(p.weight.data) % kBytes == 0) {
      Vec<Wt, W> v;
      v.raw = *reinterpret_cast<const decltype(v.raw) *>(w);
#pragma unroll
      for (int k = 0; k < W; ++k) {
        Wt tap;
        memcpy(&tap, &v.v[k], sizeof(Wt));
        t.w[k] = Accum<Wt>::load(tap);
      }
      loaded = true;
    }
  }
  if (!loaded)
#pragma unroll
    for (int k = 0; k < W; ++k) t.w[k] = Accum<Wt>::load(w[k * static_cast<I>(p.weight.stride[1])]);
  const Wt *bias = static_cast<const Wt *>(p.bias.data);
  t.bias = bias ? Accum<Wt>::load(bias[c * static_cast<I>(p.bias.stride[0])]) : Acc<T>(0);
  return t;
}

// Batch row b's state row (b, or CONV_STATE_INDICES[b]) and its
// CACHE_SEQLENS entry (0 without), both loaded before either is used: one
// round trip.
template <class I>
struct UpdateRowIndex {
  I state_row;
  int32_t seqlen;
};
template <class I>
__device__ __forceinline__ UpdateRowIndex<I> update_row_index(const Conv1dProblem &p, I b) {
  UpdateRowIndex<I> r{b, 0};
  if (p.state_indices.data)
    r.state_row = static_cast<const int32_t *>(p.state_indices.data)[b * static_cast<I>(p.state_indices.stride[0])];
  if (p.cache_seqlens.data)
    r.seqlen = static_cast<const int32_t *>(p.cache_seqlens.data)[b * static_cast<I>(p.cache_seqlens.stride[0])];
  return r;
}
// A padding row (negative index) or an index past the pool: left untouched.
template <class I>
__device__ __forceinline__ bool skipped_row(const Conv1dProblem &p, I state_row) {
  return state_row < 0 || state_row >= p.state_rows;
}
// A circular state's slot of token 0, in [0, S) (a 32-bit remainder: |seqlen| < 2^31).
template <class I>
__device__ __forceinline__ I circular_slot(int32_t seqlen, I S) {
  I pos = S > INT32_MAX ? seqlen : seqlen % static_cast<int32_t>(S);
  return pos < 0 ? pos + S : pos;
}

// A circular state's writer: token i goes to the slot after token i-1's.
template <class Row>
struct CircularSlots {
  using I = typename Row::Index;
  Row state;
  I next, S;
  __device__ void operator()(typename Row::Elem token) {
    state[next] = token;
    next = next + 1 == S ? 0 : next + 1;
  }
};

// Tokens i0 .. i0 + kUpdateChunk - 1 of x (those below n), loaded together.
template <class T, class XRow, class I = typename XRow::Index>
__device__ __forceinline__ void load_tokens(T (&tokens)[kUpdateChunk], const XRow &x, I i0, I n) {
#pragma unroll
  for (int k = 0; k < kUpdateChunk; ++k)
    if (i0 + k < n) tokens[k] = x[i0 + k];
}

// Steps the n tokens of x through the window (win[1..W-1]: the W-1 inputs
// before token 0): y for each, and each token to on_token once its y is
// stored, a chunk of tokens at a time through `tokens`. With
// kFirstChunkLoaded the caller loaded the first chunk with the window (one
// round trip for both).
template <bool kFirstChunkLoaded, class T, int W, class Wt, class XRow, class YRow, class OnToken,
          class I = typename XRow::Index>
__device__ __forceinline__ void step_tokens(const Taps<T, W, Wt> &taps, T (&win)[W], T (&tokens)[kUpdateChunk],
                                            const XRow &x, const YRow &y, I n, bool silu, OnToken &&on_token) {
  using A = Acc<T>;
  for (I i0 = 0; i0 < n; i0 += kUpdateChunk) {
    if (i0 > 0 || !kFirstChunkLoaded) load_tokens(tokens, x, i0, n);
#pragma unroll
    for (int k = 0; k < kUpdateChunk; ++k) {
      if (i0 + k >= n) break;
#pragma unroll
      for (int j = 0; j + 1 < W; ++j) win[j] = win[j + 1];
      win[W - 1] = tokens[k];
      A z = taps.bias;
#pragma unroll
      for (int j = 0; j < W; ++j) z += taps.w[j] * Accum<T>::load(win[j]);
      y[i0 + k] = Accum<T>::store(silu ? activate<T, true>(z) : z);
      on_token(tokens[k]);
    }
  }
}

// The grid is (channel blocks, batch rows, batch rows / kMaxGridY): b and c
// come from the block index with no division, and no loop holds registers
// (which cap the threads in flight, the whole speed of a large batch).
// Offsets in I: int32_t where they fit (fewer instructions a thread, which a
// large batch's time counts too: session 18), else int64_t.
template <class T, int W, class Wt, class I>
__global__ void __launch_bounds__(kUpdateThreads, Conv1dTraits::update_blocks(W, sizeof(T), sizeof(I)))
    update_kernel(Conv1dProblem p) {
  const I c = static_cast<I>(blockIdx.x) * kUpdateThreads + threadIdx.x;
  const I b = static_cast<I>(blockIdx.z) * gridDim.y + blockIdx.y;
  if (c >= p.channels || b >= p.batch) return;
  const Taps<T, W, Wt> taps = update_taps<T, W, Wt>(p, c);
  const I n = static_cast<I>(p.length), S = static_cast<I>(p.state_len);
  const bool circular = p.cache_seqlens.data != nullptr;
  const UpdateRowIndex<I> row = update_row_index(p, b);
  if (skipped_row(p, row.state_row)) return;
  const UpdateRow<T, I> state(p.state, row.state_row, c), y(p.y, b, c);
  const UpdateRow<const T, I> x(p.x, b, c);
  const I pos = circular_slot(row.seqlen, S);  // circular: the slot of token 0

  T win[W];  // the W inputs ending at the current token; the state's last W-1 before token 0
#pragma unroll
  for (int j = 0; j < W - 1; ++j) {
    I q = circular ? pos - (W - 1) + j : S - (W - 1) + j;  // S >= W-1
    win[j + 1] = state[q < 0 ? q + S : q];
  }
  // A shifted state longer than the window: its entries before the last W-1,
  // state[s] = (state ++ x)[s + n], in ascending chunks, each read whole
  // before it is written over (and before the window's entries are).
  const I head = circular ? 0 : S - (W - 1);
  for (I s0 = 0; s0 < head; s0 += kUpdateChunk) {
    T moved[kUpdateChunk];
#pragma unroll
    for (int k = 0; k < kUpdateChunk; ++k) {
      const I q = s0 + k + n;
      if (s0 + k < head) moved[k] = q < S ? state[q] : x[q - S];
    }
#pragma unroll
    for (int k = 0; k < kUpdateChunk; ++k)
      if (s0 + k < head) state[s0 + k] = moved[k];
  }
  T tokens[kUpdateChunk];
  CircularSlots<UpdateRow<T, I>> slots{state, pos, S};
  step_tokens<false>(taps, win, tokens, x, y, n, p.silu, [&](T token) {
    if (circular) slots(token);
  });
  // The shifted state's last W-1 entries are the window's.
  if (!circular)
#pragma unroll
    for (int j = 0; j < W - 1; ++j) state[head + j] = win[j + 1];
}

}  // namespace baracuda::kernels::conv1d
