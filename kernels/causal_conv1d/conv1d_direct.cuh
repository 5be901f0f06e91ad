// The register-fed forward of causal conv1d over [B, C, L] rows: each
// thread loads its 16-byte vectors of x straight into registers, all of them
// before any math, and stores y; no ring of stages, no barrier. Where a block
// of the staged kernels holds one or two tiles (short rows, small problems),
// its life was one round trip for the copies, a wait, two barriers and the
// taps; here it is one round trip. x and y hold every row back to back
// (dense), rows of a power of two of vectors: a block takes consecutive
// vectors of the B*C rows; the H vectors before a vector (its W-1 inputs)
// are the previous lanes' (shuffles), the first lanes load their own. It
// also serves the short rows the staged row groups' forward took (f32 W 6-8:
// two vectors before), so that those are the backward's alone.
#pragma once

#include "causal_conv1d/conv1d_time_tiles.cuh"

namespace baracuda::kernels::conv1d {

// The direct rows' prologue by dtype and SiLU (session 24, H200, same
// process, every [B,C,L] row of the grid that takes them; bench/NOTES.md):
// the rows' split by the FastDivisor, and plain zeros before a row without
// INITIAL_STATES (store_initial16's element loop had run in each row's first
// lanes). bf16 gained most with both ([64,2048,1024] 136.9 -> 129.8 us with
// SiLU, [128,2048,128] 41.8 -> 33.9); f16 with SiLU with the zeros alone
// ([64,2048,512] W4 85.7 -> 76.5; with the divisor too 78.5), without SiLU
// with both (77.6 -> 70.2; the zeros alone 72.1); f32 keeps main's code:
// either piece cost its W4 rows 6-7% ([8,4096,8192] 519 -> 555 us, same
// registers with the zeros alone).
template <class T, bool Silu>
struct DirectRowsPrologue {
  static constexpr bool kDivisor = std::is_same_v<T, __nv_bfloat16> || (std::is_same_v<T, __half> && !Silu);
  static constexpr bool kZeros = sizeof(T) == 2;
};

// Block x of the grid takes vectors x * kThreads * Steps .. of the B*C rows
// of 1 << shift vectors each (thread t: vectors t, t + kThreads, ...). SiLU
// stays a template argument: as a run-time flag the kernel ran 3.5% slower
// on B 1 rows of L 128-512 with SiLU off (session 20; taking rows apart in
// memory as well, a run-time branch on the layout, lost 15% everywhere).
// overlap: launched overlapping the kernel before it (Conv1dLaunch::overlap),
// whose end it waits for before its first access to memory, and lets the
// next kernel start; else neither. The trigger costs short blocks: in every
// block of grids of 16384 blocks and more it cost 10-18% (session 21, H200,
// same process); under this branch, never taken there, those grids ran
// 0.2-0.6% slower than main's kernel (the trigger under a predicate instead,
// 0.6-1.4%; after the loads, f32 W4 4%). channels_div: the channels'
// FastDivisor for the rows' split into (b, c), the zero one (a division)
// where B*C passes 2^31 - 1 (DirectRowsPrologue says where it is used).
template <class T, int W, bool Silu, class Wt, int Steps>
__global__ void __launch_bounds__(kThreads)
    forward_direct_rows_kernel(Conv1dProblem p, int shift, int overlap, FastDivisor channels_div) {
  using Prologue = DirectRowsPrologue<T, Silu>;
  using A = Acc<T>;
  using Raw = Vec<T, kTimeVec<T>>;
  constexpr int V = kTimeVec<T>, H = kHaloVecs<T, W>;
  if (overlap) {
    wait_for_previous_pass();
    let_next_pass_start();
  }
  const int64_t row_mask = (int64_t{1} << shift) - 1;
  const int64_t total = (p.batch * p.channels) << shift;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * (kThreads * Steps) + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const T *x = static_cast<const T *>(p.x.data);
  T *y = static_cast<T *>(p.y.data);
  Raw cur[Steps], before[Steps][H];  // before[m][h]: vector j - 1 - h
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
    cur[m].raw = make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int h = 0; h < H; ++h) before[m][h].raw = make_uint4(0, 0, 0, 0);
    if (j < total) {
      cur[m] = load_vec<T, V>(x + j * V);
#pragma unroll
      for (int h = 0; h < H; ++h)
        if (lane <= h && (j & row_mask) > h) before[m][h] = load_vec<T, V>(x + (j - 1 - h) * V);
    }
  }
  Taps<T, W, Wt> taps[Steps];
  auto row_of = [&](int64_t j, int64_t &b, int64_t &c) {
    const int64_t r = (j < total ? j : total - 1) >> shift;
    if constexpr (Prologue::kDivisor) {
      split_row(r, p.channels, channels_div, b, c);
    } else {
      split_row(r, p.channels, b, c);
    }
  };
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    int64_t b, c;
    row_of(first + m * kThreads, b, c);
    taps[m] = forward_taps<T, W, Silu, Wt>(p, c);
  }
#pragma unroll
  for (int m = 0; m < Steps; ++m) {
    const int64_t j = first + m * kThreads;
#pragma unroll
    for (int h = 0; h < H; ++h) {
      uint4 up;  // lane - 1 - h's vector (every lane shuffles: the mask is whole)
      up.x = __shfl_up_sync(0xffffffffu, cur[m].raw.x, h + 1);
      up.y = __shfl_up_sync(0xffffffffu, cur[m].raw.y, h + 1);
      up.z = __shfl_up_sync(0xffffffffu, cur[m].raw.z, h + 1);
      up.w = __shfl_up_sync(0xffffffffu, cur[m].raw.w, h + 1);
      if (lane > h) before[m][h].raw = up;
      if ((j & row_mask) <= h) {  // before the row: INITIAL_STATES or zeros
        if (Prologue::kZeros && !p.initial.data) {
          before[m][h].raw = make_uint4(0, 0, 0, 0);
        } else {
          int64_t b, c;
          row_of(j, b, c);
          const int64_t t = h == 0 ? int64_t{-V} : ((j & row_mask) - 1 - h) * V;
          store_initial16<T, W>(p, b, c, t, 2, &before[m][h].raw);
        }
      }
    }
    A win[(H + 1) * V];  // vectors j - H .. j
#pragma unroll
    for (int h = 0; h < H; ++h) unpack<T, V>(before[m][h], win + (H - 1 - h) * V);
    unpack<T, V>(cur[m], win + H * V);
    A out[V];
    forward_vector<T, W, Silu>(taps[m], win + H * V - (W - 1), out);
    if (j < total) store_run<T, V>(y + j * V, out);
  }
}

}  // namespace baracuda::kernels::conv1d
