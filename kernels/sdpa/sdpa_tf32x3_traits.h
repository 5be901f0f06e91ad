// The f32 attention forward on tensor cores (sdpa_fwd_sm80_3xtf32): its
// tuning knobs, one SdpaTcConfig per compiled head-size tile. Plain
// constants, host-includable.
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
// the scores m_atoms * block_n / 2. Every operand fragment is split as it is
// read: two 16-row tiles per warp split each K and V fragment once for both
// (measured on the H200 at D 64: 20-30% faster than one tile per warp, with 4
// or 8 warps; at D 128 48% faster than one tile per warp with 32-key tiles,
// bench/NOTES.md session 13). f32 tiles are twice the bf16 ones: the configs
// keep two blocks per SM on sm_90 (227 KiB) at D 64 and 128, D 128 with one K
// and one V slot (stages 1, 101 KiB; a two-stage ring of 16-key tiles ran
// 10% slower), and every one fits sm_80's 163 KiB.
constexpr SdpaTcConfig sdpa_tf32x3_config(int head_dim_tile) {
  if (head_dim_tile <= 64) return {4, 2, 32, 2, 2};
  if (head_dim_tile <= 128) return {4, 2, 32, 1, 2};
  return {4, 1, 16, 2, 1};
}

}  // namespace baracuda::kernels
