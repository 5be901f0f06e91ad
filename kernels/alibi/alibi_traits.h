// The ALiBi kernels' tuning knobs, all in one place. Plain constants,
// host-includable: the heuristics size tiles and grids from them and the
// kernels compile against them. Measurements: bench/NOTES.md.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

struct AlibiTraits {
  // Threads per block of the forward and of the backward's pass over dy.
  static constexpr int kThreads = 256;
  // 16-byte vectors per thread in one tile, loaded together before any is
  // used, so that 64 bytes per thread are in flight.
  static constexpr int kVectorsPerThread = 4;
  // Blocks per SM the 32-bit index pass kernels are compiled for (a register
  // cap): with the loads of a tile all in flight, occupancy is what keeps
  // enough bytes in flight per SM. They take 56-80 registers, no spills.
  static constexpr int kMinBlocksPerSm = 3;
  // The same for the 64-bit index variants (2^31 tiles or more, or Q + K
  // past 2^24), which hold wider cells and spill 16-bit types at 3.
  static constexpr int kMinBlocksPerSmWide = 2;
  // The pass kernels walk their tiles with a grid of at most this many blocks.
  static constexpr int64_t kMaxGridBlocks = 8192;
  // Threads of the backward's second launch, one block per slope.
  static constexpr int kReduceThreads = 256;
  // On sm_90 a backward whose slopes have at most this many tiles each can
  // run as one launch (candidate alibi_bwd_clusters): a thread-block cluster
  // per slope adds its blocks' partial sums through distributed shared
  // memory. 8 is the portable cluster size.
  static constexpr int kMaxClusterTiles = 8;
};

}  // namespace baracuda::kernels
