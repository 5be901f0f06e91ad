// The channels-last forward of small problems: a block takes one box of
// timesteps by channels (no ring), loads it with plain 16-byte loads into
// shared memory (every load in flight before the first store), and writes y
// back through shared memory as 16-byte rows. A small problem's time is one
// block's life (launch, one round trip for x and the taps, the steps, the
// stores), so the box is small and the grid wide: the channel tiles' 64
// blocks of 256 channels by 16 timesteps at [1,2048,128] (a 3-stage ring
// after a prologue of 64-bit divisions, a 4-byte store a step) ran 0.78x Tri
// Dao's (session 21, bench/NOTES.md).
#pragma once

#include "causal_conv1d/conv1d_staged.cuh"

namespace baracuda::kernels::conv1d {

// A block: kThreads >> group_shift lanes of 4 bytes of channels (Vc) by
// 1 << group_shift time groups of Steps timesteps (a thread's, unrolled: a
// run-time count cost 2-5% where the steps of a thread are the block's
// life); lane l of group g computes channels c0 + l*Vc .. at its group's
// steps. Grid: x boxes along C, y along L, z the batch.
template <class T, int W, bool Silu, class Wt, int Steps>
__device__ __forceinline__ void forward_channel_box(const Conv1dProblem &p, int group_shift) {
  using A = Acc<T>;
  constexpr int Vc = Conv1dTraits::channel_vec(false, sizeof(T));
  constexpr int kRowPieces = kThreads * Vc * static_cast<int>(sizeof(T)) / 16;  // a row's 16-byte pieces, group shift 0
  static_assert(kRowPieces == 32 && sizeof(A) == 4, "a lane's channels are 4 bytes; sums in f32");
  constexpr int kVec = 16 / static_cast<int>(sizeof(T));
  __shared__ uint4 xs[(W - 1 + Steps) * kRowPieces];  // row r: timestep t0 - (W-1) + r
  __shared__ uint4 ys[Steps * kRowPieces];            // row r: timestep t0 + r
  const int piece_shift = 5 - group_shift, lane_shift = 7 - group_shift;
  const int rows_out = Steps << group_shift, rows = W - 1 + rows_out;
  const int64_t c0 = static_cast<int64_t>(blockIdx.x) * (kThreads >> group_shift) * Vc;
  const int64_t t0 = static_cast<int64_t>(blockIdx.y) * rows_out;
  const int64_t b = blockIdx.z;
  const ChannelTaps<T, W, Vc, Wt> taps(p, c0 + (threadIdx.x & ((1 << lane_shift) - 1)) * Vc,
                                       kForwardTapScale<T, Silu>);
  // A thread copies one place of a row (piece), every kThreads >> piece_shift rows.
  const int piece = threadIdx.x & ((1 << piece_shift) - 1), row_step = kThreads >> piece_shift;
  const int64_t cv = c0 + piece * kVec;
  const bool piece_live = cv < p.channels;
  const int first_row = static_cast<int>(threadIdx.x) >> piece_shift;
  constexpr int kMaxCopies = ((W - 1 + Steps) * kRowPieces + kThreads - 1) / kThreads;
  // Rows before the sequence (INITIAL_STATES or zeros): staged with the
  // copies at 8 steps a thread, read by the steps at 4 (session 21, same
  // process, us: staged, 8 steps, [1,2048,512] 3.44 -> 3.23, [1,2048,1024]
  // 5.12 -> 4.77; read, 4 steps, [1,2048,128] W2 2.24 -> 2.01, W4 2.43 ->
  // 2.41). Same values either way.
  constexpr bool kStageBefore = Steps > Conv1dTraits::kChannelBoxStepsFew;
  {
    const T *src = at<T>(p.x, b, cv, t0 - (W - 1) + first_row);
    const int64_t src_step = row_step * p.x.stride[2];
    uint4 held[kMaxCopies];
#pragma unroll
    for (int k = 0; k < kMaxCopies; ++k) {
      const int r = first_row + k * row_step;
      const int64_t t = t0 - (W - 1) + r;
      held[k] = make_uint4(0, 0, 0, 0);
      if (r < rows && piece_live && t >= 0 && t < p.length)
        held[k] = *reinterpret_cast<const uint4 *>(src + k * src_step);
    }
#pragma unroll
    for (int k = 0; k < kMaxCopies; ++k) {
      const int r = first_row + k * row_step;
      if (r >= rows) break;
      const int64_t t = t0 - (W - 1) + r;
      uint4 *slot = &xs[(r << piece_shift) + piece];
      // (Such rows are among the first W-1, which a thread's first copies
      // hold, rows a copy apart being at least 4: store_initial16 inlined
      // for those copies only.)
      if (kStageBefore && k * 4 < W - 1 && t < 0 && piece_live) {
        store_initial16<T, W>(p, b, cv, t, 1, slot);
      } else {
        *slot = held[k];
      }
    }
  }
  __syncthreads();
  const int lane = threadIdx.x & ((1 << lane_shift) - 1), row0 = (static_cast<int>(threadIdx.x) >> lane_shift) * Steps;
  auto read = [&](int r, A *out) {
    Vec<T, Vc> v;
    using Raw = decltype(v.raw);
    v.raw = reinterpret_cast<const Raw *>(xs + (r << piece_shift))[lane];
    unpack<T, Vc>(v, out);
  };
  A hist[W][Vc];  // hist[j] = x_pad[t - (W-1) + j]; hist[W-1] is the current step
#pragma unroll
  for (int j = 0; j < W - 1; ++j) {
    const int64_t t = t0 - (W - 1) + row0 + j;
    if (!kStageBefore && t < 0) {
      const int64_t c = c0 + lane * Vc;
#pragma unroll
      for (int v = 0; v < Vc; ++v) hist[j][v] = c < p.channels ? x_pad<T, W>(p, b, c + v, t) : A(0);
    } else {
      read(row0 + j, hist[j]);
    }
  }
#pragma unroll
  for (int r = 0; r < Steps; ++r) {
      read(row0 + W - 1 + r, hist[W - 1]);
      A out[Vc];
#pragma unroll
      for (int v = 0; v < Vc; ++v) out[v] = activate_scaled<T, Silu>(taps.fused_pre_activation(v, hist));
      uint32_t word;
      if constexpr (Vc == 2) {
        word = static_cast<uint32_t>(bits_of<T>(out[0]) | bits_of<T>(out[1]) << 16);
      } else {
        word = static_cast<uint32_t>(bits_of<T>(out[0]));
      }
      reinterpret_cast<uint32_t *>(ys + ((row0 + r) << piece_shift))[lane] = word;
#pragma unroll
      for (int j = 0; j + 1 < W; ++j)
#pragma unroll
        for (int v = 0; v < Vc; ++v) hist[j][v] = hist[j + 1][v];
  }
  __syncthreads();
  if (!piece_live) return;
  T *dst = at<T>(p.y, b, cv, t0 + first_row);
  const int64_t dst_step = row_step * p.y.stride[2];
  constexpr int kMaxOuts = Steps * kRowPieces / kThreads;
#pragma unroll
  for (int k = 0; k < kMaxOuts; ++k) {
    const int r = first_row + k * row_step;
    if (r >= rows_out || t0 + r >= p.length) break;
    const uint4 v = ys[(r << piece_shift) + piece];
    asm volatile("{\n.reg .u64 g;\ncvta.to.global.u64 g, %0;\nst.global.v4.u32 [g], {%1, %2, %3, %4};\n}" ::"l"(
                     dst + k * dst_step),
                 "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
  }
}

template <class T, int W, bool Silu, class Wt, int Steps>
__global__ void __launch_bounds__(kThreads) forward_channel_box_kernel(Conv1dProblem p, int group_shift) {
  // Launched overlapping the kernel before it (forward_launch): a box's life
  // is a few microseconds, its launch a large share of it.
  wait_for_previous_pass();
  let_next_pass_start();
  forward_channel_box<T, W, Silu, Wt, Steps>(p, group_shift);
}

}  // namespace baracuda::kernels::conv1d
