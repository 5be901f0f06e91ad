// The staged time tiles of causal conv1d ([B, C, L], stride 1 along L): a
// tile is a run of one row's timesteps; a thread takes 16-byte vectors of it
// and reads the W-1 inputs before a vector from the stage. Forward and backward.
#pragma once

#include "causal_conv1d/conv1d_staged.cuh"

namespace baracuda::kernels::conv1d {

constexpr int kForwardTileSteps = Conv1dTraits::kForwardTileSteps;
constexpr int kBackwardTileSteps = Conv1dTraits::kBackwardTileSteps;

// Whole vectors that hold the W-1 timesteps beside a time tile.
template <class T, int W>
constexpr int kHaloVecs = (W - 1 + kTimeVec<T> - 1) / kTimeVec<T>;

// ---- Time tiles ([B, C, L], stride 1 along L) ---------------------------------

// Time tiles of Steps vectors per thread, PerBlock consecutive tiles of a
// row a block. A block takes tiles first .. first + group - 1 of rows
// blockIdx.y, +gridDim.y, ...; a cursor walks them in that order (no
// division per tile; a row's (b, c) by the channels' FastDivisor where
// start and advance are given one, else by split_row's division).
// OneRowShortcut (the lean forward's): a block of one row, as where the rows
// fit one grid, counts its items without the 64-bit division (the backward
// keeps main's code: not measured with it).
template <int Steps, int PerBlock, bool OneRowShortcut = false>
struct TimeTiles {
  static constexpr int kVecs = kThreads * Steps;
  int64_t units;  // vectors per row
  int64_t first;
  int group;
  int64_t items;  // the block's tiles in all

  __device__ TimeTiles(const Conv1dProblem &p, int v) {
    units = p.length / v;
    const int64_t per_row = (units + kVecs - 1) / kVecs;
    first = static_cast<int64_t>(blockIdx.x) * PerBlock;
    group = static_cast<int>(per_row - first < PerBlock ? per_row - first : PerBlock);
    const int64_t rows_left = p.batch * p.channels - blockIdx.y;
    items = (OneRowShortcut && rows_left <= gridDim.y ? 1 : (rows_left + gridDim.y - 1) / gridDim.y) * group;
  }
  struct Cursor {
    int64_t row, b, c;  // the tile's row (b, c)
    int64_t u0;         // its first vector
    int k, n;           // its place in the group, its vectors
    bool row_ends;      // the last of the block's tiles of this row
  };
  __device__ Cursor start(const Conv1dProblem &p, FastDivisor channels_div = {}) const {
    Cursor q;
    q.row = blockIdx.y;
    q.k = 0;
    split_row(q.row, p.channels, channels_div, q.b, q.c);
    place(q);
    return q;
  }
  // To the next tile (past the last one the cursor holds garbage, never used).
  __device__ void advance(const Conv1dProblem &p, Cursor &q, FastDivisor channels_div = {}) const {
    if (++q.k == group) {
      q.k = 0;
      q.row += gridDim.y;
      split_row(q.row, p.channels, channels_div, q.b, q.c);
    }
    place(q);
  }

