// The staged row groups of causal conv1d ([B, C, L], stride 1 along L, rows
// of at most half a time tile): a tile is several whole consecutive rows of
// B*C, each staged behind its W-1 initial inputs, so that every thread has
// vectors and a block a full tile's bytes in flight however short the rows.
// The backward's (the forward's short rows take the register-fed rows,
// conv1d_direct.cuh).
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
  // Every operand of the pass holds the B*C rows back to back (dense [B, C,
  // L]): a tile of rows is one span of memory, copied as a time tile is,
  // without a row's (b, c) and address a vector (which had made the staging
  // ~55 instructions a 16-byte copy, the forward's tile ~2x a time tile's).
  bool flat;

  // Rows of `view` back to back: row b * C + c at (b * C + c) * L.
  __device__ static bool flat_rows(const Conv1dProblem &p, const Conv1dView &view) {
    return view.stride[1] == p.length && view.stride[0] == p.channels * p.length;
  }

  __device__ RowGroups(const Conv1dProblem &p, int v, bool flat_operands) : flat(flat_operands) {
    units = static_cast<int>(p.length / v);
    shift = __ffs(units) - 1;
    per_tile = kVecs >> shift;
    rows = p.batch * p.channels;
    const int64_t tiles = (rows + per_tile - 1) / per_tile;
    items = (tiles - blockIdx.y + gridDim.y - 1) / gridDim.y;
  }
  __device__ int64_t first_row(int64_t i) const { return (blockIdx.y + i * gridDim.y) * per_tile; }
  // The tile of rows from `first`: that row's (b, c), divided once a tile.
  struct Start {
    int64_t first, b, c;
  };
  __device__ Start start(const Conv1dProblem &p, int64_t first) const {
    Start t{first};
    split_row(first, p.channels, t.b, t.c);
    return t;
  }
  // Vector j of a tile: its row r of the tile, its vector u of the row, the
  // row's (b, c), stepped from the tile's first (a division a vector had
  // been most of the staging's instructions; C under per_tile steps more).
  struct Place {
    int r, u;
    int64_t b, c;
  };
  __device__ Place place(const Conv1dProblem &p, const Start &t, int j) const {
    Place q;
    q.r = j >> shift;
    q.u = j - (q.r << shift);
    q.b = t.b;
    q.c = t.c + q.r;
    while (q.c >= p.channels) q.c -= p.channels, ++q.b;
    return q;
  }
  // The tile's vectors: whole rows, fewer in the last tile.
  __device__ int vectors(int64_t first) const {
    return static_cast<int>(rows - first < per_tile ? rows - first : per_tile) << shift;
  }
  // Issues the tile of rows from `first`: x's vectors into xs, each row's H
  // vectors before it (x_pad's initial values) first; with dys, dy's vectors
  // into dys (no halos) at the same places. Returns the tile's start.
  // Vector j of the tile of rows from `first` in a flat view.
  template <class T>
  __device__ T *flat_at(const Conv1dView &view, int64_t first, int j) const {
    return static_cast<T *>(view.data) + (first * units + j) * kTimeVec<T>;
  }
  template <class T, int W, int H>
  __device__ Start stage(const Conv1dProblem &p, int64_t first, uint4 *xs, uint4 *dys = nullptr) const {
    constexpr int V = kTimeVec<T>;
    const int n = vectors(first);
    const Start t = start(p, first);
    if (flat) {
#pragma unroll
      for (int k = 0; k < Steps; ++k) {
        const int j = threadIdx.x + k * kThreads;
        if (j < n) {
          async_copy16(&xs[j + ((j >> shift) + 1) * H], flat_at<T>(p.x, first, j));
          if (dys) async_copy16(&dys[j], flat_at<T>(p.dy, first, j));
        }
      }
    } else {
      for (int j = threadIdx.x; j < n; j += kThreads) {
        const Place q = place(p, t, j);
        async_copy16(&xs[j + (q.r + 1) * H], at<T>(p.x, q.b, q.c, int64_t{q.u} * V));
        if (dys) async_copy16(&dys[j], at<T>(p.dy, q.b, q.c, int64_t{q.u} * V));
      }
    }
    if constexpr (H > 0)
      for (int h = threadIdx.x; h < (n >> shift) * H; h += kThreads) {
        const int r = h / H, k = h - r * H;
        const Place q = place(p, t, r << shift);
        store_initial16<T, W>(p, q.b, q.c, int64_t{k - H} * V, 2, &xs[r * (H + units) + k]);
      }
    return t;
  }
};

