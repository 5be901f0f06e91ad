// The fast paths of causal conv1d, for the two layouts whose rows allow
// 16-byte copies: every input reaches shared memory by async copies through a
// ring of stages, so a block keeps the next tiles' bytes in flight while it
// computes, without registers held for them (the register-fed kernels that
// came before sat at 45-72% of copy bandwidth, limited by loads in flight).
//   time tiles:    stride 1 along L ([B, C, L]). A tile is a run of one row's
//                  timesteps; a thread takes 16-byte vectors of it and reads
//                  the W-1 inputs before a vector from the stage.
//   channel tiles: stride 1 along C (channels-last, [B, L, C] memory). A tile
//                  is a box of timesteps by the block's channels; a thread
//                  owns a few channels and walks the chunk's timesteps box by
//                  box, keeping the window in registers.
// The backward's dw/db partial sums go to per-(b, slot) workspace entries as
// in the other kernels (reduced in slot order later: no atomics).
#pragma once

#include "causal_conv1d/conv1d_math.cuh"
#include "common/async_copy.cuh"

namespace baracuda::kernels::conv1d {

// Tuning knobs (measured on the H200; see bench/NOTES.md): stages of the
// ring, vectors per thread in a time tile (per direction), time tiles per block (a block's
// tiles are consecutive tiles of a row), and the bytes of one tensor's box in
// a channel tile.
#ifndef BARACUDA_CONV1D_STAGES
#define BARACUDA_CONV1D_STAGES 3
#endif
#ifndef BARACUDA_CONV1D_FORWARD_TILE_STEPS
#define BARACUDA_CONV1D_FORWARD_TILE_STEPS 4
#endif
#ifndef BARACUDA_CONV1D_BACKWARD_TILE_STEPS
#define BARACUDA_CONV1D_BACKWARD_TILE_STEPS 2
#endif
#ifndef BARACUDA_CONV1D_TILES_PER_BLOCK
#define BARACUDA_CONV1D_TILES_PER_BLOCK 8
#endif
#ifndef BARACUDA_CONV1D_BOX_BYTES
#define BARACUDA_CONV1D_BOX_BYTES 8192
#endif
// Bytes of channels per thread in a channel tile, per direction.
#ifndef BARACUDA_CONV1D_FORWARD_CHANNEL_BYTES
#define BARACUDA_CONV1D_FORWARD_CHANNEL_BYTES 4
#endif
#ifndef BARACUDA_CONV1D_BACKWARD_CHANNEL_BYTES
#define BARACUDA_CONV1D_BACKWARD_CHANNEL_BYTES 4
#endif
// The channel-tile backward's stages and the blocks per SM it is compiled
// for (which caps its registers): its per-step state is the largest, so it
// trades a stage for occupancy.
#ifndef BARACUDA_CONV1D_BACKWARD_CHANNEL_STAGES
#define BARACUDA_CONV1D_BACKWARD_CHANNEL_STAGES 2
#endif
#ifndef BARACUDA_CONV1D_BACKWARD_CHANNEL_BLOCKS
#define BARACUDA_CONV1D_BACKWARD_CHANNEL_BLOCKS 7
#endif

constexpr int kStages = BARACUDA_CONV1D_STAGES;
constexpr int kForwardTileSteps = BARACUDA_CONV1D_FORWARD_TILE_STEPS;
constexpr int kBackwardTileSteps = BARACUDA_CONV1D_BACKWARD_TILE_STEPS;
constexpr int kTilesPerBlock = BARACUDA_CONV1D_TILES_PER_BLOCK;

// Whole vectors that hold the W-1 timesteps beside a time tile.
template <class T, int W>
constexpr int kHaloVecs = (W - 1 + kTimeVec<T> - 1) / kTimeVec<T>;

// 16 bytes of x_pad at timesteps t .. t + 16/sizeof(T) - 1 of channel c, all
// before the row (t < 0): INITIAL_STATES or zeros. Also the channels c ..
// c + 16/sizeof(T) - 1 at one timestep t < 0, for channel tiles (along = 1).
template <class T, int W>
__device__ __forceinline__ void store_initial16(const Conv1dProblem &p, int64_t b, int64_t c, int64_t t, int along,
                                                uint4 *to) {
  T *elem = reinterpret_cast<T *>(to);
#pragma unroll
  for (int e = 0; e < kTimeVec<T>; ++e) {
    const int64_t te = along == 2 ? t + e : t, ce = along == 2 ? c : c + e;
    elem[e] = Accum<T>::store(te >= -(W - 1) ? x_pad<T, W>(p, b, ce, te) : Acc<T>(0));
  }
}

template <class T, int V>
__device__ __forceinline__ void unpack_raw(const uint4 &raw, Acc<T> *out) {
  Vec<T, V> v;
  memcpy(&v.raw, &raw, sizeof(v.raw));
  unpack<T, V>(v, out);
}

// step(r) for r in [0, count): unrolled when count is the whole Steps (the
// common case: a walk's window shifts become register renames, and no step
// waits on a bounds check, so the steps' loads overlap), else one by one.
template <int Steps, class Step>
__device__ __forceinline__ void run_steps(int count, Step &&step) {
  if (count == Steps) {
#pragma unroll
    for (int r = 0; r < Steps; ++r) step(r);
  } else {
    for (int r = 0; r < count; ++r) step(r);
  }
}

// ---- Time tiles ([B, C, L], stride 1 along L) ---------------------------------

// Time tiles of Steps vectors per thread. A block takes tiles first ..
// first + group - 1 of rows blockIdx.y, +gridDim.y, ...; a cursor walks them
// in that order (no division per tile).
template <int Steps>
struct TimeTiles {
  static constexpr int kVecs = kThreads * Steps;
  int64_t units;  // vectors per row
  int64_t first;
  int group;
  int64_t items;  // the block's tiles in all

