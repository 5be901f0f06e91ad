// How the f32 tensor-core forward lays out its shared memory, and how much it
// needs. Host-only, no CUDA: tested on the CPU, and the plan layer refuses
// the kernel on devices whose blocks hold less. The query tiles and the grid
// are the tensor-core forward's (sdpa_tc_heuristics.h).
#pragma once

#include <cstddef>

#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sdpa_tf32x3_traits.h"

namespace baracuda::kernels {

// The shared tiles. Each lands as f32 rows (`pitch` floats apart), and once
// it has landed a pass over it splits every element into its tf32 big half
// and its small half (sdpa_tf32x3_tile_io.cuh), the small halves as bf16
// pairs in a plane after the tile's rows; g = lane / 4, t = lane % 4 below.
//
// K and V keep their rows: big halves read as float2 at (row g, column 2t)
// for K and as floats at (row 2t, column g) for V, a pitch of 8 (mod 32)
// spreading the first over all 32 banks in each half-warp, one of 4 (mod 32)
// the second; the small plane pairs K's columns 2c and 2c + 1 (read at row g,
// word t: a pitch of 4 mod 32) and V's rows 2r and 2r + 1 (read at row pair
// t, column g: 8 mod 32).
//
// Q's split rewrites rows g and g + 8 of each 16-row MMA tile as the MMA's
// A fragments, one float4 a thread (read at word 4t of a row: a pitch of 16
// mod 32 puts each 8-lane phase of the read on 32 banks), its small pairs
// one 8-byte word (read at word 2t: 8 mod 32).
constexpr int sdpa_tf32x3_q_pitch(int head_dim_tile) { return head_dim_tile + 16; }
constexpr int sdpa_tf32x3_q_small_pitch(int head_dim_tile) { return head_dim_tile / 2 + 8; }
constexpr int sdpa_tf32x3_k_pitch(int head_dim_tile) { return head_dim_tile + 8; }
constexpr int sdpa_tf32x3_k_small_pitch(int head_dim_tile) { return head_dim_tile / 2 + 4; }
constexpr int sdpa_tf32x3_v_pitch(int head_dim_tile) { return head_dim_tile + 4; }
constexpr int sdpa_tf32x3_v_small_pitch(int head_dim_tile) { return head_dim_tile + 8; }

// Bytes of the Q tile, a K tile and a V tile with their small planes.
constexpr size_t sdpa_tf32x3_q_tile_bytes(int rows, int head_dim_tile) {
  return static_cast<size_t>(rows) * (sdpa_tf32x3_q_pitch(head_dim_tile) + sdpa_tf32x3_q_small_pitch(head_dim_tile)) *
         sizeof(float);
}
constexpr size_t sdpa_tf32x3_k_tile_bytes(int rows, int head_dim_tile) {
  return static_cast<size_t>(rows) * (sdpa_tf32x3_k_pitch(head_dim_tile) + sdpa_tf32x3_k_small_pitch(head_dim_tile)) *
         sizeof(float);
}
constexpr size_t sdpa_tf32x3_v_tile_bytes(int rows, int head_dim_tile) {
  return (static_cast<size_t>(rows) * sdpa_tf32x3_v_pitch(head_dim_tile) +
          static_cast<size_t>(rows / 2) * sdpa_tf32x3_v_small_pitch(head_dim_tile)) *
         sizeof(float);
}

// Dynamic shared memory of one block: the Q tile and `stages` K and V tiles.
constexpr size_t sdpa_tf32x3_smem_bytes(const SdpaTcConfig &c, int head_dim_tile) {
  return sdpa_tf32x3_q_tile_bytes(sdpa_tc_block_m(c), head_dim_tile) +
         static_cast<size_t>(c.stages) *
             (sdpa_tf32x3_k_tile_bytes(c.block_n, head_dim_tile) + sdpa_tf32x3_v_tile_bytes(c.block_n, head_dim_tile));
}

// The shared memory the kernel needs for these head sizes: its narrow
// tiles', which every device from sm_80 on holds (wide: the wide tiles').
inline size_t sdpa_tf32x3_smem_bytes(int head_dim, int head_dim_v, bool wide = false) {
  const int tile = sdpa_tc_head_dim_tile(head_dim, head_dim_v);
  return sdpa_tf32x3_smem_bytes(sdpa_tf32x3_config(tile, wide), tile);
}

}  // namespace baracuda::kernels
