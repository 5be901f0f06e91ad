// The row tiles' tuning knobs (pad_forward_tiles.cuh, pad_backward_tiles.cuh),
// all in one place. Plain constants, host-includable. scripts/variants.sh
// builds a scratch copy with members of this struct patched
// ("PadTilesTraits.kTileBytes=8192") to time other values.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

struct PadTilesTraits {
  // Threads per block: a block stages a tile of rows through shared memory,
  // so it needs enough threads to keep a tile's loads in flight at once.
  static constexpr int kThreads = 256;
  // Output bytes a forward block writes (whole rows, at least one): the
  // tile's source rows then fill about as many bytes of shared memory.
  static constexpr int64_t kTileBytes = 16384;
  // Accumulators (elements) per thread of the backward: a block's tile is
  // kThreads * kSumElements dx elements, each thread's kept in registers
  // while the tile's dy rows are staged layer by layer.
  static constexpr int kSumElements = 16;
  // Blocks per SM the backward's registers are cut for (64 each): with
  // fewer, too few tiles' loads are in flight while the others sum.
  static constexpr int kSumMinBlocks = 4;
  // The longest rows the forward's tiles take, output and staged source
  // alike: longer rows reach 88-97% of copy on the row kernel already
  // (bench/NOTES.md).
  static constexpr int64_t kMaxRowBytes = 4096;
  // The longest dx and dy rows the backward's tiles take.
  static constexpr int64_t kMaxSumRowBytes = 4096;
};

}  // namespace baracuda::kernels