  __device__ TimeTiles(const Conv1dProblem &p, int v) {
    units = p.length / v;
    const int64_t per_row = (units + kVecs - 1) / kVecs;
    first = static_cast<int64_t>(blockIdx.x) * kTilesPerBlock;
    group = static_cast<int>(per_row - first < kTilesPerBlock ? per_row - first : kTilesPerBlock);
    const int64_t rows = p.batch * p.channels;
    items = (rows - blockIdx.y + gridDim.y - 1) / gridDim.y * group;
  }
  struct Cursor {
    int64_t row, b, c;  // the tile's row (b, c)
    int64_t u0;         // its first vector
    int k, n;           // its place in the group, its vectors
    bool row_ends;      // the last of the block's tiles of this row
  };
  __device__ Cursor start(const Conv1dProblem &p) const {
    Cursor q;
    q.row = blockIdx.y;
    q.k = 0;
    split_row(q.row, p.channels, q.b, q.c);
    place(q);
    return q;
  }
  // To the next tile (past the last one the cursor holds garbage, never used).
  __device__ void advance(const Conv1dProblem &p, Cursor &q) const {
    if (++q.k == group) {
      q.k = 0;
      q.row += gridDim.y;
      split_row(q.row, p.channels, q.b, q.c);
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

// Issues vectors u_begin + j, j in [0, count), of a row into to[j]: vectors
// before the row take x_pad's initial values, vectors past it zeros.
template <class T, int W>
__device__ __forceinline__ void stage_row_vectors(const Conv1dProblem &p, const Conv1dView &view, int64_t b, int64_t c,
                                                  int64_t u_begin, int count, int64_t units, uint4 *to) {
  constexpr int V = kTimeVec<T>;
  const T *row = at<T>(view, b, c, 0);
  for (int j = threadIdx.x; j < count; j += kThreads) {
    const int64_t u = u_begin + j;
    if (u >= 0 && u < units) {
      async_copy16(&to[j], row + u * V);
    } else if (u < 0) {
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

template <class T, int W, bool Silu>
__global__ void __launch_bounds__(kThreads) forward_time_tiles_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>, Steps = kForwardTileSteps;
  using Tiles = TimeTiles<Steps>;
  __shared__ uint4 stage[kStages][H + Tiles::kVecs];  // [H + j]: vector j of the tile; [0, H): the vectors before
  const Tiles tiles(p, V);
  auto loading = tiles.start(p), using_ = loading;
  Taps<T, W> taps(p, using_.c);
  stream_stages<kStages>(
      tiles.items,
      [&](int64_t, int s) {
        stage_row_vectors<T, W>(p, p.x, loading.b, loading.c, loading.u0 - H, H + loading.n, tiles.units, stage[s]);
        tiles.advance(p, loading);
      },
      [&](int64_t i, int s) {
        T *yr = at<T>(p.y, using_.b, using_.c, using_.u0 * V);
        auto vector = [&](int j) {
          const TimeWindow<T, W> xw(stage[s], j);
          const A *win = xw.win();
          A out[V];
#pragma unroll
          for (int e = 0; e < V; ++e) {
            A z = taps.bias;
#pragma unroll
            for (int k = 0; k < W; ++k) z += taps.w[k] * win[e + k];
            out[e] = activate<T, Silu>(z);
          }
          store_run<T, V>(yr + j * V, out);
        };
        const int mine =
            using_.n > static_cast<int>(threadIdx.x) ? (using_.n - threadIdx.x + kThreads - 1) / kThreads : 0;
        run_steps<Steps>(mine, [&](int m) { vector(threadIdx.x + m * kThreads); });
        const bool next_row = using_.row_ends;
        tiles.advance(p, using_);
        if (next_row && i + 1 < tiles.items) taps = Taps<T, W>(p, using_.c);  // in flight over the barriers
      });
}

// g at each timestep of the tile and of the W-1 after it (from x before and
// after the tile and dy after it); then dx[t] = sum_k w[k] g[t + W-1-k], the
// g after a thread's vector read from the first W-1 g of the next vectors
// (gedge). Partial dw/db per row go to slot b * gridDim.x + blockIdx.x.
template <class T, int W, bool Silu>
__global__ void __launch_bounds__(kThreads) backward_time_tiles_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>, G = V < W - 1 ? V : W - 1, Steps = kBackwardTileSteps;
  using Tiles = TimeTiles<Steps>;
  __shared__ uint4 xstage[kStages][H + Tiles::kVecs + H];  // [H + j]: x vector j of the tile
  __shared__ uint4 dystage[kStages][Tiles::kVecs + H];     // [j]: dy vector j
  __shared__ A gedge[Tiles::kVecs + H][G];                 // the first G g of each vector
  const Tiles tiles(p, V);
  auto loading = tiles.start(p), using_ = loading;
  Taps<T, W> taps(p, using_.c);
  A parts[W + 1] = {};
  stream_stages<kStages>(
      tiles.items,
      [&](int64_t, int s) {
        const auto &q = loading;
        stage_row_vectors<T, W>(p, p.x, q.b, q.c, q.u0 - H, H + q.n + H, tiles.units, xstage[s]);
        stage_row_vectors<T, W>(p, p.dy, q.b, q.c, q.u0, q.n + H, tiles.units, dystage[s]);
        tiles.advance(p, loading);
      },
      [&](int64_t i, int s) {
        const auto &q = using_;
        A g[Steps][V];
#pragma unroll
        for (int m = 0; m <= Steps; ++m) {  // m == Steps: only vectors after the tile
          const int j = threadIdx.x + m * kThreads;
          if (j >= q.n + H) break;
          const TimeWindow<T, W> xw(xstage[s], j);
          const A *win = xw.win();
          A dy[V], gv[V];
          unpack_raw<T, V>(dystage[s][j], dy);
#pragma unroll
          for (int e = 0; e < V; ++e) gv[e] = upstream<T, W, Silu>(taps, win + e, dy[e]);
#pragma unroll
          for (int e = 0; e < G; ++e) gedge[j][e] = gv[e];
          if (m < Steps && j < q.n) {
#pragma unroll
            for (int e = 0; e < V; ++e) {
              g[m][e] = gv[e];
#pragma unroll
              for (int k = 0; k < W; ++k) parts[k] += gv[e] * win[e + k];
              parts[W] += gv[e];
            }
          }
        }
        __syncthreads();
        T *dxr = at<T>(p.dx, q.b, q.c, 0);
#pragma unroll
        for (int m = 0; m < Steps; ++m) {
          const int j = threadIdx.x + m * kThreads;
          if (j >= q.n) break;
          A gs[V + W - 1];  // g over the vector and the W-1 timesteps after it
#pragma unroll
          for (int e = 0; e < V; ++e) gs[e] = g[m][e];
#pragma unroll
          for (int a = 0; a < W - 1; ++a) gs[V + a] = gedge[j + 1 + a / V][a % V];
          A dx[V];
#pragma unroll
          for (int e = 0; e < V; ++e) {
            A sum = A(0);
#pragma unroll
            for (int k = 0; k < W; ++k) sum += taps.w[k] * gs[e + W - 1 - k];
            dx[e] = sum;
          }
          store_run<T, V>(dxr + (q.u0 + j) * V, dx);
        }
        const bool next_row = q.row_ends;
        if (next_row) {
          block_partials<A, W>(parts, partials, q.b * gridDim.x + blockIdx.x, p.channels, q.c);
#pragma unroll
          for (int k = 0; k <= W; ++k) parts[k] = A(0);
        }
        tiles.advance(p, using_);
        if (next_row && i + 1 < tiles.items) taps = Taps<T, W>(p, using_.c);
      });
}

// ---- Channel tiles (channels-last, stride 1 along C) -------------------------

// A block owns kThreads * Vc channels of (b, chunk) pairs blockIdx.y,
// +gridDim.y, ...; each pair's chunk of kChunk timesteps streams through the
// ring as boxes of Steps timesteps (items past the chunk's end are empty).
// Stage rows hold timesteps: row r of item i is timestep box_t0 - Before + r.
template <class T, int Vc, int Steps>
struct ChannelTiles {
  static constexpr int kRowBytes = kThreads * Vc * static_cast<int>(sizeof(T));
  static constexpr int kPieces = kRowBytes / 16;  // 16-byte copies per row
  static constexpr int kBoxes = kChunk / Steps;
  static_assert(kChunk % Steps == 0 && kRowBytes % 16 == 0 && kThreads % kPieces == 0,
                "boxes tile the chunk, rows split into whole copies, a thread copies one place of rows");
  int64_t c0, chunks, items;
  int live_pieces;  // copies of a row inside the channels
  __device__ ChannelTiles(const Conv1dProblem &p) {
    c0 = static_cast<int64_t>(blockIdx.x) * kThreads * Vc;
    chunks = (p.length + kChunk - 1) / kChunk;
    items = (p.batch * chunks - blockIdx.y + gridDim.y - 1) / gridDim.y * kBoxes;
    const int64_t live = (p.channels - c0) * static_cast<int64_t>(sizeof(T)) / 16;
    live_pieces = static_cast<int>(live < kPieces ? live : kPieces);
  }
  // The block's boxes in order: box k of the chunk [t0, t1) of pair (b, chunk).
  struct Box {
    int64_t pair, b, t0;
    int k;
    __device__ int64_t t1(const Conv1dProblem &p) const { return t0 + kChunk < p.length ? t0 + kChunk : p.length; }
    __device__ int64_t chunk() const { return t0 / kChunk; }
    __device__ int64_t box_t0() const { return t0 + int64_t{k} * Steps; }
    // Timesteps of the box inside the chunk (0: past the chunk's end).
    __device__ int steps(const Conv1dProblem &p) const {
      const int64_t left = t1(p) - box_t0();
      return static_cast<int>(left <= 0 ? 0 : left < Steps ? left : Steps);
    }
    __device__ bool first() const { return k == 0; }
    __device__ bool last(const Conv1dProblem &p) const {
      const int64_t left = t1(p) - box_t0();
      return left > 0 && left <= Steps;
    }
  };
  __device__ Box start(const Conv1dProblem &p) const {
    Box x;
    x.pair = blockIdx.y;
    x.k = 0;
    enter_pair(x);
    return x;
  }
  __device__ void advance(Box &x) const {
    if (++x.k == kBoxes) {
      x.k = 0;
      x.pair += gridDim.y;
      enter_pair(x);
    }
  }
  // Issues rows [r_begin, r_end) of a stage whose row r is timestep
  // t_of_row0 + r, for this block's channels; rows before the sequence take
  // x_pad's initial values, rows past it zeros. A thread always copies the
  // same place of a row, every kThreads / kPieces rows.
  template <int W>
  __device__ void stage_rows(const Conv1dProblem &p, const Conv1dView &view, int64_t b, int64_t t_of_row0, int r_begin,
                             int r_end, uint4 *to) const {
    constexpr int kRowsPerPass = kThreads / kPieces;
    const int piece = threadIdx.x % kPieces;
    if (piece >= live_pieces) return;
    const int64_t c = c0 + piece * (16 / static_cast<int>(sizeof(T)));
    int r = r_begin + static_cast<int>(threadIdx.x) / kPieces;
    uint4 *slot = to + r * kPieces + piece;
    if (t_of_row0 + r_begin >= 0 && t_of_row0 + r_end <= p.length) {  // all inside the sequence: no checks
      const int64_t step = kRowsPerPass * view.stride[2];
      for (const T *src = at<T>(view, b, c, t_of_row0 + r); r < r_end; r += kRowsPerPass, src += step) {
        async_copy16(slot, src);
        slot += kRowsPerPass * kPieces;
      }
      return;
    }
    for (; r < r_end; r += kRowsPerPass, slot += kRowsPerPass * kPieces) {
      const int64_t t = t_of_row0 + r;
      if (t >= p.length) {
        *slot = make_uint4(0, 0, 0, 0);
      } else if (t >= 0) {
        async_copy16(slot, at<T>(view, b, c, t));
      } else {
        store_initial16<T, W>(p, b, c, t, 1, slot);
      }
    }
  }
  // This thread's Vc channels at stage row r.
  __device__ static void read(const uint4 *stage, int r, Acc<T> *out) {
    Vec<T, Vc> v;
    using Raw = decltype(v.raw);
    v.raw = reinterpret_cast<const Raw *>(stage + r * kPieces)[threadIdx.x];
    unpack<T, Vc>(v, out);
  }

 private:
  __device__ void enter_pair(Box &x) const {
    int64_t chunk;
    split_row(x.pair, chunks, x.b, chunk);
    x.t0 = chunk * kChunk;
  }
};

template <class T>
constexpr int kForwardChannelVec = BARACUDA_CONV1D_FORWARD_CHANNEL_BYTES / sizeof(T);
template <class T>
constexpr int kBackwardChannelVec = BARACUDA_CONV1D_BACKWARD_CHANNEL_BYTES / sizeof(T);
template <class T, int Vc>
constexpr int kBoxSteps = BARACUDA_CONV1D_BOX_BYTES / (kThreads * Vc * static_cast<int>(sizeof(T)));

template <class T, int W, bool Silu>
__global__ void __launch_bounds__(kThreads) forward_channel_tiles_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  constexpr int Vc = kForwardChannelVec<T>, Steps = kBoxSteps<T, Vc>;
  using Tiles = ChannelTiles<T, Vc, Steps>;
  __shared__ uint4 stage[kStages][(W - 1 + Steps) * Tiles::kPieces];  // row r: timestep box_t0 - (W-1) + r
  const Tiles tiles(p);
  const int64_t c = tiles.c0 + threadIdx.x * Vc;
  const bool live = c < p.channels;
  const ChannelTaps<T, W, Vc> taps(p, c);
  A hist[W][Vc];  // hist[j] = x_pad[t - (W-1) + j]; hist[W-1] is the current step
  auto loading = tiles.start(p), using_ = loading;
  stream_stages<kStages>(
      tiles.items,
      [&](int64_t, int s) {
        const auto x = loading;
        tiles.advance(loading);
        const int steps = x.steps(p);
        if (steps == 0) return;
        tiles.template stage_rows<W>(p, p.x, x.b, x.box_t0() - (W - 1), x.first() ? 0 : W - 1, W - 1 + steps, stage[s]);
      },
      [&](int64_t, int s) {
        const auto x = using_;
        tiles.advance(using_);
        const int steps = x.steps(p);
        if (steps == 0 || !live) return;
        if (x.first())
#pragma unroll
          for (int j = 0; j < W - 1; ++j) Tiles::read(stage[s], j, hist[j]);
        T *yb = at<T>(p.y, x.b, c, x.box_t0());
        const int64_t sy = p.y.stride[2];
        run_steps<Steps>(steps, [&](int r) {
          Tiles::read(stage[s], W - 1 + r, hist[W - 1]);
          A out[Vc];
#pragma unroll
          for (int v = 0; v < Vc; ++v) out[v] = activate<T, Silu>(taps.pre_activation(v, hist));
          store_run<T, Vc>(yb + r * sy, out);
#pragma unroll
          for (int j = 0; j + 1 < W; ++j)
#pragma unroll
            for (int v = 0; v < Vc; ++v) hist[j][v] = hist[j + 1][v];
        });
      });
}

// Step s computes g[s] from x_pad[s - (W-1) .. s] and, W-1 steps behind,
// dx[s - (W-1)]; the chunk's last box runs W-1 steps past the chunk for the
// g that its last dx need. Partial dw/db per (b, chunk) slot.
template <class T, int W, bool Silu>
__global__ void __launch_bounds__(kThreads, BARACUDA_CONV1D_BACKWARD_CHANNEL_BLOCKS)
    backward_channel_tiles_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int Vc = kBackwardChannelVec<T>, Steps = kBoxSteps<T, Vc> / 2;  // two tensors staged
  using Tiles = ChannelTiles<T, Vc, Steps>;
  constexpr int kRows = W - 1 + Steps + W - 1, kChannelStages = BARACUDA_CONV1D_BACKWARD_CHANNEL_STAGES;
  __shared__ uint4 xstage[kChannelStages][kRows * Tiles::kPieces];               // row r: timestep box_t0 - (W-1) + r
  __shared__ uint4 dystage[kChannelStages][(kRows - (W - 1)) * Tiles::kPieces];  // row r: timestep box_t0 + r
  const Tiles tiles(p);
  const int64_t c = tiles.c0 + threadIdx.x * Vc;
  const bool live = c < p.channels;
  constexpr bool kHalved = kHalvedSilu<T, Silu>;  // taps halved, gw and parts hold 2g
  const ChannelTaps<T, W, Vc> taps(p, c, kHalved ? A(0.5) : A(1));
  A xw[W][Vc], gw[W][Vc], parts[W + 1][Vc];
  auto loading = tiles.start(p), using_ = loading;
  stream_stages<kChannelStages>(
      tiles.items,
      [&](int64_t, int s) {
        const auto x = loading;
        tiles.advance(loading);
        const int steps = x.steps(p);
        if (steps == 0) return;
        const int end = W - 1 + steps + (x.last(p) ? W - 1 : 0);
        tiles.template stage_rows<W>(p, p.x, x.b, x.box_t0() - (W - 1), x.first() ? 0 : W - 1, end, xstage[s]);
        tiles.template stage_rows<W>(p, p.dy, x.b, x.box_t0(), 0, end - (W - 1), dystage[s]);
      },
      [&](int64_t, int s) {
        const auto x = using_;
        tiles.advance(using_);
        const int counted_steps = x.steps(p);
        if (counted_steps == 0 || !live) return;
        const bool first = x.first(), last = x.last(p);
        if (first) {
#pragma unroll
          for (int v = 0; v < Vc; ++v) {
#pragma unroll
            for (int j = 0; j < W; ++j) gw[j][v] = A(0);
#pragma unroll
            for (int k = 0; k <= W; ++k) parts[k][v] = A(0);
          }
#pragma unroll
          for (int j = 0; j < W - 1; ++j) Tiles::read(xstage[s], j, xw[j + 1]);
        }
        const int64_t sdx = p.dx.stride[2];
        T *dxr = at<T>(p.dx, x.b, c, x.box_t0() - (W - 1));  // dx of step r, W-1 behind
        // counted: a step of the chunk (the W-1 past it only give g to its last dx)
        auto step = [&](int r, auto counted) {
          A xs[Vc], dys[Vc];
          Tiles::read(xstage[s], W - 1 + r, xs);  // zeros past the sequence: g is 0 there
          Tiles::read(dystage[s], r, dys);
          A dx[Vc];
#pragma unroll
          for (int v = 0; v < Vc; ++v) {
#pragma unroll
            for (int j = 0; j + 1 < W; ++j) {
              xw[j][v] = xw[j + 1][v];
              gw[j][v] = gw[j + 1][v];
            }
            xw[W - 1][v] = xs[v];
            A g = dys[v];
            if constexpr (Silu) {
              const A z = taps.pre_activation(v, xw);  // z/2 when halved
              if constexpr (kHalved) {
                g = doubled_upstream_at_half(z, g);
              } else {
                g *= activation_slope<T, true>(z);
              }
            }
            gw[W - 1][v] = g;
            if constexpr (decltype(counted)::value) add_partials<T, W, Vc>(parts, v, g, xw);
            dx[v] = taps.transposed(v, gw);
          }
          if (r >= W - 1 || !first) store_run<T, Vc>(dxr + r * sdx, dx);
        };
        run_steps<Steps>(counted_steps, [&](int r) { step(r, std::true_type{}); });
        if (last)
          for (int r = counted_steps; r < counted_steps + W - 1; ++r) step(r, std::false_type{});
        if (last) {
          A *slot = partials + ((x.b * tiles.chunks + x.chunk()) * p.channels + c) * (W + 1);
#pragma unroll
          for (int v = 0; v < Vc; ++v)
#pragma unroll
            for (int k = 0; k <= W; ++k) slot[v * (W + 1) + k] = kHalved ? A(0.5) * parts[k][v] : parts[k][v];
        }
      });
}

}  // namespace baracuda::kernels::conv1d
