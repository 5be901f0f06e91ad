// The staged time tiles of causal conv1d ([B, C, L], stride 1 along L): a
// tile is a run of one row's timesteps; a thread takes 16-byte vectors of it
// and reads the W-1 inputs before a vector from the stage. Forward and backward.
#pragma once

#include "causal_conv1d/conv1d_staged.cuh"

namespace baracuda::kernels::conv1d {

constexpr int kForwardTileSteps = Conv1dTraits::kForwardTileSteps;
constexpr int kBackwardTileSteps = Conv1dTraits::kBackwardTileSteps;
constexpr int kTilesPerBlock = Conv1dTraits::kTilesPerBlock;

// Whole vectors that hold the W-1 timesteps beside a time tile.
template <class T, int W>
constexpr int kHaloVecs = (W - 1 + kTimeVec<T> - 1) / kTimeVec<T>;

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
  if (u_begin >= 0 && u_begin + count <= units) {  // all inside the row (most tiles): no checks per copy
    const T *src = row + (u_begin + threadIdx.x) * V;
    for (int j = threadIdx.x; j < count; j += kThreads, src += kThreads * V) async_copy16(&to[j], src);
    return;
  }
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

// y of a vector: out[e] = act(bias + sum_k w[k] win[e + k]).
template <class T, int W, bool Silu, class Wt>
__device__ __forceinline__ void forward_vector(const Taps<T, W, Wt> &taps, const Acc<T> *win,
                                               Acc<T> (&out)[kTimeVec<T>]) {
#pragma unroll
  for (int e = 0; e < kTimeVec<T>; ++e) {
    Acc<T> z = taps.bias;
#pragma unroll
    for (int k = 0; k < W; ++k) z += taps.w[k] * win[e + k];
    out[e] = activate<T, Silu>(z);
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

template <class T, int W, bool Silu, class Wt = T>
__global__ void __launch_bounds__(kThreads) forward_time_tiles_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>, Steps = kForwardTileSteps;
  using Tiles = TimeTiles<Steps>;
  __shared__ uint4 stage[kStages][H + Tiles::kVecs];  // [H + j]: vector j of the tile; [0, H): the vectors before
  const Tiles tiles(p, V);
  auto loading = tiles.start(p), using_ = loading;
  Taps<T, W, Wt> taps(p, using_.c);
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
          A out[V];
          forward_vector<T, W, Silu>(taps, xw.win(), out);
          store_run<T, V>(yr + j * V, out);
        };
        const int mine =
            using_.n > static_cast<int>(threadIdx.x) ? (using_.n - threadIdx.x + kThreads - 1) / kThreads : 0;
        run_steps<Steps>(mine, [&](int m) { vector(threadIdx.x + m * kThreads); });
        const bool next_row = using_.row_ends;
        tiles.advance(p, using_);
        if (next_row && i + 1 < tiles.items) taps = Taps<T, W, Wt>(p, using_.c);  // in flight over the barriers
      });
}

// g at each timestep of the tile and of the W-1 after it (from x before and
// after the tile and dy after it); then dx[t] = sum_k w[k] g[t + W-1-k], the
// g after a thread's vector read from the first W-1 g of the next vectors
// (gedge). Partial dw/db per row go to slot b * gridDim.x + blockIdx.x.
template <class T, int W, bool Silu, class Wt = T>
__global__ void __launch_bounds__(kThreads) backward_time_tiles_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>, G = V < W - 1 ? V : W - 1, Steps = kBackwardTileSteps;
  using Tiles = TimeTiles<Steps>;
  __shared__ uint4 xstage[kStages][H + Tiles::kVecs + H];  // [H + j]: x vector j of the tile
  __shared__ uint4 dystage[kStages][Tiles::kVecs + H];     // [j]: dy vector j
  __shared__ A gedge[Tiles::kVecs + H][G];                 // the first G g of each vector
  const Tiles tiles(p, V);
  auto loading = tiles.start(p), using_ = loading;
  Taps<T, W, Wt> taps(p, using_.c);
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
          transposed_vector<T, W>(taps, gs, dx);
          store_run<T, V>(dxr + (q.u0 + j) * V, dx);
        }
        const bool next_row = q.row_ends;
        if (next_row) {
          block_partials<A, W>(parts, partials, q.b * gridDim.x + blockIdx.x, p.channels, q.c);
#pragma unroll
          for (int k = 0; k <= W; ++k) parts[k] = A(0);
        }
        tiles.advance(p, using_);
        if (next_row && i + 1 < tiles.items) taps = Taps<T, W, Wt>(p, using_.c);
      });
}
}  // namespace baracuda::kernels::conv1d
