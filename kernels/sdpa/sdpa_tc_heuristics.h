// How the tensor-core forward kernels cut a problem: the compiled head-size
// tile that serves D and Dv, the query tiles, the grid and the shared memory.
// Host-only, no CUDA: tested on the CPU, and the plan layer can ask whether a
// device's shared memory holds a variant's tiles.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "sdpa/sdpa_tc_traits.h"

namespace baracuda::kernels {

// The smallest compiled head-size tile holding both D and Dv (multiples of 8
// up to 256): the kernels zero-fill and skip the columns past D and Dv.
inline int sdpa_tc_head_dim_tile(int head_dim, int head_dim_v) {
  const int widest = head_dim > head_dim_v ? head_dim : head_dim_v;
  return widest <= 64 ? 64 : widest <= 128 ? 128 : 256;
}

constexpr int sdpa_tc_threads(const SdpaTcConfig &c) { return c.warps * 32; }

// Query rows per block.
constexpr int sdpa_tc_block_m(const SdpaTcConfig &c) { return 16 * c.m_atoms * c.warps; }

// Dynamic shared memory of one block: the Q tile (reused for the output) and
// `stages` K and V tiles, in 2-byte elements.
constexpr size_t sdpa_tc_smem_bytes(const SdpaTcConfig &c, int head_dim_tile) {
  return static_cast<size_t>(sdpa_tc_block_m(c) + 2 * c.stages * c.block_n) * head_dim_tile * 2;
}

// The shared memory the variant needs for these head sizes.
inline size_t sdpa_tc_smem_bytes(SdpaTcVariant variant, int head_dim, int head_dim_v) {
  const int tile = sdpa_tc_head_dim_tile(head_dim, head_dim_v);
  return sdpa_tc_smem_bytes(sdpa_tc_config(variant, tile), tile);
}

// Query tiles of one (b, h), and of the whole problem: one block's work each.
inline int64_t sdpa_tc_query_tiles(int64_t queries, const SdpaTcConfig &c) {
  return (queries + sdpa_tc_block_m(c) - 1) / sdpa_tc_block_m(c);
}
inline int64_t sdpa_tc_tiles(int64_t batch, int64_t heads_q, int64_t queries, const SdpaTcConfig &c) {
  return batch * heads_q * sdpa_tc_query_tiles(queries, c);
}

// One block per tile; past 2^31 - 1 tiles the blocks walk the rest.
inline int64_t sdpa_tc_grid_blocks(int64_t tiles) { return tiles < INT_MAX ? tiles : INT_MAX; }

}  // namespace baracuda::kernels
