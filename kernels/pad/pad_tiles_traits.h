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
  // Rows of up to kLongRowBytes in tiles of kTileBytes, longer ones in
  // tiles of kLongTileBytes (H200, bench/NOTES.md session 16: with 16 KiB
  // tiles 13 of the probe's 32 short forward rows reached 88% of copy, with
  // 32 KiB 8; rows of 8-32 KiB ran at 89-98% in 32 KiB tiles).
  static constexpr int64_t kTileBytes = 16384;
  static constexpr int64_t kLongRowBytes = 4096;
  static constexpr int64_t kLongTileBytes = 32768;
  // The longest rows the forward's tiles take, output and staged source
  // alike (what fits the shared memory beside the tile's bookkeeping).
  static constexpr int64_t kMaxRowBytes = 36864;
  // Blocks per SM the forward's registers are cut for (40 a thread, no
  // spill): its edge vectors want a few more than that otherwise.
  static constexpr int kTileMinBlocks = 6;
  // Rows of at most kMaxSlotRowBytes (output and staged source) take the
  // forward's slot tiles, in tiles of about kSlotTileBytes of output
  // (session 19, H200: rank-5 rows of 264-536 bytes ran 1-8 points of copy
  // ahead of the row tiles; 16-bit rows of 1028 bytes padded by 1 4-5
  // points behind, f32 ones of 2056 bytes 6 behind, rows of 16 KiB and more
  // 3-10 behind; 32 KiB slot tiles level to 5 points behind 16 KiB on rank 5;
  // session 21, with the lighter tiles: 17152 bytes, 64 rows of 264 or 268
  // bytes, ran level to 2 points ahead of 16384 on 16-bit and f32 rank 5,
  // 18432 0.3-1.1 behind 17152).
  static constexpr int64_t kMaxSlotRowBytes = 1024;
  static constexpr int64_t kSlotTileBytes = 17152;
  // At most this many slot-tile blocks an SM (0: as many as fit), their
  // shared memory padded so that no more fit, and the kernel's registers cut
  // to fit them (session 20, H200: 6 blocks an SM ran 1-3 points of copy
  // ahead of 8 on 16-bit rank-5 rows: fewer tiles in flight wait less on the
  // memory system; session 21, with some 40% fewer instructions a tile: 8
  // blocks, 32 registers, 0.5-1.1 points ahead of 6 on 16-bit rank 5 in one
  // run, -1.4 to +2.4 in another, while f32's constant kernel spills at 32
  // registers and keeps 6).
  static constexpr int kSlotBlocksPerSm = 6;
  static constexpr int kSlotBlocksPerSm16 = 8;
  static constexpr int slot_blocks_per_sm(int bytes) { return bytes == 2 ? kSlotBlocksPerSm16 : kSlotBlocksPerSm; }
  // A slot-tile block has L2 fetch the input of the tile half a wave of
  // resident blocks after its own, this many blocks an SM (session 22, H200,
  // rank-5 rows: 16-bit at 4 (of 8 an SM) and f32 at 3 (of 6) 2-4 points of
  // copy ahead of none; 16-bit at 2 1-2 ahead, at 6 4 behind, at 8 (a wave
  // ahead) 10-13 behind).
  static constexpr int slot_prefetch_blocks_per_sm(int bytes) { return slot_blocks_per_sm(bytes) / 2; }
  // dx bytes a backward block writes (whole rows, at most one a thread):
  // its dy source rows are staged, all at once where they fit, and summed
  // from shared memory (session 17, H200: 32 KiB ran 1-5 points of copy
  // ahead of 16 KiB on the rank-4 rows, level on rank 5, 13 points ahead on
  // 16-bit rows of 8192 padded by 100 and 300; 8 KiB lost 3-15 points).
  static constexpr int64_t kSumTileBytes = 32768;
  // Staged dy rows a backward block has room for beyond one a dx row, in
  // percent of its dx rows (rounded down; at least the most sources a row
  // has): a tile whose rows have more sources (rows on an outer pad) stages
  // and sums them in several rounds. Session 20 (H200, the folded tiles):
  // 15% against 25% took f32 rank-5 rows 76-87 -> 82-89% of copy and 16-bit
  // rank-4 rows padded by 16 86-88 -> 88-90% (more tiles an SM, 128-row
  // bf16 rank-5 tiles), bf16 rank 5 level.
  static constexpr int kSumSpareSlotsPercent = 15;
  // Blocks per SM the backward's registers are cut for (48 registers, no
  // spill), one kernel a dtype and mode: session 19 cut rows under 1 KiB
  // for 6 (40 registers) in a second kernel; session 20 (H200), with the
  // folded tiles' shared memory holding rank-5 tiles to 4-5 an SM, 48 for
  // every row against the two: f32 rank 5 level to 2 points of copy ahead,
  // 16-bit rank 5 level to 4 behind (odd rows), and the translation unit's
  // compile a quarter shorter (the build's budget).
  static constexpr int kSumMinBlocks = 5;
  // The longest dx and dy rows the backward's tiles take (session 16: rows
  // of 8 to 32 KiB ran at 54-85% of copy in layered tiles against 74-93% on
  // the passes), and the longest where the row's columns of several inner
  // sources span at least kSumBandBytes (session 17, H200, reflect and
  // circular: rows of 8192 padded by 100 and 300 ran at 96% of copy in f32
  // tiles and 77-79% in 16-bit, against 48-70% on the passes, whose cells
  // kernel sums such columns; with a band of 32 bytes f32 rows of 8192
  // padded by 3 and 5 92 -> 95%, 16-bit rows of 4096 padded by 7 and 9 on
  // a padded outer axis 73-75 -> 82-85%, f32 ones level; session 20, the
  // folded tiles, a band of 16 bytes: 16-bit rows of 8192 padded by 3 and
  // 5 reflect and circular 84-86 -> 90-92%, replicate level).
  static constexpr int64_t kMaxSumRowBytes = 4096;
  static constexpr int64_t kMaxBandSumRowBytes = 36864;
  static constexpr int64_t kSumBandBytes = 16;
  // Replicate's edge cells of at least this many copies (a thread adds
  // each one's in turn) are summed beside the writes of the vectors without
  // them, which wait a barrier less (session 23: rows of 8192 padded by 100
  // and 300 in tiles, H200 16-bit 83 -> 90-91% of copy, f32 92 -> 96-97%;
  // from 16 copies, H100, rows of 512 padded by 16 lost 1-4 points).
  static constexpr int64_t kSumLateEdgeCopies = 64;
};

}  // namespace baracuda::kernels
