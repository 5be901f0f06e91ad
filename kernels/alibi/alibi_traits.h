// The ALiBi kernels' tuning knobs, all in one place. Plain constants,
// host-includable: the heuristics size tiles and grids from them and the
// kernels compile against them. Measurements: bench/NOTES.md.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

struct AlibiTraits {
  // 16-byte vectors of a tile (16 KiB): a block's threads share them evenly
  // and load all of theirs before using any.
  static constexpr int kTileVectors = 1024;
  // Threads per block of the forward and of the backward's pass over dy:
  // 4 vectors each, 64 bytes in flight per thread.
  static constexpr int kThreads = 256;
  // The f32 backward's blocks (its pass and its clusters): 128 threads of 8
  // vectors. On an H200, the decoding step [1,32,1,32768] in graph replay:
  // the cluster backward 2.78-2.80 -> 2.60-2.61 us a call, the two launches
  // 4.17 -> 3.67; [4,32,2048,2048] 93.5% -> 92.6-93.2% of copy. bf16 blocks
  // of 128 fell to 84.5% there, and the f32 forward's gained nothing
  // (bench/NOTES.md, session 16).
  static constexpr int kF32BackwardThreads = 128;
  // Blocks per SM the 32-bit index pass kernels are compiled for (a register
  // cap on 256-thread blocks): with the loads of a tile all in flight,
  // occupancy is what keeps enough bytes in flight per SM. They take 56-80
  // registers, no spills.
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
