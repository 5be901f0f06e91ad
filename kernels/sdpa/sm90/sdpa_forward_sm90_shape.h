// How the Hopper attention forward (sdpa_forward_sm90.cuh) cuts its work, per
// compiled head-size tile (64, 128 or 256, the smallest holding D and Dv):
// 64 query rows per consumer warpgroup, key tiles of
// block_n rows in a ring of two stages, every tile in 64-column slabs of
// 128-byte rows as the 128-byte TMA swizzle lays them out. Host-includable,
// no CUDA: the plan layer asks it what a block needs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace baracuda::kernels {

struct SdpaSm90Shape {
  int consumers;  // warpgroups of 64 query rows each; one more warpgroup produces
  int block_n, stages, slabs;
  int blocks;  // per SM, which splits the registers (sdpa_sm90_consumer_registers)
  constexpr int block_m() const { return 64 * consumers; }
  constexpr int threads() const { return 128 * (consumers + 1); }
};

constexpr SdpaSm90Shape sdpa_sm90_shape(int head_dim_tile) {
  // At 256 columns the O accumulator takes 128 registers a thread: S gets 64 keys.
  return {2, head_dim_tile == 256 ? 64 : 128, 2, head_dim_tile / 64, 1};
}

constexpr int kSdpaSm90ProducerRegisters = 24;

// A consumer thread's registers once the producer has given back all but 24
// of its own: the block's share of the SM's 64K (per thread a multiple of
// 8, as the launch allocates them), less the producer's, over the consumers.
constexpr int sdpa_sm90_consumer_registers(const SdpaSm90Shape &s) {
  const int launch = 65536 / (s.threads() * s.blocks) / 8 * 8;
  return (launch * s.threads() - 128 * kSdpaSm90ProducerRegisters) / (128 * s.consumers) / 8 * 8;
}
static_assert(sdpa_sm90_consumer_registers({2, 128, 2, 1, 1}) == 240 &&
              sdpa_sm90_consumer_registers({3, 128, 2, 1, 1}) == 160);

constexpr size_t kSdpaSm90SwizzleAlign = 1024;  // a 128-byte-swizzle atom: 8 rows of 128 bytes

// Q, then per stage a K and a V tile, then the mbarriers (one for Q; per
// stage K and V full and empty), and the slack that aligns the tiles to a
// swizzle atom.
constexpr size_t sdpa_sm90_smem_bytes(int head_dim_tile) {
  const SdpaSm90Shape s = sdpa_sm90_shape(head_dim_tile);
  const size_t row_bytes = static_cast<size_t>(head_dim_tile) * 2;
  return (s.block_m() + 2 * s.stages * s.block_n) * row_bytes + 8 * (1 + 4 * s.stages) + kSdpaSm90SwizzleAlign;
}

}  // namespace baracuda::kernels
