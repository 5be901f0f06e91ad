// The register-fed forward of causal conv1d over [B, C, L] rows (stride 1
// along L): each thread loads its 16-byte vectors of x straight into
// registers, all of them before any math, and stores y; no ring of stages, no
// barrier. Where a block of the staged kernels holds one or two tiles (short
// rows, small problems), its life was one round trip for the copies, a wait,
// two barriers and the taps; here it is one round trip. Rows of a power of
// two of vectors: a block takes consecutive vectors of the B*C rows; the H
// vectors before a vector (its W-1 inputs) are the previous lanes' (shuffles),
// the first lanes load their own. It also serves the short rows the staged
// row groups took (rows apart in memory, and W-1 past one vector: f32 W 6-8),
// so that the forward has one kernel for them.
#pragma once

#include "causal_conv1d/conv1d_time_tiles.cuh"

namespace baracuda::kernels::conv1d {

// Rows of `view` back to back: row b * C + c at (b * C + c) * L.
__device__ __forceinline__ bool flat_rows(const Conv1dProblem &p, const Conv1dView &view) {
  return (p.channels == 1 || view.stride[1] == p.length) && (p.batch == 1 || view.stride[0] == p.channels * p.length);
}

// Block x of the grid takes vectors x * kThreads * Steps .. of the B*C rows
// of 1 << shift vectors each (thread t: vectors t, t + kThreads, ...).
template <class T, int W, class Wt, int Steps>
__global__ void __launch_bounds__(kThreads, Conv1dTraits::direct_rows_blocks(sizeof(T), W))
    forward_direct_rows_kernel(Conv1dProblem p, int shift) {
  using A = Acc<T>;
  using Raw = Vec<T, kTimeVec<T>>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>;
  const int64_t row_mask = (int64_t{1} << shift) - 1;
  const int64_t total = (p.batch * p.channels) << shift;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * (kThreads * Steps) + threadIdx.x;
  const int lane = threadIdx.x % 32;
  // Dense operands index vector j as j * V; others through the row's (b, c),
  // divided before the loads (a uniform branch: the dense rows keep their
  // loads first).
  const bool flat = flat_rows(p, p.x) && flat_rows(p, p.y);
  auto row_of = [&](int64_t j, int64_t &b, int64_t &c) {
    split_row((j < total ? j : total - 1) >> shift, p.channels, b, c);
  };
  auto vector_at = [&](const Conv1dView &view, int64_t j) {
    if (flat) return static_cast<T *>(view.data) + j * V;
    int64_t b, c;
    row_of(j, b, c);
    return at<T>(view, b, c, (j & row_mask) * V);
  };
  const T *x = static_cast<const T *>(p.x.data);
  Raw cur[Steps], before[Steps][H];  // before[m][h]: vector j - 1 - h
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
    cur[m].raw = make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int h = 0; h < H; ++h) before[m][h].raw = make_uint4(0, 0, 0, 0);
    if (j < total) {
      const T *xj = flat ? x + j * V : vector_at(p.x, j);
      cur[m] = load_vec<T, V>(xj);
#pragma unroll
      for (int h = 0; h < H; ++h)
        if (lane <= h && (j & row_mask) > h) before[m][h] = load_vec<T, V>(xj - (h + 1) * V);
    }
  }
  Taps<T, W, Wt> taps[Steps];
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    int64_t b, c;
    row_of(first + m * kThreads, b, c);
    taps[m] = forward_taps<T, W, Wt>(p, c);
  }
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
#pragma unroll
    for (int h = 0; h < H; ++h) {
      uint4 up;  // lane - 1 - h's vector (every lane shuffles: the mask is whole)
      up.x = __shfl_up_sync(0xffffffffu, cur[m].raw.x, h + 1);
      up.y = __shfl_up_sync(0xffffffffu, cur[m].raw.y, h + 1);
      up.z = __shfl_up_sync(0xffffffffu, cur[m].raw.z, h + 1);
      up.w = __shfl_up_sync(0xffffffffu, cur[m].raw.w, h + 1);
      if (lane > h) before[m][h].raw = up;
      if ((j & row_mask) <= h) {  // before the row: INITIAL_STATES or zeros
        int64_t b, c;
        row_of(j, b, c);
        store_initial16<T, W>(p, b, c, ((j & row_mask) - 1 - h) * V, 2, &before[m][h].raw);
      }
    }
    A win[(H + 1) * V];  // vectors j - H .. j
#pragma unroll
    for (int h = 0; h < H; ++h) unpack<T, V>(before[m][h], win + (H - 1 - h) * V);
    unpack<T, V>(cur[m], win + H * V);
    A out[V];
    forward_vector<T, W>(taps[m], win + H * V - (W - 1), p.silu, out);
    if (j < total) store_run<T, V>(flat ? static_cast<T *>(p.y.data) + j * V : vector_at(p.y, j), out);
  }
}

}  // namespace baracuda::kernels::conv1d
