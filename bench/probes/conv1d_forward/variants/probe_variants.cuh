// Forced variants of the branch's tree for the forward probe (variant.cu),
// round 2: what made the branch's register-fed rows 15% slower than main's
// (round 1), and the channel tiles' SiLU branch at B 1.
//   1: main's register-fed rows with SiLU a run-time flag (rows back to back
//      only, the inputs before a vector in the one before it);
//   2: 1 with SiLU a template argument again (main's kernel: the baseline
//      inside this TU);
//   3: the branch's kernel with "rows back to back" a template argument;
//   4: the branch's kernel with SiLU a template argument;
//   5: the channel tiles with the activation selected an element (both
//      computed), 6: branched a step;
//   7: the branch's kernel, every address from the vector's (b, c).
#pragma once

#include <type_traits>

namespace baracuda::kernels::conv1d {

// Silu: 0 run-time (p.silu), 1 on, 2 off.
template <int Silu>
__device__ __forceinline__ bool probe_silu(const Conv1dProblem &p) {
  return Silu == 0 ? p.silu != 0 : Silu == 1;
}

template <class T, int W, class Wt, int Steps, int Silu>
__global__ void __launch_bounds__(kThreads) probe_flat_rows_kernel(Conv1dProblem p, int shift) {
  using A = Acc<T>;
  using Raw = Vec<T, kTimeVec<T>>;
  constexpr int V = kTimeVec<T>;
  static_assert(W - 1 <= V, "the inputs before a vector are in the one before it");
  const bool silu = probe_silu<Silu>(p);
  const int64_t row_mask = (int64_t{1} << shift) - 1;
  const int64_t total = (p.batch * p.channels) << shift;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * (kThreads * Steps) + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const T *x = static_cast<const T *>(p.x.data);
  T *y = static_cast<T *>(p.y.data);
  Raw cur[Steps], before[Steps];
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
    cur[m].raw = make_uint4(0, 0, 0, 0);
    before[m].raw = make_uint4(0, 0, 0, 0);
    if (j < total) {
      cur[m] = load_vec<T, V>(x + j * V);
      if (lane == 0 && (j & row_mask) != 0) before[m] = load_vec<T, V>(x + (j - 1) * V);
    }
  }
  Taps<T, W, Wt> taps[Steps];
  auto row_of = [&](int64_t j, int64_t &b, int64_t &c) {
    split_row((j < total ? j : total - 1) >> shift, p.channels, b, c);
  };
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    int64_t b, c;
    row_of(first + m * kThreads, b, c);
    taps[m] = Taps<T, W, Wt>(p, c);
    const A scale = forward_tap_scale<T>(silu);
    if (kTanhSilu<T> && silu) {
#pragma unroll
      for (int k = 0; k < W; ++k) taps[m].w[k] *= scale;
      taps[m].bias *= scale;
    }
  }
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
    uint4 up;
    up.x = __shfl_up_sync(0xffffffffu, cur[m].raw.x, 1);
    up.y = __shfl_up_sync(0xffffffffu, cur[m].raw.y, 1);
    up.z = __shfl_up_sync(0xffffffffu, cur[m].raw.z, 1);
    up.w = __shfl_up_sync(0xffffffffu, cur[m].raw.w, 1);
    if (lane != 0) before[m].raw = up;
    if ((j & row_mask) == 0) {
      int64_t b, c;
      row_of(j, b, c);
      store_initial16<T, W>(p, b, c, -V, 2, &before[m].raw);
    }
    A win[2 * V];
    unpack<T, V>(before[m], win);
    unpack<T, V>(cur[m], win + V);
    A out[V];
    if constexpr (Silu == 0) {
      forward_vector<T, W>(taps[m], win + V - (W - 1), silu, out);
    } else {
      forward_vector<T, W>(taps[m], win + V - (W - 1), std::bool_constant<Silu == 1>{}, out);
    }
    if (j < total) store_run<T, V>(y + j * V, out);
  }
}

