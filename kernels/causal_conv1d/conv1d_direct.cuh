// The register-fed forward of causal conv1d, for problems that fill about a
// wave: each thread loads its 16-byte vectors of x straight into registers,
// all of them before any math, and stores y; no ring of stages, no barrier.
// Where a block of the staged kernels holds one or two tiles (small batches,
// short rows), its life was one round trip for the copies, a wait, two
// barriers and a round trip for the taps; here it is one round trip.
//   rows:     [B, C, L] with every row back to back (dense x and y), rows of
//             a power of two of vectors: a block takes consecutive vectors of
//             the B*C rows; the W-1 inputs before a vector are the last of the
//             previous lane's (a shuffle), lane 0 loads its own.
//   channels: channels-last, a warp a vector of channels by 32 timesteps,
//             the W-1 inputs before a lane's from the previous lanes.
#pragma once

#include "causal_conv1d/conv1d_time_tiles.cuh"

namespace baracuda::kernels::conv1d {

// Vec<T, V> of x_pad at timestep t < 0 of channels c .. c + V - 1 (along C),
// or of timesteps t .. t + V - 1 of channel c (along L): INITIAL_STATES or 0.
template <class T, int W, int V>
__device__ __forceinline__ Vec<T, V> initial_vec(const Conv1dProblem &p, int64_t b, int64_t c, int64_t t, bool along_c) {
  Vec<T, V> v;
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const int64_t te = along_c ? t : t + e, ce = along_c ? c + e : c;
    const T x = Accum<T>::store(te >= -(W - 1) ? x_pad<T, W>(p, b, ce, te) : Acc<T>(0));
    memcpy(&v.v[e], &x, sizeof(T));
  }
  return v;
}

// Block x of the grid takes vectors x * kThreads * Steps .. of the B*C rows
// of 1 << shift vectors each (thread t: vectors t, t + kThreads, ...).
template <class T, int W, bool Silu, class Wt, int Steps>
__global__ void __launch_bounds__(kThreads) forward_direct_rows_kernel(Conv1dProblem p, int shift) {
  using A = Acc<T>;
  using Raw = Vec<T, kTimeVec<T>>;
  constexpr int V = kTimeVec<T>;
  static_assert(W - 1 <= V, "the inputs before a vector are in the one before it");
  const int64_t row_mask = (int64_t{1} << shift) - 1;
  const int64_t total = (p.batch * p.channels) << shift;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * (kThreads * Steps) + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const T *x = static_cast<const T *>(p.x.data);
  T *y = static_cast<T *>(p.y.data);
  Raw cur[Steps], before[Steps];
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
    cur[m].raw = make_uint4(0, 0, 0, 0);
    before[m].raw = make_uint4(0, 0, 0, 0);
    if (j < total) {
      cur[m] = load_vec<T, V>(x + j * V);
      if (lane == 0 && (j & row_mask) != 0) before[m] = load_vec<T, V>(x + (j - 1) * V);
    }
  }
  Taps<T, W, Wt> taps[Steps];
  auto row_of = [&](int64_t j, int64_t &b, int64_t &c) { split_row((j < total ? j : total - 1) >> shift, p.channels, b, c); };
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    int64_t b, c;
    row_of(first + m * kThreads, b, c);
    taps[m] = forward_taps<T, W, Silu, Wt>(p, c);
  }
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
    uint4 up;  // the previous lane's vector (every lane shuffles: the mask is whole)
    up.x = __shfl_up_sync(0xffffffffu, cur[m].raw.x, 1);
    up.y = __shfl_up_sync(0xffffffffu, cur[m].raw.y, 1);
    up.z = __shfl_up_sync(0xffffffffu, cur[m].raw.z, 1);
    up.w = __shfl_up_sync(0xffffffffu, cur[m].raw.w, 1);
    if (lane != 0) before[m].raw = up;
    if ((j & row_mask) == 0) {  // a row's first vector: INITIAL_STATES or zeros before it
      int64_t b, c;
      row_of(j, b, c);
      before[m] = initial_vec<T, W, V>(p, b, c, -V, false);
    }
    A win[2 * V];
    unpack<T, V>(before[m], win);
    unpack<T, V>(cur[m], win + V);
    A out[V];
    forward_vector<T, W, Silu>(taps[m], win + V - (W - 1), out);
    if (j < total) store_run<T, V>(y + j * V, out);
  }
}

// Channels-last: a warp takes a vector of Vc channels at 32 consecutive
// timesteps, lane l timestep t0 + l, so that the W-1 inputs before a lane's
// are the previous lanes' (shuffles; lanes < W-1 load the W-1 before the
// warp's first) and a channel's taps are one load for the warp. (A thread a
// vector of channels at a few timesteps loaded the taps of 8 channels for
// each few: 2-14x slower than the channel tiles, session 19.) Grid x: the
// (b, run of 32 timesteps) pairs; grid y: blocks of kThreads / 32 vectors of
// channels.
template <class T, int W, bool Silu, class Wt, int Vc>
__global__ void __launch_bounds__(kThreads) forward_direct_channels_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  using Raw = Vec<T, Vc>;
  constexpr int kWords = Vc * static_cast<int>(sizeof(T)) / 4;
  static_assert(kWords * 4 == sizeof(Raw) && W - 1 <= 32, "whole words; the window within a warp and the one before");
  const int lane = threadIdx.x % 32;
  const int64_t c = (static_cast<int64_t>(blockIdx.y) * (kThreads / 32) + threadIdx.x / 32) * Vc;
  if (c >= p.channels) return;  // whole warps
  const int64_t runs = (p.length + 31) / 32;
  int64_t b, run;
  split_row(blockIdx.x, runs, b, run);
  const int64_t t = run * 32 + lane;
  Raw cur, before;  // x at t; lanes < W-1: x_pad at t0 - (W-1) + lane
  memset(&cur, 0, sizeof cur);
  memset(&before, 0, sizeof before);
  if (t < p.length) cur = load_vec<T, Vc>(at<T>(p.x, b, c, t));
  if (lane < W - 1) {
    const int64_t tb = run * 32 - (W - 1) + lane;
    before = tb >= 0 ? load_vec<T, Vc>(at<T>(p.x, b, c, tb)) : initial_vec<T, W, Vc>(p, b, c, tb, true);
  }
  const ChannelTaps<T, W, Vc, Wt> taps(p, c, kForwardTapScale<T, Silu>);
  uint32_t now[kWords], back[kWords];
  memcpy(now, &cur, sizeof now);
  memcpy(back, &before, sizeof back);
  A win[W][Vc];  // win[j]: x_pad at t - (W-1) + j
  unpack<T, Vc>(cur, win[W - 1]);
#pragma unroll
  for (int k = 1; k < W; ++k) {
    uint32_t words[kWords];
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
      const uint32_t up = __shfl_up_sync(0xffffffffu, now[i], k);
      const uint32_t early = __shfl_sync(0xffffffffu, back[i], (lane - k + W - 1) & 31);
      words[i] = lane >= k ? up : early;
    }
    Raw v;
    memcpy(&v, words, sizeof v);
    unpack<T, Vc>(v, win[W - 1 - k]);
  }
  A out[Vc];
#pragma unroll
  for (int v = 0; v < Vc; ++v) out[v] = activate_scaled<T, Silu>(taps.pre_activation(v, win));
  if (t < p.length) store_run<T, Vc>(at<T>(p.y, b, c, t), out);
}

}  // namespace baracuda::kernels::conv1d