 private:
  __device__ void place(Cursor &q) const {
    q.u0 = (first + q.k) * kVecs;
    q.n = static_cast<int>(units - q.u0 < kVecs ? units - q.u0 : kVecs);
    q.row_ends = q.k + 1 == group;
  }
};

// Issues a tile's vectors u0 - Before .. u0 + n + After - 1 of a row into
// to[0 ..): the tile's n, always inside the row (unrolled when the tile is
// whole, as most are), then its halos, which may leave the row: vectors
// before it take x_pad's initial values, vectors past it zeros. (Range checks
// on every copy had put a row's first and last tiles, half of a 4-tile row's,
// on a slow path.) ZerosWithoutInitial (the lean forward's): the vectors
// before the row are zeros, stored as such, where there are no
// INITIAL_STATES (warp 0 otherwise runs store_initial16's element loop for
// them; the backward keeps main's code: not measured with it).
template <class T, int W, int Before, int After, int Vecs, bool ZerosWithoutInitial = false>
__device__ __forceinline__ void stage_tile(const Conv1dProblem &p, const Conv1dView &view, int64_t b, int64_t c,
                                           int64_t u0, int n, int64_t units, uint4 *to) {
  constexpr int V = kTimeVec<T>;
  const T *row = at<T>(view, b, c, 0);
  const T *src = row + (u0 + threadIdx.x) * V;
  uint4 *dst = to + Before + threadIdx.x;
  if (n == Vecs) {
#pragma unroll
    for (int r = 0; r < Vecs / kThreads; ++r) async_copy16(dst + r * kThreads, src + r * kThreads * V);
  } else {
    for (int j = threadIdx.x; j < n; j += kThreads, src += kThreads * V, dst += kThreads) async_copy16(dst, src);
  }
  if (static_cast<int>(threadIdx.x) < Before + After) {
    const int j = static_cast<int>(threadIdx.x) < Before ? threadIdx.x : threadIdx.x + n;
    const int64_t u = u0 - Before + j;
    if (u >= 0 && u < units) {
      async_copy16(&to[j], row + u * V);
    } else if (u < 0 && !(ZerosWithoutInitial && !p.initial.data)) {
      store_initial16<T, W>(p, b, c, u * V, 2, &to[j]);
    } else {
      to[j] = make_uint4(0, 0, 0, 0);
    }
  }
}

// x of a thread's vector j and the W-1 timesteps before it, from a stage
// whose slot kHaloVecs + j holds vector j: win[e + k] = x[t_e - (W-1) + k].
template <class T, int W>
struct TimeWindow {
  static constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>;
  Acc<T> x[(H + 1) * V];
  __device__ TimeWindow(const uint4 *slots, int j) {
#pragma unroll
    for (int h = 0; h <= H; ++h) unpack_raw<T, V>(slots[j + h], x + h * V);
  }
  __device__ const Acc<T> *win() const { return x + H * V - (W - 1); }
};

// y of a vector: out[e] = act(bias + sum_k w[k] win[e + k]), from the
// forward's taps (forward_taps: scaled as activate_scaled takes their sum).
template <class T, int W, bool Silu, class Wt>
__device__ __forceinline__ void forward_vector(const Taps<T, W, Wt> &taps, const Acc<T> *win,
                                               Acc<T> (&out)[kTimeVec<T>]) {
#pragma unroll
  for (int e = 0; e < kTimeVec<T>; ++e) {
    Acc<T> sum = taps.bias;
#pragma unroll
    for (int k = 0; k < W; ++k) sum += taps.w[k] * win[e + k];
    out[e] = activate_scaled<T, Silu>(sum);
  }
}

// dx of a vector from g over it and the W-1 timesteps after it (gs):
// dx[e] = sum_k w[k] gs[e + W-1-k].
template <class T, int W, class Wt>
__device__ __forceinline__ void transposed_vector(const Taps<T, W, Wt> &taps, const Acc<T> (&gs)[kTimeVec<T> + W - 1],
                                                  Acc<T> (&dx)[kTimeVec<T>]) {
#pragma unroll
  for (int e = 0; e < kTimeVec<T>; ++e) {
    Acc<T> sum = Acc<T>(0);
#pragma unroll
    for (int k = 0; k < W; ++k) sum += taps.w[k] * gs[e + W - 1 - k];
    dx[e] = sum;
  }
}

// The forward time tiles' block prologue, by dtype and SiLU (sessions 22-24,
// H200, same process, every [B,C,L] row of the grid; bench/NOTES.md). Lean
// bookkeeping (no cursor step past the block's last tile, the one-row item
// count, the halo's plain zeros): 32 registers in 16-bit x where main's
// took 34-40 (16 blocks an SM, not 12); with bf16's SiLU it ran at one time
// in three rounds where main's kernel moved by up to 4% ([8,2048,32768]
// 509-511 us against 512-534) and lost 0.2-0.6% on the two largest rows
// ([64,2048,4096], [128,2048,4096]; every round). At ncu's base
// clock it is what keeps the kernel ahead of Tri Dao's: [1,2048,32768]
// 86.8 -> 72.3 us (his 81.3), 54.1 -> 45.9 M warp instructions. The row
// split by the channels' FastDivisor (channels_div, from forward_launch):
// f16 with SiLU 0.7-4.8% over its lean code, but bf16 with SiLU behind lean
// alone. The taps loaded after the first tile's copies are issued: without
// SiLU only (with bf16's SiLU 43 registers, 2-3% slower). f32 keeps main's
// code: no f32 row of the grid takes the time tiles.
template <class T, bool Silu>
struct ForwardTilesPrologue {
  static constexpr bool kLean = sizeof(T) == 2;
  static constexpr bool kDivisor = kLean && (!Silu || kExponentSilu<T, Silu>);
  static constexpr bool kLateTaps = kLean && !Silu;
};

template <class T, int W, bool Silu, class Wt = T>
__global__ void __launch_bounds__(kThreads) forward_time_tiles_kernel(Conv1dProblem p, FastDivisor channels_div) {
  using A = Acc<T>;
  using Prologue = ForwardTilesPrologue<T, Silu>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>, Steps = kForwardTileSteps;
  constexpr bool kLean = Prologue::kLean, kLateTaps = Prologue::kLateTaps;
  using Tiles = TimeTiles<Steps, Conv1dTraits::time_tiles_per_block(false, sizeof(T)), kLean>;
  __shared__ uint4 stage[kStages][H + Tiles::kVecs];  // [H + j]: vector j of the tile; [0, H): the vectors before
  // (rows past 2^31 - 1 take the time walk: choose_conv1d_launch; the
  // division's path, kept beside the multiply, had taken 8 registers more)
  if constexpr (Prologue::kDivisor) __builtin_assume(channels_div.multiplier != 0);
  const FastDivisor split = Prologue::kDivisor ? channels_div : FastDivisor{};  // (the zero one: the division)
  wait_for_previous_pass();  // (launched overlapping the kernel before it: forward_launch)
  let_next_pass_start();
  const Tiles tiles(p, V);
  auto loading = tiles.start(p, split), using_ = loading;
  Taps<T, W, Wt> taps;
  if constexpr (!kLateTaps) taps = forward_taps<T, W, Silu, Wt>(p, using_.c);
  stream_stages<kStages>(
      tiles.items,
      [&](int64_t i, int s) {
        stage_tile<T, W, H, 0, Tiles::kVecs, kLean>(p, p.x, loading.b, loading.c, loading.u0, loading.n, tiles.units,
                                                    stage[s]);
        if constexpr (kLateTaps) {
          if (i == 0) taps = forward_taps<T, W, Silu, Wt>(p, using_.c);
        }
        // (past the block's last tile the cursor is never used: its row's split skipped)
        if (!kLean || i + 1 < tiles.items) tiles.advance(p, loading, split);
      },
      [&](int64_t i, int s) {
        T *yr = at<T>(p.y, using_.b, using_.c, using_.u0 * V);
        auto vector = [&](int j) {
          const TimeWindow<T, W> xw(stage[s], j);
          A out[V];
          forward_vector<T, W, Silu>(taps, xw.win(), out);
          store_run<T, V>(yr + j * V, out);
        };
        const int mine =
            using_.n > static_cast<int>(threadIdx.x) ? (using_.n - threadIdx.x + kThreads - 1) / kThreads : 0;
        run_steps<Steps>(mine, [&](int m) { vector(threadIdx.x + m * kThreads); });
        if (!kLean || i + 1 < tiles.items) {
          const bool next_row = using_.row_ends;
          tiles.advance(p, using_, split);
          // (in flight over the barriers)
          if (next_row && i + 1 < tiles.items) taps = forward_taps<T, W, Silu, Wt>(p, using_.c);
        }
      });
}

// g at timestep e of a tile's stages (counted from the tile's first; up to
// V * (kVecs + H) - 1), from single elements: x's stage has H vectors before.
template <class T, int W, class Grad>
__device__ __forceinline__ Acc<T> upstream_in_stage(const Grad &taps, const uint4 *xs, const uint4 *dys, int e) {
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>;
  const T *x = reinterpret_cast<const T *>(xs) + H * V + e - (W - 1), *dy = reinterpret_cast<const T *>(dys) + e;
  Acc<T> win[W];
#pragma unroll
  for (int k = 0; k < W; ++k) win[k] = Accum<T>::load(x[k]);
  return taps.upstream(win, Accum<T>::load(*dy));
}

// The W-1 g after a warp's run of vectors, from element e0 of the stages
// on, as the run's lanes whose next vectors wrap past lane 31 take them:
// later[a] for vector j + 1 + a / V past the run (lanes < W-1 compute one each).
template <class T, int W, class Grad>
__device__ __forceinline__ void upstream_after_run(const Grad &taps, const uint4 *xs, const uint4 *dys, int e0,
                                                   int lane, Acc<T> (&later)[W - 1]) {
  const Acc<T> after = upstream_in_stage<T, W>(taps, xs, dys, e0 + min(lane, W - 2));
#pragma unroll
  for (int a = 0; a < W - 1; ++a)  // (lanes whose halo stays in the run take any)
    later[a] = __shfl_sync(0xffffffffu, after, (a - (31 - lane) * kTimeVec<T>) & 31);
}

// A lane's step of the backward's warp runs (time tiles and row groups): g
// over its vector from the window and dy's raw vector, and for a < W-1 the g
// at element a % V of the vector a / V + 1 after it, from the next lanes
// (lanes whose next vectors wrap past lane 31 take another lane's).
template <class T, int W, class Grad>
__device__ __forceinline__ void lane_upstream(const Grad &taps, const Acc<T> *win, const uint4 &dy_raw, int lane,
                                              Acc<T> (&g)[kTimeVec<T>], Acc<T> (&shifted)[W - 1]) {
  constexpr int V = kTimeVec<T>;
  Acc<T> dy[V];
  unpack_raw<T, V>(dy_raw, dy);
  taps.upstream_vector(win, dy, g);
#pragma unroll
  for (int a = 0; a < W - 1; ++a) shifted[a] = __shfl_sync(0xffffffffu, g[a % V], (lane + 1 + a / V) % 32);
}

// A vector's dw/db partial sums, added to parts, and its dx (stored at dx)
// from g over it and the W-1 g after it (next).
template <class T, int W, class Wt>
__device__ __forceinline__ void vector_gradients(const Taps<T, W, Wt> &taps, const Acc<T> *win,
                                                 const Acc<T> (&g)[kTimeVec<T>], const Acc<T> (&next)[W - 1],
                                                 Acc<T> (&parts)[W + 1], T *dx) {
  constexpr int V = kTimeVec<T>;
  Acc<T> gs[V + W - 1];  // g over the vector and the W-1 timesteps after it
#pragma unroll
  for (int e = 0; e < V; ++e) {
    gs[e] = g[e];
#pragma unroll
    for (int k = 0; k < W; ++k) parts[k] += g[e] * win[e + k];
    parts[W] += g[e];
  }
#pragma unroll
  for (int a = 0; a < W - 1; ++a) gs[V + a] = next[a];
  Acc<T> out[V];
  transposed_vector<T, W>(taps, gs, out);
  store_run<T, V>(dx, out);
}

// g at each timestep of the tile and of the W-1 after it (from x before and
// after the tile and dy after it); then dx[t] = sum_k w[k] g[t + W-1-k].
// A warp takes a run of 32 * Steps vectors of the tile, a lane every 32nd,
// from the last to the first, so that the W-1 g after a lane's vector come
// from the next lanes by shuffles (lane 31's from the vector after, which the
// previous step left in `later`); lanes < W-1 first compute one each of the
// W-1 g after the run. One vector's g is live at a time and there is no
// second barrier (through shared memory, the kernel ran at 64 registers and
// ~59 instructions an element). Partial dw/db per row go to slot
// b * gridDim.x + blockIdx.x; Direct (Conv1dLaunch::sums_direct: a batch of
// one, a block a row): the block's sums are DW and DB, written as the
// reduction of its one slot would (no reduction launch after it), where
// partials is null.
template <class T, int W, class Wt, class SiluFlag>
__global__ void __launch_bounds__(kThreads, Conv1dTraits::backward_time_blocks(sizeof(T)))
    backward_time_tiles_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>, Steps = Conv1dTraits::backward_time_tile_steps(sizeof(T));
  constexpr int Stages = Conv1dTraits::backward_time_stages(sizeof(T));
  using Tiles = TimeTiles<Steps, Conv1dTraits::time_tiles_per_block(true, sizeof(T))>;
  __shared__ uint4 xstage[Stages][H + Tiles::kVecs + H];  // [H + j]: x vector j of the tile
  __shared__ uint4 dystage[Stages][Tiles::kVecs + H];     // [j]: dy vector j
  __shared__ typename Tiles::Cursor tile_of[Stages];      // each stage's tile (not a second cursor's registers)
  __shared__ A row_taps[Stages][W + 1];                   // a stage's taps where its tile starts a later row
  let_next_pass_start();  // the reduction of the partial sums waits for this pass's end
  const Tiles tiles(p, V);
  auto loading = tiles.start(p);
  using Grad = GradTaps<T, W, Wt, true, SiluFlag>;
  Grad taps(p, loading.c);
  A parts[W + 1] = {};
  const int lane = threadIdx.x % 32, run = threadIdx.x / 32 * (32 * Steps);
  // A later row's taps go out with its tile's copies, thread k <= W tap k:
  // written to the stage's slot at once in the ring's prologue, else at the
  // end of the use they are in flight over (loaded at the row's first use,
  // they had put a round trip to L2 before every row of a block's but the first).
  A pending = A(0);
  int pending_slot = -1;
  stream_stages<Stages>(
      tiles.items,
      [&](int64_t i, int s) {
        const auto &q = loading;
        stage_tile<T, W, H, H, Tiles::kVecs>(p, p.x, q.b, q.c, q.u0, q.n, tiles.units, xstage[s]);
        stage_tile<T, W, 0, H, Tiles::kVecs>(p, p.dy, q.b, q.c, q.u0, q.n, tiles.units, dystage[s]);
        if (threadIdx.x == 0) tile_of[s] = q;
        if (i > 0 && q.k == 0 && threadIdx.x <= W) {
          const A tap = Grad::tap(p, q.c, threadIdx.x);
          if (i < Stages - 1) {
            row_taps[s][threadIdx.x] = tap;
          } else {
            pending = tap;
            pending_slot = s;
          }
        }
        tiles.advance(p, loading);
      },
      [&](int64_t i, int s) {
        const auto &q = tile_of[s];
        if (i > 0 && q.k == 0) taps = Grad(row_taps[s]);
        T *dxr = at<T>(p.dx, q.b, q.c, (q.u0 + run + lane) * V);
        A later[W - 1] = {};  // the step after's shifted g: the W-1 after the vectors whose next lanes wrap
        if (run + Steps * 32 < q.n + H)  // (vectors from n + H on are never read)
          upstream_after_run<T, W>(taps, xstage[s], dystage[s], (run + Steps * 32) * V, lane, later);
#pragma unroll
        for (int m = Steps - 1; m >= 0; --m) {
          if (run + m * 32 >= q.n + H) continue;
          const int j = run + m * 32 + lane;
          const TimeWindow<T, W> xw(xstage[s], j);
          A g[V], shifted[W - 1];  // shifted[a]: g at vector j + 1 + a / V, element a % V
          lane_upstream<T, W>(taps, xw.win(), dystage[s][j], lane, g, shifted);
          if (j < q.n) {
            A next[W - 1];
#pragma unroll
            for (int a = 0; a < W - 1; ++a) next[a] = lane + 1 + a / V >= 32 ? later[a] : shifted[a];
            vector_gradients<T, W>(taps.taps, xw.win(), g, next, parts, dxr + m * 32 * V);
          }
#pragma unroll
          for (int a = 0; a < W - 1; ++a) later[a] = shifted[a];
        }
        if (q.row_ends) {
#pragma unroll
          for (int k = 0; k <= W; ++k) parts[k] *= taps.grad_scale();
          if (!partials) {  // (0 + sum: the reduction's bits)
            block_sum<A, W>(parts, [&](unsigned k, A sum) { store_channel_sum<Wt, W>(p, q.c, k, A(0) + sum); });
          } else {
            block_partials<A, W>(parts, partials, q.b * gridDim.x + blockIdx.x, p.channels, q.c);
          }
#pragma unroll
          for (int k = 0; k <= W; ++k) parts[k] = A(0);
        }
        if (pending_slot >= 0) {  // (before the ring's barrier after this use)
          row_taps[pending_slot][threadIdx.x] = pending;
          pending_slot = -1;
        }
      });
}
}  // namespace baracuda::kernels::conv1d
