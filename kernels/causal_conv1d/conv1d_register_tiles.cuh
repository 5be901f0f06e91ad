// The time tiles' backward ([B, C, L], stride 1 along L) with each warp's
// run of a tile in registers instead of a shared-memory ring: the same tiles,
// runs, steps and sums as backward_time_tiles_kernel (conv1d_time_tiles.cuh),
// so the same dx, dw and db bits, but a lane loads its own vectors of x and dy
// a tile ahead (step m of the next tile as soon as step m of this one is
// unpacked), takes the W-1 inputs before its vector from the lane before by
// shuffles, and no barrier orders the warps but the row's dw/db sum. The
// staged kernel waited for a whole tile before any warp could start (one-tile
// blocks at L 4096 put a full load latency in every block's life) and spent
// a third of its instructions on staging, addressing and barriers.
// Full tiles only (rows of a whole number of tiles) and one halo vector
// (W - 1 <= 16 / sizeof(T)): conv1d_heuristics.h.
#pragma once

#include "causal_conv1d/conv1d_time_tiles.cuh"

namespace baracuda::kernels::conv1d {

__device__ __forceinline__ uint4 load_vector16(const void *p) { return __ldg(static_cast<const uint4 *>(p)); }

// The W-1 inputs before a lane's vector, as the words of a vector whose last
// W-1 elements they are (the other words undefined): the lane before's
// vector (own), lane 31's `wrap` for lane 0 where wraps (the vector before
// lane 0's is lane 31's of the next step down).
template <class T, int W>
__device__ __forceinline__ uint4 inputs_before(const uint4 &own, const uint4 &wrap, bool wraps, int lane) {
  constexpr int V = kTimeVec<T>, kFirstWord = (V - (W - 1)) * static_cast<int>(sizeof(T)) / 4;
  const bool alt = wraps && lane == 31;
  uint4 v = own;
  if (kFirstWord <= 0) v.x = __shfl_sync(0xffffffffu, alt ? wrap.x : own.x, (lane + 31) & 31);
  if (kFirstWord <= 1) v.y = __shfl_sync(0xffffffffu, alt ? wrap.y : own.y, (lane + 31) & 31);
  if (kFirstWord <= 2) v.z = __shfl_sync(0xffffffffu, alt ? wrap.z : own.z, (lane + 31) & 31);
  v.w = __shfl_sync(0xffffffffu, alt ? wrap.w : own.w, (lane + 31) & 31);
  return v;
}

// The inputs of g at the timestep t = (u0 + run end) * V + min(lane, W-2)
// after a run (zeros past the row, as a stage's halo holds there), loaded a
// tile ahead of its use.
template <class T, int W>
struct AfterRun {
  Acc<T> x[W], dy;
  __device__ void load(const Conv1dProblem &p, int64_t b, int64_t c, int64_t t) {
    t += min(static_cast<int>(threadIdx.x % 32), W - 2);
    const T *xr = at<T>(p.x, b, c, 0);
#pragma unroll
    for (int k = 0; k < W; ++k) {
      const int64_t s = t - (W - 1) + k;
      x[k] = s < p.length ? Accum<T>::load(xr[s]) : Acc<T>(0);
    }
    dy = t < p.length ? get<T>(p.dy, b, c, t) : Acc<T>(0);
  }
};

// Lane 0's vector before its warp's run (x_pad's initial values before the row).
template <class T, int W>
__device__ __forceinline__ uint4 run_before(const Conv1dProblem &p, int64_t b, int64_t c, int64_t u) {
  uint4 v = make_uint4(0, 0, 0, 0);
  if (threadIdx.x % 32 == 0) {
    if (u >= 0) {
      v = load_vector16(at<T>(p.x, b, c, u * kTimeVec<T>));
    } else {
      store_initial16<T, W>(p, b, c, u * kTimeVec<T>, 2, &v);
    }
  }
  return v;
}

// OneTile: every block takes one tile (rows of one tile, a block a row):
// no loads ahead, so fewer registers and more blocks an SM.
template <class T, int W, bool Silu, class Wt = T, bool Direct = false, bool OneTile = false>
__global__ void __launch_bounds__(kThreads, Conv1dTraits::backward_register_blocks(sizeof(T), OneTile))
    backward_register_tiles_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, Steps = Conv1dTraits::backward_register_tile_steps(sizeof(T)), kRun = 32 * Steps;
  static_assert(kHaloVecs<T, W> == 1, "the W-1 inputs before a vector are within the vector before it");
  using Tiles = TimeTiles<Steps, Conv1dTraits::time_tiles_per_block(true, sizeof(T))>;
  using Grad = GradTaps<T, W, Silu, Wt>;
  let_next_pass_start();  // the reduction of the partial sums waits for this pass's end
  const Tiles tiles(p, V);
  const int lane = threadIdx.x % 32, run = threadIdx.x / 32 * kRun;
  auto q = tiles.start(p);
  Grad taps(p, q.c);
  A parts[W + 1] = {};
  uint4 xr[Steps], dr[Steps];  // this tile's vectors of the lane, then the next tile's
  {
    const T *xs = at<T>(p.x, q.b, q.c, (q.u0 + run + lane) * V), *ds = at<T>(p.dy, q.b, q.c, (q.u0 + run + lane) * V);
#pragma unroll
    for (int m = Steps - 1; m >= 0; --m) {
      xr[m] = load_vector16(xs + m * 32 * V);
      dr[m] = load_vector16(ds + m * 32 * V);
    }
  }
  uint4 before = run_before<T, W>(p, q.b, q.c, q.u0 + run - 1);
  AfterRun<T, W> after;
  after.load(p, q.b, q.c, (q.u0 + run + kRun) * V);
  const int64_t items = OneTile ? 1 : tiles.items;
  for (int64_t i = 0; i < items; ++i) {
    auto nq = q;
    if (!OneTile) tiles.advance(p, nq);
    const bool more = !OneTile && i + 1 < items;
    // The next tile's halo inputs and its row's taps go out a tile ahead.
    uint4 next_before = make_uint4(0, 0, 0, 0);
    AfterRun<T, W> next_after = after;
    A held[W + 1];
    const bool new_row = more && nq.k == 0;
    if (more) {
      next_before = run_before<T, W>(p, nq.b, nq.c, nq.u0 + run - 1);
      next_after.load(p, nq.b, nq.c, (nq.u0 + run + kRun) * V);
    }
    if (new_row)
#pragma unroll
      for (int k = 0; k <= W; ++k) held[k] = Grad::tap(p, nq.c, k);
    // The step after the run's shifted g: lanes < W-1 compute one each of the W-1 g after the run.
    A later[W - 1];
    {
      const A g_after = taps.upstream(after.x, after.dy);
#pragma unroll
      for (int a = 0; a < W - 1; ++a) later[a] = __shfl_sync(0xffffffffu, g_after, (a - (31 - lane) * V) & 31);
    }
    T *dxr = at<T>(p.dx, q.b, q.c, (q.u0 + run + lane) * V);
    const int64_t next_u = more ? nq.u0 + run + lane : 0;
    const T *nxs = at<T>(p.x, nq.b, nq.c, next_u * V), *nds = at<T>(p.dy, nq.b, nq.c, next_u * V);
#pragma unroll
    for (int m = Steps - 1; m >= 0; --m) {
      const uint4 xcur = xr[m], dcur = dr[m];
      // Lane 31 passes lane 0 its vector of the next step down (the one before lane 0's).
      uint4 prev = inputs_before<T, W>(xcur, xr[m > 0 ? m - 1 : 0], m > 0, lane);
      if (m == 0 && lane == 0) prev = before;
      if (more) {
        xr[m] = load_vector16(nxs + m * 32 * V);
        dr[m] = load_vector16(nds + m * 32 * V);
      }
      A xw[2 * V];  // the vector before's elements, then this one's: win[e + k] = x[t_e - (W-1) + k]
      unpack_raw<T, V>(prev, xw);
      unpack_raw<T, V>(xcur, xw + V);
      const A *win = xw + V - (W - 1);
      A g[V], shifted[W - 1];  // shifted[a]: g at vector j + 1 + a / V, element a % V
      lane_upstream<T, W>(taps, win, dcur, lane, g, shifted);
      A next[W - 1];
#pragma unroll
      for (int a = 0; a < W - 1; ++a) next[a] = lane + 1 + a / V >= 32 ? later[a] : shifted[a];
      vector_gradients<T, W>(taps.taps, win, g, next, parts, dxr + m * 32 * V);
#pragma unroll
      for (int a = 0; a < W - 1; ++a) later[a] = shifted[a];
    }
    if (q.row_ends) {
#pragma unroll
      for (int k = 0; k <= W; ++k) parts[k] *= Grad::kGradScale;
      if constexpr (Direct) {  // (0 + sum: the reduction's bits)
        block_sum<A, W>(parts, [&](unsigned k, A sum) { store_channel_sum<Wt, W>(p, q.c, k, A(0) + sum); });
      } else {
        block_partials<A, W>(parts, partials, q.b * gridDim.x + blockIdx.x, p.channels, q.c);
      }
#pragma unroll
      for (int k = 0; k <= W; ++k) parts[k] = A(0);
    }
    if (new_row) taps = Grad(held);
    before = next_before;
    after = next_after;
    q = nq;
  }
}

}  // namespace baracuda::kernels::conv1d
