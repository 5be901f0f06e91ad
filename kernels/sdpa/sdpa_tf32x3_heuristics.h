// How the f32 tensor-core forward lays out its shared memory, and how much it
// needs. Host-only, no CUDA: tested on the CPU, and the plan layer refuses
// the kernel on devices whose blocks hold less. The query tiles and the grid
// are the tensor-core forward's (sdpa_tc_heuristics.h).
#pragma once

#include <cstddef>

#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sdpa_tf32x3_traits.h"

namespace baracuda::kernels {

// Row pitches of the shared tiles in floats. A warp reads Q and K as float2
// at (row g, column 2t) and V as floats at (row 2t, column g), g = lane / 4,
// t = lane % 4: a pitch of 8 (mod 32) spreads the first over all 32 banks in
// each half-warp, one of 4 (mod 32) the second over all 32 banks.
constexpr int sdpa_tf32x3_qk_pitch(int head_dim_tile) { return head_dim_tile + 8; }
constexpr int sdpa_tf32x3_v_pitch(int head_dim_tile) { return head_dim_tile + 4; }

// Dynamic shared memory of one block: the Q tile and `stages` K and V tiles.
constexpr size_t sdpa_tf32x3_smem_bytes(const SdpaTcConfig &c, int head_dim_tile) {
  const size_t qk = sdpa_tf32x3_qk_pitch(head_dim_tile), v = sdpa_tf32x3_v_pitch(head_dim_tile);
  return (sdpa_tc_block_m(c) * qk + static_cast<size_t>(c.stages) * c.block_n * (qk + v)) * sizeof(float);
}

// The shared memory the kernel needs for these head sizes.
inline size_t sdpa_tf32x3_smem_bytes(int head_dim, int head_dim_v) {
  const int tile = sdpa_tc_head_dim_tile(head_dim, head_dim_v);
  return sdpa_tf32x3_smem_bytes(sdpa_tf32x3_config(tile), tile);
}

}  // namespace baracuda::kernels
