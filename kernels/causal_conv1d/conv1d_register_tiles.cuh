// The time tiles' backward ([B, C, L], stride 1 along L) in one-tile blocks
// with each warp's run of the tile in registers instead of a shared-memory
// ring: block (x, y, z) takes tile x of row z * gridDim.y + y, with the
// runs, steps and sums of a tile of backward_time_tiles_kernel
// (conv1d_time_tiles.cuh), so the same dx bits, and the same dw and db bits
// where that kernel's block takes a row of one tile. A lane loads its own
// vectors of x and dy (each step's arrive on their own: no wait for the
// whole tile), takes the W-1 inputs before its vector from the lane before
// by shuffles, and lane 0 the vectors beside its warp's run; no barrier but
// the dw/db sum. No loads ahead: 64 registers, 8 blocks an SM, where the
// staged kernel's one-tile blocks (rows of L 4096 in 16 bits) held 6 and
// waited for a whole tile before any warp could start (session 19, H200:
// bf16 [8,4096,4096] W4 243.7 -> 203.7 us, Tri Dao's 220.6).
// Whole tiles only and one halo vector (W - 1 <= 16 / sizeof(T)): conv1d_heuristics.h.
#pragma once

#include "causal_conv1d/conv1d_partials.cuh"
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

// Words first .. last of v from lane src (the others v's own).
template <int First, int Last>
__device__ __forceinline__ uint4 words_from(const uint4 &v, int src) {
  uint4 r = v;
  if (First <= 0 && 0 <= Last) r.x = __shfl_sync(0xffffffffu, v.x, src);
  if (First <= 1 && 1 <= Last) r.y = __shfl_sync(0xffffffffu, v.y, src);
  if (First <= 2 && 2 <= Last) r.z = __shfl_sync(0xffffffffu, v.z, src);
  if (First <= 3 && 3 <= Last) r.w = __shfl_sync(0xffffffffu, v.w, src);
  return r;
}

// The W-1 g after a warp's run, every lane computing all of them, from the
// run's last vector of x (lane 31's last) and lane 0's vectors of x and dy
// after the run (zeros past the row, as a stage's halo holds there): the
// same inputs, so the same g, as the time tiles' upstream_after_run.
template <class T, int W, class Grad>
__device__ __forceinline__ void upstream_after_run_lanes(const Grad &taps, const uint4 &last_x, const uint4 &after_x,
                                                         const uint4 &after_dy, Acc<T> (&later)[W - 1]) {
  constexpr int V = kTimeVec<T>, E = static_cast<int>(sizeof(T));
  constexpr int kTail = (V - (W - 1)) * E / 4, kHead = ((W - 1) * E + 3) / 4 - 1;
  Acc<T> xw[2 * V], dy[V];
  unpack_raw<T, V>(words_from<kTail, 3>(last_x, 31), xw);
  unpack_raw<T, V>(words_from<0, kHead>(after_x, 0), xw + V);
  unpack_raw<T, V>(words_from<0, kHead>(after_dy, 0), dy);
#pragma unroll
  for (int a = 0; a < W - 1; ++a) later[a] = taps.upstream(xw + V - (W - 1) + a, dy[a]);
}

// Row (b, c) of a [B, C, L] operand (stride 1 along L: its timesteps are
// the pointer plus an offset, without a 64-bit multiply each).
template <class T>
__device__ __forceinline__ T *row_of(const Conv1dView &v, int64_t b, int64_t c) {
  return static_cast<T *>(v.data) + b * v.stride[0] + c * v.stride[1];
}

// Lane 0's vector u of a row (zeros past the row's units).
template <class T>
__device__ __forceinline__ uint4 lane0_vector(const T *row, int64_t u, int64_t units) {
  return threadIdx.x % 32 == 0 && u < units ? load_vector16(row + u * kTimeVec<T>) : make_uint4(0, 0, 0, 0);
}

// Lane 0's vector before its warp's run (x_pad's initial values before the row).
template <class T, int W>
__device__ __forceinline__ uint4 run_before(const Conv1dProblem &p, const T *row, int64_t b, int64_t c, int64_t u) {
  uint4 v = make_uint4(0, 0, 0, 0);
  if (threadIdx.x % 32 == 0) {
    if (u >= 0) {
      v = load_vector16(row + u * kTimeVec<T>);
    } else {
      store_initial16<T, W>(p, b, c, u * kTimeVec<T>, 2, &v);
    }
  }
  return v;
}