// The branch's kernel (conv1d_direct.cuh) with Flat: 0 run-time, 1 rows back to back.
template <class T, int W, class Wt, int Steps, int Silu, int Flat>
__global__ void __launch_bounds__(kThreads, Conv1dTraits::direct_rows_blocks(sizeof(T), W))
    probe_direct_rows_kernel(Conv1dProblem p, int shift) {
  using A = Acc<T>;
  using Raw = Vec<T, kTimeVec<T>>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>;
  const bool silu = probe_silu<Silu>(p);
  const int64_t row_mask = (int64_t{1} << shift) - 1;
  const int64_t total = (p.batch * p.channels) << shift;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * (kThreads * Steps) + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const bool flat = Flat == 1 || (flat_rows(p, p.x) && flat_rows(p, p.y));
  auto row_of = [&](int64_t j, int64_t &b, int64_t &c) {
    split_row((j < total ? j : total - 1) >> shift, p.channels, b, c);
  };
  auto vector_at = [&](const Conv1dView &view, int64_t j) {
    if (flat) return static_cast<T *>(view.data) + j * V;
    int64_t b, c;
    row_of(j, b, c);
    return at<T>(view, b, c, (j & row_mask) * V);
  };
  const T *x = static_cast<const T *>(p.x.data);
  Raw cur[Steps], before[Steps][H];
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
    cur[m].raw = make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int h = 0; h < H; ++h) before[m][h].raw = make_uint4(0, 0, 0, 0);
    if (j < total) {
      const T *xj = flat ? x + j * V : vector_at(p.x, j);
      cur[m] = load_vec<T, V>(xj);
#pragma unroll
      for (int h = 0; h < H; ++h)
        if (lane <= h && (j & row_mask) > h) before[m][h] = load_vec<T, V>(xj - (h + 1) * V);
    }
  }
  Taps<T, W, Wt> taps[Steps];
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    int64_t b, c;
    row_of(first + m * kThreads, b, c);
    taps[m] = Taps<T, W, Wt>(p, c);
    const A scale = forward_tap_scale<T>(silu);
    if (kTanhSilu<T> && silu) {
#pragma unroll
      for (int k = 0; k < W; ++k) taps[m].w[k] *= scale;
      taps[m].bias *= scale;
    }
  }
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
#pragma unroll
    for (int h = 0; h < H; ++h) {
      uint4 up;
      up.x = __shfl_up_sync(0xffffffffu, cur[m].raw.x, h + 1);
      up.y = __shfl_up_sync(0xffffffffu, cur[m].raw.y, h + 1);
      up.z = __shfl_up_sync(0xffffffffu, cur[m].raw.z, h + 1);
      up.w = __shfl_up_sync(0xffffffffu, cur[m].raw.w, h + 1);
      if (lane > h) before[m][h].raw = up;
      if ((j & row_mask) <= h) {
        int64_t b, c;
        row_of(j, b, c);
        store_initial16<T, W>(p, b, c, ((j & row_mask) - 1 - h) * V, 2, &before[m][h].raw);
      }
    }
    A win[(H + 1) * V];
#pragma unroll
    for (int h = 0; h < H; ++h) unpack<T, V>(before[m][h], win + (H - 1 - h) * V);
    unpack<T, V>(cur[m], win + H * V);
    A out[V];
    if constexpr (Silu == 0) {
      forward_vector<T, W>(taps[m], win + H * V - (W - 1), silu, out);
    } else {
      forward_vector<T, W>(taps[m], win + H * V - (W - 1), std::bool_constant<Silu == 1>{}, out);
    }
    if (j < total) store_run<T, V>(flat ? static_cast<T *>(p.y.data) + j * V : vector_at(p.y, j), out);
  }
}

// 7: the branch's kernel with every address from the vector's row (b, c),
// divided once before the loads (the taps need it anyway): no branch on the
// layout.
template <class T, int W, class Wt, int Steps>
__global__ void __launch_bounds__(kThreads, Conv1dTraits::direct_rows_blocks(sizeof(T), W))
    probe_row_rows_kernel(Conv1dProblem p, int shift) {
  using A = Acc<T>;
  using Raw = Vec<T, kTimeVec<T>>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>;
  const int64_t row_mask = (int64_t{1} << shift) - 1;
  const int64_t total = (p.batch * p.channels) << shift;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * (kThreads * Steps) + threadIdx.x;
  const int lane = threadIdx.x % 32;
  int64_t b[Steps], c[Steps];
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
    split_row((j < total ? j : total - 1) >> shift, p.channels, b[m], c[m]);
  }
  Raw cur[Steps], before[Steps][H];
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
    cur[m].raw = make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int h = 0; h < H; ++h) before[m][h].raw = make_uint4(0, 0, 0, 0);
    if (j < total) {
      const T *xj = at<T>(p.x, b[m], c[m], (j & row_mask) * V);
      cur[m] = load_vec<T, V>(xj);
#pragma unroll
      for (int h = 0; h < H; ++h)
        if (lane <= h && (j & row_mask) > h) before[m][h] = load_vec<T, V>(xj - (h + 1) * V);
    }
  }
  Taps<T, W, Wt> taps[Steps];
#pragma unroll
  for (int m = 0; m < Steps; ++m) taps[m] = forward_taps<T, W, Wt>(p, c[m]);
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
#pragma unroll
    for (int h = 0; h < H; ++h) {
      uint4 up;
      up.x = __shfl_up_sync(0xffffffffu, cur[m].raw.x, h + 1);
      up.y = __shfl_up_sync(0xffffffffu, cur[m].raw.y, h + 1);
      up.z = __shfl_up_sync(0xffffffffu, cur[m].raw.z, h + 1);
      up.w = __shfl_up_sync(0xffffffffu, cur[m].raw.w, h + 1);
      if (lane > h) before[m][h].raw = up;
      if ((j & row_mask) <= h) store_initial16<T, W>(p, b[m], c[m], ((j & row_mask) - 1 - h) * V, 2, &before[m][h].raw);
    }
    A win[(H + 1) * V];
#pragma unroll
    for (int h = 0; h < H; ++h) unpack<T, V>(before[m][h], win + (H - 1 - h) * V);
    unpack<T, V>(cur[m], win + H * V);
    A out[V];
    forward_vector<T, W>(taps[m], win + H * V - (W - 1), p.silu, out);
    if (j < total) store_run<T, V>(at<T>(p.y, b[m], c[m], (j & row_mask) * V), out);
  }
}

