// Forced variants of the branch's tree for the forward probe (variant.cu),
// round 3: 1, the time tiles' forward branching on SiLU once a vector (round
// 1-2's, against the branch's once a tile).
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
    if (variant != 1 || l.kernel != Conv1dKernel::StagedTimeTiles) return 3;
    const dim3 grid(static_cast<unsigned>(l.grid_x), static_cast<unsigned>(l.grid_y), static_cast<unsigned>(l.grid_z));
    cv::probe_time_tiles_kernel<T, W, Wt><<<grid, cv::kThreads, 0, s>>>(p);
    return -static_cast<int>(cudaGetLastError());
  }
}

}  // namespace
