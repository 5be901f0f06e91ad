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
// This header: what both layouts share; the kernels are in
// conv1d_time_tiles.cuh and conv1d_channel_tiles.cuh.
#pragma once

#include "common/async_copy.cuh"
#include "common/overlap_launch.cuh"
#include "causal_conv1d/conv1d_math.cuh"

namespace baracuda::kernels::conv1d {

// Stages of the async-copy ring (conv1d_traits.h).
constexpr int kStages = Conv1dTraits::kStages;

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

}  // namespace baracuda::kernels::conv1d