// The channel tiles' forward (conv1d_channel_tiles.cuh) with the activation
// Mode 5: selected an element (both computed), 6: branched a step.
template <class T, int W, class Wt, int Mode>
__global__ void __launch_bounds__(kThreads) probe_channel_tiles_kernel(Conv1dProblem p, int chunk) {
  using A = Acc<T>;
  constexpr int Vc = kForwardChannelVec<T>, Steps = kBoxSteps<T, Vc>;
  using Tiles = ChannelTiles<T, Vc, Steps>;
  __shared__ uint4 stage[kStages][(W - 1 + Steps) * Tiles::kPieces];
  const Tiles tiles(p, chunk);
  const int64_t c = tiles.c0 + threadIdx.x * Vc;
  const bool live = c < p.channels;
  const bool silu = p.silu != 0;
  const ChannelTaps<T, W, Vc, Wt> taps(p, c, forward_tap_scale<T>(silu));
  A hist[W][Vc];
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
        }
        T *yb = at<T>(p.y, x.b, c, x.box_t0());
        const int64_t sy = p.y.stride[2];
        run_steps<Steps>(steps, [&](int r) {
          Tiles::read(stage[s], W - 1 + r, hist[W - 1]);
          A out[Vc];
#pragma unroll
          for (int v = 0; v < Vc; ++v) out[v] = taps.pre_activation(v, hist);
          if constexpr (Mode == 5) {
            A act[Vc];
#pragma unroll
            for (int v = 0; v < Vc; ++v) act[v] = out[v];
            activate_run<T>(std::true_type{}, act);
#pragma unroll
            for (int v = 0; v < Vc; ++v) out[v] = silu ? act[v] : out[v];
          } else {
            activate_run<T>(silu, out);
          }
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
  using baracuda::kernels::Conv1dPass;
  if constexpr (W != 4 || sizeof(T) == 8) {
    return 3;
  } else {
    const auto l = baracuda::kernels::choose_conv1d_launch(Conv1dPass::Forward, sizeof(T), p);
    const dim3 grid(static_cast<unsigned>(l.grid_x), static_cast<unsigned>(l.grid_y), static_cast<unsigned>(l.grid_z));
    constexpr int Steps = baracuda::kernels::Conv1dTraits::direct_rows_steps(sizeof(T));
    if (l.kernel == Conv1dKernel::DirectRows && variant == 7) {
      const int shift = __builtin_ctzll(static_cast<unsigned long long>(p.length / cv::kTimeVec<T>));
      cv::probe_row_rows_kernel<T, W, Wt, Steps><<<grid, cv::kThreads, 0, s>>>(p, shift);
      return -static_cast<int>(cudaGetLastError());
    }
    if (l.kernel == Conv1dKernel::DirectRows && variant >= 1 && variant <= 4) {
      const int shift = __builtin_ctzll(static_cast<unsigned long long>(p.length / cv::kTimeVec<T>));
      const bool flat = p.x.stride[1] == p.length && p.y.stride[1] == p.length &&
                        p.x.stride[0] == p.channels * p.length && p.y.stride[0] == p.channels * p.length;
      if (variant == 1 || variant == 3) {
        if (!flat) return 3;
      }
      if (variant == 1) cv::probe_flat_rows_kernel<T, W, Wt, Steps, 0><<<grid, cv::kThreads, 0, s>>>(p, shift);
      if (variant == 2) {
        if (!flat) return 3;
        if (p.silu) cv::probe_flat_rows_kernel<T, W, Wt, Steps, 1><<<grid, cv::kThreads, 0, s>>>(p, shift);
        else cv::probe_flat_rows_kernel<T, W, Wt, Steps, 2><<<grid, cv::kThreads, 0, s>>>(p, shift);
      }
      if (variant == 3) cv::probe_direct_rows_kernel<T, W, Wt, Steps, 0, 1><<<grid, cv::kThreads, 0, s>>>(p, shift);
      if (variant == 4) {
        if (p.silu) cv::probe_direct_rows_kernel<T, W, Wt, Steps, 1, 0><<<grid, cv::kThreads, 0, s>>>(p, shift);
        else cv::probe_direct_rows_kernel<T, W, Wt, Steps, 2, 0><<<grid, cv::kThreads, 0, s>>>(p, shift);
      }
      return -static_cast<int>(cudaGetLastError());
    }
    if (l.kernel == Conv1dKernel::StagedChannelTiles && !p.seq_idx.data && (variant == 5 || variant == 6)) {
      if (variant == 5) cv::probe_channel_tiles_kernel<T, W, Wt, 5><<<grid, cv::kThreads, 0, s>>>(p, static_cast<int>(l.chunk));
      else cv::probe_channel_tiles_kernel<T, W, Wt, 6><<<grid, cv::kThreads, 0, s>>>(p, static_cast<int>(l.chunk));
      return -static_cast<int>(cudaGetLastError());
    }
    return 3;
  }
}

}  // namespace
