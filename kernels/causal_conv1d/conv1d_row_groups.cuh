// The staged row groups of causal conv1d ([B, C, L], stride 1 along L, rows
// of at most half a time tile): a tile is several whole consecutive rows of
// B*C, each staged behind its W-1 initial inputs, so that every thread has
// vectors and a block a full tile's bytes in flight however short the rows.
// Forward and backward.
#pragma once

#include "causal_conv1d/conv1d_time_tiles.cuh"

namespace baracuda::kernels::conv1d {

// Tiles of Steps vectors per thread holding `per_tile` rows of `units`
// vectors (a power of two, conv1d_heuristics.h): block row y takes tiles y,
// y + gridDim.y, ... Stage layout: row r of a tile at slots r * (H + units),
// its H halo vectors first, so that the tile's flat vector j (row j / units)
// is slot j + (r + 1) * H and its window starts at slot j + r * H.
template <int Steps>
struct RowGroups {
  static constexpr int kVecs = kThreads * Steps;
  // Slots of a stage with H halo vectors a row.
  template <int H>
  static constexpr int kSlots = kVecs + kVecs / Conv1dTraits::kGroupMinVecs * H;
  int64_t rows, items;
  int units, shift, per_tile;  // units = 1 << shift

  __device__ RowGroups(const Conv1dProblem &p, int v) {
    units = static_cast<int>(p.length / v);
    shift = __ffs(units) - 1;
    per_tile = kVecs >> shift;
    rows = p.batch * p.channels;
    const int64_t tiles = (rows + per_tile - 1) / per_tile;
    items = (tiles - blockIdx.y + gridDim.y - 1) / gridDim.y;
  }
  __device__ int64_t first_row(int64_t i) const { return (blockIdx.y + i * gridDim.y) * per_tile; }
  // Vector j of the tile of rows from `first`: its row r of the tile, its
  // vector u of the row, the row's (b, c).
  struct Place {
    int r, u;
    int64_t b, c;
  };
  __device__ Place place(const Conv1dProblem &p, int64_t first, int j) const {
    Place q;
    q.r = j >> shift;
    q.u = j - (q.r << shift);
    split_row(first + q.r, p.channels, q.b, q.c);
    return q;
  }
  // The tile's vectors: whole rows, fewer in the last tile.
  __device__ int vectors(int64_t first) const {
    return static_cast<int>(rows - first < per_tile ? rows - first : per_tile) << shift;
  }
  // Issues the tile of rows from `first` into `to`: each row's vectors and, with
  // halo, its H vectors before (x_pad's initial values).
  template <class T, int W, int H>
  __device__ void stage(const Conv1dProblem &p, const Conv1dView &view, int64_t first, uint4 *to) const {
    constexpr int V = kTimeVec<T>;
    const int n = vectors(first);
    for (int j = threadIdx.x; j < n; j += kThreads) {
      const Place q = place(p, first, j);
      async_copy16(&to[j + (q.r + 1) * H], at<T>(view, q.b, q.c, int64_t{q.u} * V));
    }
    if constexpr (H > 0)
      for (int h = threadIdx.x; h < (n >> shift) * H; h += kThreads) {
        const int r = h / H, k = h - r * H;
        int64_t b, c;
        split_row(first + r, p.channels, b, c);
        store_initial16<T, W>(p, b, c, int64_t{k - H} * V, 2, &to[r * (H + units) + k]);
      }
  }
};

template <class T, int W, bool Silu, class Wt = T>
__global__ void __launch_bounds__(kThreads) forward_row_groups_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>, Steps = kForwardTileSteps;
  using Groups = RowGroups<Steps>;
  __shared__ uint4 stage[kStages][Groups::template kSlots<H>];
  const Groups groups(p, V);
  stream_stages<kStages>(
      groups.items,
      [&](int64_t i, int s) { groups.template stage<T, W, H>(p, p.x, groups.first_row(i), stage[s]); },
      [&](int64_t i, int s) {
        const int64_t first = groups.first_row(i);
        const int n = groups.vectors(first);
#pragma unroll
        for (int m = 0; m < Steps; ++m) {
          const int j = threadIdx.x + m * kThreads;
          if (j >= n) break;
          const auto q = groups.place(p, first, j);
          const TimeWindow<T, W> xw(stage[s], j + q.r * H);
          A out[V];
          forward_vector<T, W, Silu>(Taps<T, W, Wt>(p, q.c), xw.win(), out);
          store_run<T, V>(at<T>(p.y, q.b, q.c, int64_t{q.u} * V), out);
        }
      });
}