// A warp's run of vectors u0 .. u0 + kRun - 1 of row (b, c): its dx, and its
// dw/db partial sums (times the taps' grad_scale) added to parts. x_pad's
// initial values before the row, zeros past its `units` vectors.
template <class T, int W, int Steps, class Grad>
__device__ __forceinline__ void register_run(const Conv1dProblem &p, const Grad &taps, int64_t b, int64_t c,
                                             int64_t u0, int64_t units, int lane, Acc<T> (&parts)[W + 1]) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, kRun = 32 * Steps;
  // The lane's vectors u0 + m * 32 + lane of x and dy, and lane 0's beside the warp's run.
  uint4 xr[Steps], dr[Steps];
  const T *xrow = row_of<T>(p.x, b, c), *dyrow = row_of<T>(p.dy, b, c);
  {
    const T *xs = xrow + (u0 + lane) * V, *ds = dyrow + (u0 + lane) * V;
#pragma unroll
    for (int m = Steps - 1; m >= 0; --m) {
      xr[m] = load_vector16(xs + m * 32 * V);
      dr[m] = load_vector16(ds + m * 32 * V);
    }
  }
  const uint4 before = run_before<T, W>(p, xrow, b, c, u0 - 1);
  const uint4 after_x = lane0_vector<T>(xrow, u0 + kRun, units);
  const uint4 after_dy = lane0_vector<T>(dyrow, u0 + kRun, units);
  A later[W - 1];  // the step after's shifted g: the W-1 g after the run
  upstream_after_run_lanes<T, W>(taps, xr[Steps - 1], after_x, after_dy, later);
  T *dxr = row_of<T>(p.dx, b, c) + (u0 + lane) * V;
#pragma unroll
  for (int m = Steps - 1; m >= 0; --m) {
    const uint4 xcur = xr[m], dcur = dr[m];
    // Lane 31 passes lane 0 its vector of the step below (the one before lane 0's).
    uint4 prev = inputs_before<T, W>(xcur, xr[m > 0 ? m - 1 : 0], m > 0, lane);
    if (m == 0 && lane == 0) prev = before;
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
#pragma unroll
  for (int k = 0; k <= W; ++k) parts[k] *= taps.grad_scale();
}

// Block (x, y, z) takes tile x of row z * gridDim.y + y. Partial sums go to
// slot b * gridDim.x + blockIdx.x, or with partials null
// (Conv1dLaunch::sums_direct) to DW and DB. SiluFlag: as GradTaps'
// (conv1d_math.cuh; a run-time SiLU spilled up to 170 bytes here at 64
// registers and ran 5-40% slower, session 20).
template <class T, int W, class Wt, class SiluFlag>
__global__ void __launch_bounds__(kThreads, Conv1dTraits::backward_register_blocks(W))
    backward_register_tiles_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int Steps = Conv1dTraits::backward_register_tile_steps(sizeof(T)), kRun = 32 * Steps;
  static_assert(kHaloVecs<T, W> == 1, "the W-1 inputs before a vector are within the vector before it");
  let_next_pass_start();  // the reduction of the partial sums waits for this pass's end
  const TimeTiles<Steps, 1> tiles(p, kTimeVec<T>);  // (a tile a block: tile blockIdx.x of its row)
  const int lane = threadIdx.x % 32, run = threadIdx.x / 32 * kRun;
  auto q = tiles.start(p);
  q.row = static_cast<int64_t>(blockIdx.z) * gridDim.y + blockIdx.y;  // (past 65535 rows, grid z)
  if (q.row >= p.batch * p.channels) return;
  split_row(q.row, p.channels, q.b, q.c);
  const GradTaps<T, W, Wt, true, SiluFlag> taps(p, q.c);
  A parts[W + 1] = {};
  register_run<T, W, Steps>(p, taps, q.b, q.c, q.u0 + run, tiles.units, lane, parts);
  if (q.row_ends) {  // (always: the tile is its row's one in this block; a branch ptxas allocates better around)
    if (!partials) {  // (0 + sum: the reduction's bits)
      block_sum<A, W>(parts, [&](unsigned k, A sum) { store_channel_sum<Wt, W>(p, q.c, k, A(0) + sum); });
    } else {
      // (block_partials' sum with a lambda of its own: one shared by two kernels made its shared
      // buffer a module variable, and the time tiles' kernel 1-3% slower in f32, session 19.)
      const int64_t slot = q.b * gridDim.x + blockIdx.x;
      block_sum<A, W>(parts, [&](unsigned k, A sum) {
        store_partial(partials + (slot * p.channels + q.c) * (W + 1) + k, sum);
      });
    }
  }
}