// g of each vector from x (with the row's halo) and dy; dx[t] = sum_k w[k]
// g[t + W-1-k]. As in the time tiles' backward, a warp takes a run of 32 *
// Steps vectors of the tile, a lane every 32nd, from the last to the first:
// the W-1 g after a lane's vector come from the next lanes by shuffles (lane
// 31's from the step after, `later`; zeros past the row's end), and where a
// row goes on past the run, lanes < W-1 first compute the W-1 g after it.
// No g crosses a barrier (through shared memory, with the taps loaded once
// for g and again for dx, the kernel took 70 registers and 7 blocks an SM).
// A row's dw/db partial sums: where rows are at least a run long, each
// lane's over its vectors, summed over the warp's run by xor shuffles once a
// tile (one tree a step had been ~50 instructions of ~500: session 17, H200,
// [64,2048,1024] 0.335 -> 0.300 ms, f32 [64,2048,512] 0.269 -> 0.237; dw and db
// change bits, not errors); else each vector's, summed over segments of
// min(units, 32) lanes (segments never straddle rows). Then the row's
// segments in order (bit-stable), in the next tile's use (so no
// second barrier: the segments alternate between two buffers by tile). They
// go to slot b (the grid has one block column); with partials null (a batch
// of one: Conv1dLaunch::sums_direct), to DW and DB, as the reduction of one
// slot would write them.
template <class T, int W, class Wt, class SiluFlag>
__global__ void __launch_bounds__(kThreads, Conv1dTraits::backward_group_blocks(W, sizeof(T)))
    backward_row_groups_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  using Grad = GradTaps<T, W, Wt, false, SiluFlag>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>, Steps = kBackwardTileSteps, kRun = 32 * Steps;
  using Groups = RowGroups<Steps>;
  constexpr int kSegments = Groups::kVecs / Conv1dTraits::kGroupMinVecs;
  constexpr int kMinSegmentShift = 3;  // segments of at least kGroupMinVecs lanes
  static_assert(Conv1dTraits::kGroupMinVecs >= 1 << kMinSegmentShift, "a row is at least 8 vectors");
  __shared__ uint4 xstage[kStages][Groups::template kSlots<H>];
  __shared__ uint4 dystage[kStages][Groups::kVecs];
  __shared__ A segment_sums[2][kSegments][W + 1];  // [tile % 2][j / segment]: the sums of a segment's vectors
  __shared__ typename Groups::Start tile_start[kStages];  // each stage's tile (divided once, by the loading thread 0)
  let_next_pass_start();  // the reduction of the partial sums waits for this pass's end
  const Groups groups(p, V, Groups::flat_rows(p, p.x) && Groups::flat_rows(p, p.dy));
  // A lane's vectors are of one row where rows are at least a run long: its
  // vectors' sums add up in registers, and a warp's run is one segment.
  const bool one_row = groups.units >= kRun;
  static_assert(Steps == 1 || Steps == 2 || Steps == 4, "runs of 32, 64 or 128 vectors");
  constexpr int kRunShift = Steps == 1 ? 5 : Steps == 2 ? 6 : 7;
  const int segment_shift = groups.shift < 5 ? groups.shift : one_row ? kRunShift : 5;
  const int lane = threadIdx.x % 32, run = threadIdx.x / 32 * kRun;
  // Tile i's rows: their segments' sums, in order, to slot b (b * C + c = the row).
  auto sum_rows = [&](int64_t i) {
    const int64_t first = groups.first_row(i);
    const int per_row = 1 << (groups.shift - segment_shift);
    for (int q = threadIdx.x; q < (groups.vectors(first) >> groups.shift) * (W + 1); q += kThreads) {
      const int r = q / (W + 1), k = q - r * (W + 1);
      A sum = A(0);
      for (int t = 0; t < per_row; ++t) sum += segment_sums[i % 2][r * per_row + t][k];
      // (GradTaps' plain form: sums of g itself, no scale)
      if (partials) {
        partials[(first + r) * (W + 1) + k] = sum;
      } else {  // row first + r is channel first + r
        store_channel_sum<Wt, W>(p, first + r, k, A(0) + sum);
      }
    }
  };
  stream_stages<kStages>(
      groups.items,
      [&](int64_t i, int s) {
        const auto t = groups.template stage<T, W, H>(p, groups.first_row(i), xstage[s], dystage[s]);
        if (threadIdx.x == 0) tile_start[s] = t;
      },
      [&](int64_t i, int s) {
        if (i > 0) sum_rows(i - 1);  // written before the ring's last barrier
        const auto t = tile_start[s];
        const int n = groups.vectors(t.first);
        if (run >= n) return;
        // Compiled for each case (a runtime one cost registers: spills at 64):
        // where a lane's vectors share a row, no place or taps a step and one
        // tree a tile.
        auto use_tile = [&](auto one_row_case) {
          constexpr bool kOneRow = decltype(one_row_case)::value;
          typename Groups::Place q = groups.place(p, t, min(run + (Steps - 1) * 32 + lane, n - 1));
          Grad taps(p, q.c);
          T *dxr = at<T>(p.dx, q.b, q.c, 0);  // the row's dx
          A later[W - 1] = {};  // the step after's shifted g: the W-1 after the vectors whose next lanes wrap
          A parts[W + 1] = {};  // kOneRow: the lane's vectors' sums; else the step's vector's
          if ((run + kRun) & (groups.units - 1))  // the row goes on past the run (its stage slots from row q.r's)
            upstream_after_run<T, W>(taps, xstage[s] + q.r * H, dystage[s], (run + kRun) * V, lane, later);
#pragma unroll
          for (int m = Steps - 1; m >= 0; --m) {
            if (run + m * 32 >= n) continue;
            const int j = run + m * 32 + lane;
            // Lanes past the tile's last row take its last vector, for the shuffles alone.
            const int jn = j < n ? j : n - 1;
            if (m < Steps - 1) {
              if constexpr (kOneRow) {
                q.u = jn & (groups.units - 1);
              } else {
                q = groups.place(p, t, jn);
                taps = Grad(p, q.c);
                dxr = at<T>(p.dx, q.b, q.c, 0);
              }
            }
            const TimeWindow<T, W> xw(xstage[s], jn + q.r * H);
            A g[V], shifted[W - 1];  // shifted[a]: g at vector j + 1 + a / V, element a % V
            lane_upstream<T, W>(taps, xw.win(), dystage[s][jn], lane, g, shifted);
            if constexpr (!kOneRow)
#pragma unroll
              for (int k = 0; k <= W; ++k) parts[k] = A(0);
            if (j < n) {
              A next[W - 1];  // zeros past the row's end
              const int after_in_row = groups.units - 1 - q.u;  // vectors after this one in its row
#pragma unroll
              for (int a = 0; a < W - 1; ++a) {  // (as one nested select: a branch each, 24 more a tile)
                const A v = lane + 1 + a / V >= 32 ? later[a] : shifted[a];
                next[a] = a / V < after_in_row ? v : A(0);
              }
              vector_gradients<T, W>(taps.taps, xw.win(), g, next, parts, dxr + q.u * V);
            }
            if constexpr (!kOneRow) {
#pragma unroll
              for (int level = 0; level < 5; ++level)  // (a loop of segment_shift levels a sum took 7 instructions a level)
                if (level < kMinSegmentShift || level < segment_shift)
#pragma unroll
                  for (int k = 0; k <= W; ++k) parts[k] += __shfl_xor_sync(0xffffffffu, parts[k], 1 << level);
              if (j < n && (j & ((1 << segment_shift) - 1)) == 0)
#pragma unroll
                for (int k = 0; k <= W; ++k) segment_sums[i % 2][j >> segment_shift][k] = parts[k];
            }
#pragma unroll
            for (int a = 0; a < W - 1; ++a) later[a] = shifted[a];
          }
          if constexpr (kOneRow) {  // the run's sums: one tree a tile, not one a step
#pragma unroll
            for (int level = 0; level < 5; ++level)
#pragma unroll
              for (int k = 0; k <= W; ++k) parts[k] += __shfl_xor_sync(0xffffffffu, parts[k], 1 << level);
            if (lane == 0)
#pragma unroll
              for (int k = 0; k <= W; ++k) segment_sums[i % 2][run >> kRunShift][k] = parts[k];
          }
        };
        if (one_row) {
          use_tile(std::true_type{});
        } else {
          use_tile(std::false_type{});
        }
      });
  if (groups.items > 0) sum_rows(groups.items - 1);
}

}  // namespace baracuda::kernels::conv1d