// g of each vector from x (with the row's halo) and dy; dx[t] = sum_k w[k]
// g[t + W-1-k], the g after a vector from the next vectors' first g in
// shared memory (zeros past the row's end). A row's dw/db partial sums: each
// vector's, summed over segments of min(units, 32) lanes by xor shuffles
// (segments never straddle rows), then the row's segments in order: bit-stable.
// They go to slot b (the grid has one block column).
template <class T, int W, bool Silu, class Wt = T>
__global__ void __launch_bounds__(kThreads) backward_row_groups_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>, G = V < W - 1 ? V : W - 1, Steps = kBackwardTileSteps;
  using Groups = RowGroups<Steps>;
  constexpr int kSegments = Groups::kVecs / Conv1dTraits::kGroupMinVecs;
  __shared__ uint4 xstage[kStages][Groups::template kSlots<H>];
  __shared__ uint4 dystage[kStages][Groups::kVecs];
  __shared__ A gedge[Groups::kVecs][G];       // the first G g of each vector
  __shared__ A segment_sums[kSegments][W + 1];  // [j / segment]: the partial sums of a segment's vectors
  const Groups groups(p, V);
  const int segment_shift = groups.shift < 5 ? groups.shift : 5;
  stream_stages<kStages>(
      groups.items,
      [&](int64_t i, int s) {
        const int64_t first = groups.first_row(i);
        groups.template stage<T, W, H>(p, p.x, first, xstage[s]);
        groups.template stage<T, W, 0>(p, p.dy, first, dystage[s]);
      },
      [&](int64_t i, int s) {
        const int64_t first = groups.first_row(i);
        const int n = groups.vectors(first);
        A g[Steps][V];
#pragma unroll
        for (int m = 0; m < Steps; ++m) {  // every lane to the shuffles, lanes past the tile with zeros
          const int j = threadIdx.x + m * kThreads;
          A parts[W + 1] = {};
          if (j < n) {
            const auto q = groups.place(p, first, j);
            const Taps<T, W, Wt> taps(p, q.c);
            const TimeWindow<T, W> xw(xstage[s], j + q.r * H);
            const A *win = xw.win();
            A dy[V];
            unpack_raw<T, V>(dystage[s][j], dy);
#pragma unroll
            for (int e = 0; e < V; ++e) {
              g[m][e] = upstream<T, W, Silu>(taps, win + e, dy[e]);
#pragma unroll
              for (int k = 0; k < W; ++k) parts[k] += g[m][e] * win[e + k];
              parts[W] += g[m][e];
            }
#pragma unroll
            for (int e = 0; e < G; ++e) gedge[j][e] = g[m][e];
          }
#pragma unroll
          for (int k = 0; k <= W; ++k) {
            for (int off = 1; off < (1 << segment_shift); off *= 2)
              parts[k] += __shfl_xor_sync(0xffffffffu, parts[k], off);
          }
          if (j < n && (j & ((1 << segment_shift) - 1)) == 0)
#pragma unroll
            for (int k = 0; k <= W; ++k) segment_sums[j >> segment_shift][k] = parts[k];
        }
        __syncthreads();
#pragma unroll
        for (int m = 0; m < Steps; ++m) {
          const int j = threadIdx.x + m * kThreads;
          if (j >= n) break;
          const auto q = groups.place(p, first, j);
          A gs[V + W - 1];  // g over the vector and the W-1 timesteps after it
#pragma unroll
          for (int e = 0; e < V; ++e) gs[e] = g[m][e];
#pragma unroll
          for (int a = 0; a < W - 1; ++a)
            gs[V + a] = q.u + 1 + a / V < groups.units ? gedge[j + 1 + a / V][a % V] : A(0);
          A dx[V];
          transposed_vector<T, W>(Taps<T, W, Wt>(p, q.c), gs, dx);
          store_run<T, V>(at<T>(p.dx, q.b, q.c, int64_t{q.u} * V), dx);
        }
        const int per_row = 1 << (groups.shift - segment_shift);
        for (int q = threadIdx.x; q < (n >> groups.shift) * (W + 1); q += kThreads) {
          const int r = q / (W + 1), k = q - r * (W + 1);
          A sum = A(0);
          for (int t = 0; t < per_row; ++t) sum += segment_sums[r * per_row + t][k];
          partials[(first + r) * (W + 1) + k] = sum;  // slot b, channel c: (b * C + c) = the row
        }
      });
}

}  // namespace baracuda::kernels::conv1d