// Two tiles of a row a block: block (x, y, z) takes tiles 2x and 2x + 1 of
// row z * gridDim.y + y in turn, the row's prologue (its division into b and
// c, the taps) once for both; each tile's sums to its slot b * (the row's
// tiles) + tile, as the one-tile blocks' (the same bits). For 16-bit rows of
// an even number of tiles in a large grid (conv1d_heuristics.h). Its own
// kernel: the same loop in the one-tile kernel, or a uniform branch to it
// there, cost the rows of one tile 1-3% (session 24: ptxas's registers for
// the one-tile code).
template <class T, int W, class Wt, class SiluFlag>
__global__ void __launch_bounds__(kThreads, Conv1dTraits::backward_register_blocks(W))
    backward_register_tile_pairs_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int Steps = Conv1dTraits::backward_register_tile_steps(sizeof(T)), kRun = 32 * Steps;
  constexpr int kTileVecs = kThreads / 32 * kRun;
  static_assert(kHaloVecs<T, W> == 1, "the W-1 inputs before a vector are within the vector before it");
  let_next_pass_start();  // the reduction of the partial sums waits for this pass's end
  const int lane = threadIdx.x % 32, run = threadIdx.x / 32 * kRun;
  const int64_t row = static_cast<int64_t>(blockIdx.z) * gridDim.y + blockIdx.y;  // (past 65535 rows, grid z)
  if (row >= p.batch * p.channels) return;
  int64_t b, c;
  split_row(row, p.channels, b, c);
  const GradTaps<T, W, Wt, true, SiluFlag> taps(p, c);
  const int64_t units = p.length / kTimeVec<T>, row_tiles = units / kTileVecs;
#pragma unroll 1
  for (int k = 0; k < 2; ++k) {
    const int64_t tile = static_cast<int64_t>(blockIdx.x) * 2 + k, slot = b * row_tiles + tile;
    A parts[W + 1] = {};
    register_run<T, W, Steps>(p, taps, b, c, tile * kTileVecs + run, units, lane, parts);
    block_sum<A, W>(parts, [&](unsigned j, A sum) {
      store_partial(partials + (slot * p.channels + c) * (W + 1) + j, sum);
    });
  }
}

// Rows of one or two warps' runs (16-bit L 1024 and 2048, f32 L 512 and
// 1024: the row groups staged the shorter ones whole, several a tile,
// through a ring with its barriers; the staged time tiles the others): a
// warp a run, kThreads / 32 runs a block (block (y, z): runs (z * gridDim.y +
// y) * kThreads / 32 on), a row's sums over its warps in order into slot b,
// or with partials null to DW and DB. Session 20 (H200, bf16 x, f32 weights,
// W 4, SiLU, against the row groups, rows of one run): [8,2048,1024] 44.4
// -> 30.7 us, [64,2048,1024] 299 -> 211, [128,2048,1024] 588 -> 417.
template <class T, int W, class Wt, class SiluFlag>
__global__ void __launch_bounds__(kThreads, Conv1dTraits::backward_register_blocks(W))
    backward_register_rows_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int Steps = Conv1dTraits::backward_register_tile_steps(sizeof(T)), kRun = 32 * Steps;
  constexpr int kWarps = kThreads / 32;
  static_assert(kHaloVecs<T, W> == 1, "the W-1 inputs before a vector are within the vector before it");
  static_assert(kWarps == 4, "two pairs of warps, named barriers 1 and 2");
  __shared__ A red[kWarps][W + 1];
  let_next_pass_start();  // the reduction of the partial sums waits for this pass's end
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t units = p.length / kTimeVec<T>;
  const int shift = units == kRun ? 0 : 1;  // log2 of the runs a row (conv1d_heuristics.h: 1 or 2)
  const int64_t row = ((static_cast<int64_t>(blockIdx.z) * gridDim.y + blockIdx.y) * kWarps + warp) >> shift;
  const int run = warp & shift;  // the warp's run of its row
  if (row >= p.batch * p.channels) return;  // (a row's warps together: its pair's barrier below stays whole)
  int64_t b, c;
  split_row(row, p.channels, b, c);
  const GradTaps<T, W, Wt, true, SiluFlag> taps(p, c);
  A parts[W + 1] = {};
  register_run<T, W, Steps>(p, taps, b, c, int64_t{run} * kRun, units, lane, parts);
  auto write = [&](int k, A sum) {
    if (partials) {
      store_partial(partials + (b * p.channels + c) * (W + 1) + k, sum);
    } else {  // (0 + sum: the reduction's bits)
      store_channel_sum<Wt, W>(p, c, k, A(0) + sum);
    }
  };
#pragma unroll
  for (int k = 0; k <= W; ++k) {
#pragma unroll
    for (int off = 16; off > 0; off /= 2) parts[k] += __shfl_xor_sync(0xffffffffu, parts[k], off);
    if (shift == 0 && lane == k) write(k, parts[k]);
  }
  if (shift == 0) return;
  // Two warps a row: the first adds the second's sums after its own (the block sum's order), past a
  // barrier of the pair alone (named barrier 1 + warp / 2, 64 threads; kThreads 128).
  if (lane == 0)
#pragma unroll
    for (int k = 0; k <= W; ++k) red[warp][k] = parts[k];
  if (warp < 2) {
    asm volatile("bar.sync 1, 64;" ::: "memory");
  } else {
    asm volatile("bar.sync 2, 64;" ::: "memory");
  }
  if (run == 0 && lane <= W) write(lane, red[warp][lane] + red[warp + 1][lane]);
}

}  // namespace baracuda::kernels::conv1d
