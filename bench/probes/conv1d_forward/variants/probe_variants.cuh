// Forced variants of the branch's tree for the forward probe (variant.cu),
// round 3: 1, the time tiles' forward branching on SiLU once a vector (round
// 1-2's, against the branch's once a tile); 2, the channel tiles' forward
// with SEQ_IDX a run-time flag (its window of ids and masks behind a
// warp-uniform branch a step) instead of a template argument.
#pragma once

#include <type_traits>

namespace baracuda::kernels::conv1d {

template <class T, int W, class Wt = T>
__global__ void __launch_bounds__(kThreads) probe_time_tiles_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>, Steps = kForwardTileSteps;
  using Tiles = TimeTiles<Steps, Conv1dTraits::time_tiles_per_block(false, sizeof(T))>;
  __shared__ uint4 stage[kStages][H + Tiles::kVecs];
  const Tiles tiles(p, V);
  auto loading = tiles.start(p), using_ = loading;
  Taps<T, W, Wt> taps = forward_taps<T, W, Wt>(p, using_.c, p.silu);
  stream_stages<kStages>(
      tiles.items,
      [&](int64_t, int s) {
        stage_tile<T, W, H, 0, Tiles::kVecs>(p, p.x, loading.b, loading.c, loading.u0, loading.n, tiles.units, stage[s]);
        tiles.advance(p, loading);
      },
      [&](int64_t i, int s) {
        T *yr = at<T>(p.y, using_.b, using_.c, using_.u0 * V);
        auto vector = [&](int j) {
          const TimeWindow<T, W> xw(stage[s], j);
          A out[V];
          forward_vector<T, W>(taps, xw.win(), p.silu != 0, out);
          store_run<T, V>(yr + j * V, out);
        };
        const int mine =
            using_.n > static_cast<int>(threadIdx.x) ? (using_.n - threadIdx.x + kThreads - 1) / kThreads : 0;
        run_steps<Steps>(mine, [&](int m) { vector(threadIdx.x + m * kThreads); });
        const bool next_row = using_.row_ends;
        tiles.advance(p, using_);
        if (next_row && i + 1 < tiles.items) taps = forward_taps<T, W, Wt>(p, using_.c, p.silu);
      });
}

// A window of sequence ids as SeqWindow<W, true>, behind a run-time flag.
template <int W>
struct ProbeSeqWindow {
  int32_t id[W];
  bool on;
  __device__ __forceinline__ void enter(const Conv1dProblem &p, int64_t b, int64_t t) {
    if (on)
#pragma unroll
      for (int j = 0; j < W - 1; ++j) id[j + 1] = seq_id(p, b, t - (W - 1) + j);
  }
  __device__ __forceinline__ void push(const Conv1dProblem &p, int64_t b, int64_t s) {
    if (on) {
#pragma unroll
      for (int j = 0; j + 1 < W; ++j) id[j] = id[j + 1];
      id[W - 1] = seq_id(p, b, s);
    }
  }
  __device__ __forceinline__ unsigned inputs() const {
    if (!on) return ~0u;
    unsigned mask = 0;
#pragma unroll
    for (int j = 0; j < W; ++j) mask |= static_cast<unsigned>(id[j] == id[W - 1]) << j;
    return mask & ~(static_cast<unsigned>(id[W - 1] < 0) << (W - 1));
  }
};

template <class T, int W, bool Silu, class Wt = T>
__global__ void __launch_bounds__(kThreads) probe_channel_tiles_seq_kernel(Conv1dProblem p, int chunk) {
  using A = Acc<T>;
  constexpr int Vc = kForwardChannelVec<T>, Steps = kBoxSteps<T, Vc>;
  using Tiles = ChannelTiles<T, Vc, Steps>;
  __shared__ uint4 stage[kStages][(W - 1 + Steps) * Tiles::kPieces];
  const Tiles tiles(p, chunk);
  const int64_t c = tiles.c0 + threadIdx.x * Vc;
  const bool live = c < p.channels;
  const ChannelTaps<T, W, Vc, Wt> taps(p, c, forward_tap_scale<T>(Silu));
  A hist[W][Vc];
  ProbeSeqWindow<W> ids;
  ids.on = p.seq_idx.data != nullptr;
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
          for (int v = 0; v < Vc; ++v) out[v] = taps.pre_activation(v, win);
          activate_run<T>(std::bool_constant<Silu>{}, out);
#pragma unroll
          for (int v = 0; v < Vc; ++v) out[v] = kept(mask, W - 1, out[v]);
          store_run<T, Vc>(yb + r * sy, out);
#pragma unroll
          for (int j = 0; j + 1 < W; ++j)
#pragma unroll
            for (int v = 0; v < Vc; ++v) hist[j][v] = hist[j + 1][v];
        });
      });
}

}  // namespace baracuda::kernels::conv1d

namespace {

template <class T, class Wt, int W>
int probe_variant(const baracuda::kernels::Conv1dProblem &p, int variant, cudaStream_t s) {
  namespace cv = baracuda::kernels::conv1d;
  using baracuda::kernels::Conv1dKernel;
  if constexpr (W != 4 || sizeof(T) == 8) {
    return 3;
  } else {
    const auto l = baracuda::kernels::choose_conv1d_launch(baracuda::kernels::Conv1dPass::Forward, sizeof(T), p);
    const dim3 grid(static_cast<unsigned>(l.grid_x), static_cast<unsigned>(l.grid_y), static_cast<unsigned>(l.grid_z));
    if (variant == 1 && l.kernel == Conv1dKernel::StagedTimeTiles) {
      cv::probe_time_tiles_kernel<T, W, Wt><<<grid, cv::kThreads, 0, s>>>(p);
    } else if (variant == 2 && l.kernel == Conv1dKernel::StagedChannelTiles) {
      if (p.silu) {
        cv::probe_channel_tiles_seq_kernel<T, W, true, Wt><<<grid, cv::kThreads, 0, s>>>(p, static_cast<int>(l.chunk));
      } else {
        cv::probe_channel_tiles_seq_kernel<T, W, false, Wt><<<grid, cv::kThreads, 0, s>>>(p, static_cast<int>(l.chunk));
      }
    } else {
      return 3;
    }
    return -static_cast<int>(cudaGetLastError());
  }
}

}  // namespace
