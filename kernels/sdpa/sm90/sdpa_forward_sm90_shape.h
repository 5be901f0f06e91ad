// How the Hopper attention forward (sdpa_forward_sm90.cuh) cuts its work, per
// compiled head-size tile (64, 128 or 256, the smallest holding D and Dv):
// 128 query rows a block (two consumer warpgroups of 64), key tiles of
// block_n rows in a ring of two stages, every tile in 64-column slabs of
// 128-byte rows as the 128-byte TMA swizzle lays them out. Host-includable,
// no CUDA: the plan layer asks it what a block needs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace baracuda::kernels {

struct SdpaSm90Shape {
  int block_m, block_n, stages, slabs;
};

constexpr SdpaSm90Shape sdpa_sm90_shape(int head_dim_tile) {
  // At 256 columns the O accumulator takes 128 registers a thread: S gets 64 keys.
  return {128, head_dim_tile == 256 ? 64 : 128, 2, head_dim_tile / 64};
}

constexpr int kSdpaSm90Threads = 384;  // two consumer warpgroups, then the producer's
constexpr size_t kSdpaSm90SwizzleAlign = 1024;  // a 128-byte-swizzle atom: 8 rows of 128 bytes

// Q, then per stage a K and a V tile, then the mbarriers (one for Q; per
// stage K and V full and empty), and the slack that aligns the tiles to a
// swizzle atom.
constexpr size_t sdpa_sm90_smem_bytes(int head_dim_tile) {
  const SdpaSm90Shape s = sdpa_sm90_shape(head_dim_tile);
  const size_t row_bytes = static_cast<size_t>(head_dim_tile) * 2;
  return (s.block_m + 2 * s.stages * s.block_n) * row_bytes + 8 * (1 + 4 * s.stages) + kSdpaSm90SwizzleAlign;
}

}  // namespace baracuda::kernels
