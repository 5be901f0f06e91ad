// The row kernels' tuning knobs (gather_rows.cuh and its tiling,
// rows_tiling.cuh; pad backward's passes run on the same tiling), all in one
// place, measured on the H200. Plain constants, host-includable.
// scripts/variants.sh builds a scratch copy with members of this struct
// patched ("GatherRowsTraits.kThreads=128") to time other values.
#pragma once

namespace baracuda::kernels {

struct GatherRowsTraits {
  // Threads per block: 64 beats 128 and 256 (more, shorter-lived blocks per
  // SM hide each block's set-up better).
  static constexpr int kThreads = 64;
  // Blocks per SM the register budget is cut for, with 64-thread blocks: 4
  // for 1- and 2-byte elements, 3 for wider ones (at that block size neither
  // caps the registers the compiler wants).
  static constexpr int kMinBlocksNarrow = 4;
  static constexpr int kMinBlocksWide = 3;
  // Batches of kUnitsPerThread units per thread in one block's chunk of a
  // long row: long chunks keep the per-block set-up small beside the bytes moved.
  static constexpr int kChunkBatches = 4;
};

}  // namespace baracuda::kernels
