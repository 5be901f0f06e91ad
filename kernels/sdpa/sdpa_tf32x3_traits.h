// The f32 attention forward on tensor cores (3xTF32): its tuning knobs, one
// SdpaTcConfig per compiled head-size tile. Plain constants, host-includable.
#pragma once

#include "sdpa/sdpa_tc_traits.h"

namespace baracuda::kernels {

struct SdpaTf32x3Traits {
  // How each product's correction terms a_big b_small + a_small b_big run
  // (sdpa_tf32_split.cuh): false, two tf32 MMAs (3xTF32, about 2^-22
  // relative per product); true, one bf16 m16n8k16 MMA (about 2^-20).
  static constexpr bool kBf16Corrections = true;
};

// Per thread the O accumulator takes m_atoms * head_dim_tile / 2 floats and
// the scores m_atoms * block_n / 2. Each product is three tf32 MMAs, and
// every operand fragment is split into two tf32 halves as it is read: two
// 16-row tiles per warp split each K and V fragment once for both. f32
// tiles are twice the bf16 ones, so the configs keep two blocks per SM on
// sm_90 (227 KiB) at D 64 and 128, and every one fits sm_80's 163 KiB (not
// the 99 KiB of sm 86 / 89, where the CUDA-core kernel serves f32). At D 64,
// 64-key tiles with two 16-row tiles per warp pass 255 registers and spill.
constexpr SdpaTcConfig sdpa_tf32x3_config(int head_dim_tile) {
  if (head_dim_tile <= 64) return {4, 2, 32, 2, 2};
  if (head_dim_tile <= 128) return {4, 1, 32, 2, 2};
  return {4, 1, 16, 2, 1};
}

}  // namespace baracuda::kernels
