// The register-fed forward of causal conv1d over [B, C, L] rows: each
// thread loads its 16-byte vectors of x straight into registers, all of them
// before any math, and stores y; no ring of stages, no barrier. Where a block
// of the staged kernels holds one or two tiles (short rows, small problems),
// its life was one round trip for the copies, a wait, two barriers and the
// taps; here it is one round trip. x and y hold every row back to back
// (dense), rows of a power of two of vectors: a block takes consecutive
// vectors of the B*C rows; the W-1 inputs before a vector are the last of the
// previous lane's (a shuffle), lane 0 loads its own.
#pragma once

#include "causal_conv1d/conv1d_time_tiles.cuh"

namespace baracuda::kernels::conv1d {

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
  auto row_of = [&](int64_t j, int64_t &b, int64_t &c) {
    split_row((j < total ? j : total - 1) >> shift, p.channels, b, c);
  };
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
      store_initial16<T, W>(p, b, c, -V, 2, &before[m].raw);
    }
    A win[2 * V];
    unpack<T, V>(before[m], win);
    unpack<T, V>(cur[m], win + V);
    A out[V];
    forward_vector<T, W, Silu>(taps[m], win + V - (W - 1), out);
    if (j < total) store_run<T, V>(y + j * V, out);
  }
}

}  // namespace baracuda::kernels::conv1d
