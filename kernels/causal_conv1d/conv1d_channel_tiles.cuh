// The staged channel tiles of causal conv1d (channels-last, stride 1 along
// C): a tile is a box of timesteps by the block's channels; a thread owns a
// few channels and walks the chunk's timesteps box by box, keeping the window
// in registers. Forward and backward.
#pragma once

#include "causal_conv1d/conv1d_partials.cuh"
#include "causal_conv1d/conv1d_staged.cuh"

namespace baracuda::kernels::conv1d {

// ---- Channel tiles (channels-last, stride 1 along C) -------------------------

// A block owns kThreads * Vc channels of (b, chunk) pairs blockIdx.y,
// +gridDim.y, ...; each pair's chunk of `chunk` timesteps (the launch's, a
// multiple of Steps) streams through the ring as boxes of Steps timesteps
// (items past the chunk's end are empty). Stage rows hold timesteps: row r of
// item i is timestep box_t0 - Before + r.
template <class T, int Vc, int Steps>
struct ChannelTiles {
  static constexpr int kRowBytes = kThreads * Vc * static_cast<int>(sizeof(T));
  static constexpr int kPieces = kRowBytes / 16;  // 16-byte copies per row
  static_assert(kRowBytes % 16 == 0 && kThreads % kPieces == 0,
                "rows split into whole copies, a thread copies one place of rows");
  int64_t c0, chunks, items;
  int chunk, boxes;
  int live_pieces;  // copies of a row inside the channels
  __device__ ChannelTiles(const Conv1dProblem &p, int chunk_steps) : chunk(chunk_steps), boxes(chunk_steps / Steps) {
    c0 = static_cast<int64_t>(blockIdx.x) * kThreads * Vc;
    chunks = (p.length + chunk - 1) / chunk;
    items = (p.batch * chunks - blockIdx.y + gridDim.y - 1) / gridDim.y * boxes;
    const int64_t live = (p.channels - c0) * static_cast<int64_t>(sizeof(T)) / 16;
    live_pieces = static_cast<int>(live < kPieces ? live : kPieces);
  }
  // The block's boxes in order: box k of the chunk from t0 of pair (b, chunk)
  // (as few registers as before the chunk was a run-time value: the
  // backward's are tight).
  struct Box {
    int64_t pair, b, t0;
    int k;
    __device__ int64_t box_t0() const { return t0 + int64_t{k} * Steps; }
    __device__ bool first() const { return k == 0; }
  };
  // The timesteps left in x's chunk from its box on.
  __device__ int64_t left(const Conv1dProblem &p, const Box &x) const {
    return (x.t0 + chunk < p.length ? x.t0 + chunk : p.length) - x.box_t0();
  }
  // Timesteps of the box inside the chunk (0: past the chunk's end).
  __device__ int steps(const Conv1dProblem &p, const Box &x) const {
    const int64_t n = left(p, x);
    return static_cast<int>(n <= 0 ? 0 : n < Steps ? n : Steps);
  }
  __device__ bool last(const Conv1dProblem &p, const Box &x) const {
    const int64_t n = left(p, x);
    return n > 0 && n <= Steps;
  }
  __device__ Box start(const Conv1dProblem &p) const {
    Box x;
    x.pair = blockIdx.y;
    x.k = 0;
    enter_pair(x);
    return x;
  }
  __device__ void advance(Box &x) const {
    if (++x.k == boxes) {
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
    int64_t index;
    split_row(x.pair, chunks, x.b, index);
    x.t0 = index * chunk;
  }
};

template <class T>
constexpr int kForwardChannelVec = Conv1dTraits::channel_vec(false, sizeof(T));
template <class T>
constexpr int kBackwardChannelVec = Conv1dTraits::channel_vec(true, sizeof(T));
template <class T, int Vc>
constexpr int kBoxSteps = Conv1dTraits::kBoxBytes / (kThreads * Vc * static_cast<int>(sizeof(T)));

template <class T, int W, bool Silu, bool Seq, class Wt = T>
__global__ void __launch_bounds__(kThreads) forward_channel_tiles_kernel(Conv1dProblem p, int chunk) {
  using A = Acc<T>;
  constexpr int Vc = kForwardChannelVec<T>, Steps = kBoxSteps<T, Vc>;
  using Tiles = ChannelTiles<T, Vc, Steps>;
  static_assert(Conv1dTraits::min_channel_chunk(false, 1) % Steps == 0, "boxes tile every chunk (the shortest)");
  __shared__ uint4 stage[kStages][(W - 1 + Steps) * Tiles::kPieces];  // row r: timestep box_t0 - (W-1) + r
  const Tiles tiles(p, chunk);
  const int64_t c = tiles.c0 + threadIdx.x * Vc;
  const bool live = c < p.channels;
  const ChannelTaps<T, W, Vc, Wt> taps(p, c, kForwardTapScale<T, Silu>);
  A hist[W][Vc];  // hist[j] = x_pad[t - (W-1) + j]; hist[W-1] is the current step
  SeqWindow<W, Seq> ids;
  auto loading = tiles.start(p), using_ = loading;
  stream_stages<kStages>(
      tiles.items,
      [&](int64_t, int s) {
        const auto x = loading;
        tiles.advance(loading);
        const int steps = tiles.steps(p, x);
        if (steps == 0) return;
        tiles.template stage_rows<W>(p, p.x, x.b, x.box_t0() - (W - 1), x.first() ? 0 : W - 1, W - 1 + steps, stage[s]);
      },
      [&](int64_t, int s) {
        const auto x = using_;
        tiles.advance(using_);
        const int steps = tiles.steps(p, x);
        if (steps == 0 || !live) return;
        if (x.first()) {
#pragma unroll
          for (int j = 0; j < W - 1; ++j) Tiles::read(stage[s], j, hist[j]);
          ids.enter(p, x.b, x.box_t0());
        }
        T *yb = at<T>(p.y, x.b, c, x.box_t0());
        const int64_t sy = p.y.stride[2];
        run_steps<Steps>(steps, [&](int r) {
          Tiles::read(stage[s], W - 1 + r, hist[W - 1]);
          ids.push(p, x.b, x.box_t0() + r);
          const unsigned mask = ids.inputs();
          A win[W][Vc];
#pragma unroll
          for (int j = 0; j < W; ++j)
#pragma unroll
            for (int v = 0; v < Vc; ++v) win[j][v] = kept(mask, j, hist[j][v]);
          A out[Vc];
#pragma unroll
          for (int v = 0; v < Vc; ++v)
            out[v] = kept(mask, W - 1, activate_scaled<T, Silu>(taps.pre_activation(v, win)));
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
// g that its last dx need. Partial dw/db per (b, chunk) slot. SiluFlag: as
// GradTaps' (conv1d_math.cuh).
template <class T, int W, bool Seq, class Wt, class SiluFlag>
__global__ void __launch_bounds__(kThreads, Conv1dTraits::backward_channel_blocks(W, Seq))
    backward_channel_tiles_kernel(Conv1dProblem p, Acc<T> *partials, int chunk) {
  using A = Acc<T>;
  constexpr int Vc = kBackwardChannelVec<T>, Steps = kBoxSteps<T, Vc> / 2;  // two tensors staged
  using Tiles = ChannelTiles<T, Vc, Steps>;
  static_assert(Conv1dTraits::min_channel_chunk(true, 1) % Steps == 0, "boxes tile every chunk (the shortest)");
  constexpr int kRows = W - 1 + Steps + W - 1, kChannelStages = Conv1dTraits::kBackwardChannelStages;
  __shared__ uint4 xstage[kChannelStages][kRows * Tiles::kPieces];               // row r: timestep box_t0 - (W-1) + r
  __shared__ uint4 dystage[kChannelStages][(kRows - (W - 1)) * Tiles::kPieces];  // row r: timestep box_t0 + r
  let_next_pass_start();  // the reduction of the partial sums waits for this pass's end
  const Tiles tiles(p, chunk);
  const int64_t c = tiles.c0 + threadIdx.x * Vc;
  const bool live = c < p.channels;
  constexpr bool silu = SiluFlag::value, halved = kTanhSilu<Wt> && silu;  // halved: taps halved, gw and parts hold 2g
  const ChannelTaps<T, W, Vc, Wt> taps(p, c, halved ? A(0.5) : A(1));
  A xw[W][Vc], gw[W][Vc], parts[W + 1][Vc];
  SeqWindow<W, Seq> ids;
  auto loading = tiles.start(p), using_ = loading;
  stream_stages<kChannelStages>(
      tiles.items,
      [&](int64_t, int s) {
        const auto x = loading;
        tiles.advance(loading);
        const int steps = tiles.steps(p, x);
        if (steps == 0) return;
        const int end = W - 1 + steps + (tiles.last(p, x) ? W - 1 : 0);
        tiles.template stage_rows<W>(p, p.x, x.b, x.box_t0() - (W - 1), x.first() ? 0 : W - 1, end, xstage[s]);
        tiles.template stage_rows<W>(p, p.dy, x.b, x.box_t0(), 0, end - (W - 1), dystage[s]);
      },
      [&](int64_t, int s) {
        const auto x = using_;
        tiles.advance(using_);
        const int counted_steps = tiles.steps(p, x);
        if (counted_steps == 0 || !live) return;
        const bool first = x.first(), last = tiles.last(p, x);
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
          ids.enter(p, x.b, x.box_t0());
        }
        const int64_t sdx = p.dx.stride[2];
        T *dxr = at<T>(p.dx, x.b, c, x.box_t0() - (W - 1));  // dx of step r, W-1 behind
        // counted: a step of the chunk (the W-1 past it only give g to its last dx)
        auto step = [&](int r, auto counted) {
          A xs[Vc], dys[Vc];
          Tiles::read(xstage[s], W - 1 + r, xs);  // zeros past the sequence: g is 0 there
          Tiles::read(dystage[s], r, dys);
          // Past the row g is 0 whatever the ids say: any id of the row serves there.
          const int64_t t = x.box_t0() + r;
          ids.push(p, x.b, t < p.length ? t : p.length - 1);
          const unsigned in_mask = ids.inputs(), out_mask = ids.outputs();
          A dx[Vc], xm[W][Vc], gm[W][Vc];
#pragma unroll
          for (int v = 0; v < Vc; ++v) {
#pragma unroll
            for (int j = 0; j + 1 < W; ++j) {
              xw[j][v] = xw[j + 1][v];
              gw[j][v] = gw[j + 1][v];
            }
            xw[W - 1][v] = xs[v];
#pragma unroll
            for (int j = 0; j < W; ++j) xm[j][v] = kept(in_mask, j, xw[j][v]);
            A g = dys[v];
            if (silu) {
              const A z = taps.pre_activation(v, xm);  // z/2 when halved
              if constexpr (kTanhSilu<Wt>) {
                g = doubled_upstream_at_half(z, g);
              } else {
                g *= activation_slope<Wt, true>(z);
              }
            }
            g = kept(in_mask, W - 1, g);
            gw[W - 1][v] = g;
            if constexpr (decltype(counted)::value) add_partials<T, W, Vc>(parts, v, g, xm);
#pragma unroll
            for (int j = 0; j < W; ++j) gm[j][v] = kept(out_mask, j, gw[j][v]);
            dx[v] = taps.transposed(v, gm);
          }
          if (r >= W - 1 || !first) store_run<T, Vc>(dxr + r * sdx, dx);
        };
        run_steps<Steps>(counted_steps, [&](int r) { step(r, std::true_type{}); });
        if (last)
          for (int r = counted_steps; r < counted_steps + W - 1; ++r) step(r, std::false_type{});
        if (last) {
          A *slot = partials + ((x.b * tiles.chunks + x.t0 / tiles.chunk) * p.channels + c) * (W + 1);
#pragma unroll
          for (int v = 0; v < Vc; ++v)
#pragma unroll
            for (int k = 0; k <= W; ++k)
              store_partial(slot + v * (W + 1) + k, halved ? A(0.5) * parts[k][v] : parts[k][v]);
        }
      });
}

}  // namespace baracuda::kernels::conv1d
