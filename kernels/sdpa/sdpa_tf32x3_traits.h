// The f32 attention forward on tensor cores (sdpa_fwd_sm80_3xtf32): its
// tuning knobs, one SdpaTcConfig per compiled head-size tile. Plain
// constants, host-includable.
#pragma once

#include "sdpa/sdpa_tc_traits.h"

namespace baracuda::kernels {

// Per thread the O accumulator takes m_atoms * head_dim_tile / 2 floats and
// the scores m_atoms * block_n / 2. The tiles are split into tf32 halves in
// shared memory once they land, the split Q tile 1.9x the f32 one and the K
// and V tiles 1.6x (sdpa_tf32x3_heuristics.h). Measured on the H200, B4 H16
// S2048 (bench/NOTES.md session 14): D 64 keeps two 16-row tiles per warp and
// a two-stage ring of 32-key tiles, two blocks an SM with no byte to spare
// (113 KiB; 64-key tiles on one slot ran 2-5% slower, 8 warps of one tile
// 16-21%); D 128 eight warps of one 16-row tile and one K and one V slot of
// 32 keys, one block an SM (159 KiB: 8% / 3% ahead of two blocks of 4 warps,
// 16-key tiles 13-15% behind); D 256 one slot of 16 keys (151 KiB). Every
// one fits sm_80's 163 KiB.
//
// wide: the tiles for blocks of up to 227 KiB (sm 90, 100-103), which the
// entry takes where the device's blocks hold them. They differ at the 128
// tile alone: eight warps of one 16-row tile and 64-key K and V slots
// (214 KiB: 9% / 8% ahead of the 32-key slots on the H200, bench/NOTES.md
// session 15, where a two-stage ring of 32 keys gained nothing).
// Every config reads the views' alignment at run time (as the f16 / bf16
// kernels' 256 tile does, sdpa_tc_traits.h; one kernel per alignment was
// not measured for f32).
constexpr SdpaTcConfig sdpa_tf32x3_config(int head_dim_tile, bool wide = false) {
  constexpr SdpaTcExponentials kInSoftmax = SdpaTcExponentials::kInSoftmax;
  if (head_dim_tile <= 64) return {4, 2, 32, 2, 2, kInSoftmax, true};
  if (head_dim_tile <= 128)
    return wide ? SdpaTcConfig{8, 1, 64, 1, 1, kInSoftmax, true}
                : SdpaTcConfig{8, 1, 32, 1, 1, kInSoftmax, true};
  return {4, 1, 16, 1, 1, kInSoftmax, true};
}

}  // namespace baracuda::kernels
