// The causal conv1d kernels' tuning knobs, all in one place (measured on the
// H200; see bench/NOTES.md). Plain constants, host-includable: the
// heuristics size grids from them and the kernels compile against them.
// scripts/variants.sh builds a scratch copy with members of this struct
// patched ("Conv1dTraits.kStages=2") to time other values.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

struct Conv1dTraits {
  // Widths served: 2 .. kMaxWidth, each its own instantiation of every kernel.
  static constexpr int kMinWidth = 2;
  static constexpr int kMaxWidth = 8;
  // Threads per block of every conv1d kernel.
  static constexpr int kThreads = 128;
  // Timesteps of a channel walk (and of a backward dw/db partial-sum slot);
  // a time-segment block covers at most as many.
  static constexpr int kChunk = 256;

  // Element-wise time kernels (tvec): a warp takes kSegmentSteps * 32
  // consecutive timesteps of a row, 32 at a time, with the loads of
  // kPrefetch steps in flight together, forward and backward.
  static constexpr int kSegmentSteps = 8;
  static constexpr int kPrefetch = 4;

  // Staged kernels: stages of the async-copy ring; vectors per thread in a
  // time tile (per direction; the row groups, the backward's alone since
  // session 20, take the backward's);
  // time tiles per block (consecutive tiles of a row, per direction); the
  // bytes of one tensor's box in a channel tile. Session 16 (H200, whole
  // passes in CUDA graphs, bf16 f32w W4 SiLU, bench/NOTES.md): forward tiles
  // of 2 vectors a thread (4 KB, 9 blocks an SM at 56 registers) against 4:
  // [8,2048,4096] 70.7 -> 66.7 us, [8,2048,32768] 563 -> 533, [128,2048,4096]
  // 1095 -> 1047, f32 [8,4096,4096] 268 -> 265; row groups [64,2048,1024]
  // 148 -> 146, f32 [64,2048,512] 142 -> 135 ([8,2048,1024] 23.4 -> 23.9).
  // 8 vectors with 2 stages lost but at [64,2048,1024] (144 us); block rows
  // capped so that a block walks several rows through its ring lost 2-20%
  // everywhere, forward and backward: one-tile blocks stay. Rows of
  // several tiles, 16-bit forward: 2 tiles a block against 8 (second probe,
  // same card): [8,4096,8192] 265.8 -> 257.6 us, [8,2048,32768] 535.5 ->
  // 512.8, [1,2048,32768] 77.6 -> 74.0 (1 tile a block: 328, 650, 85; 4:
  // 266, 527, 76). f32 and f64 keep 8 (f32 [8,4096,4096] at 8: 266.5; the
  // runs at 2 and 4 read 285-291, 4 with 8's very grid: not settled). The
  // backward keeps 8 (2 or 4 tiles a block: [8,2048,32768] 849 -> 832, f32
  // [8,4096,4096] at 2 398.7 -> 411.0, and the dw/db slots' order changes).
  static constexpr int kStages = 3;
  static constexpr int kForwardTileSteps = 2;
  static constexpr int kBackwardTileSteps = 2;
  static constexpr int kForwardTilesPerBlock = 2;      // 2-byte elements
  static constexpr int kForwardTilesPerBlockWide = 8;  // f32, f64
  static constexpr int kBackwardTilesPerBlock = 8;
  static constexpr int time_tiles_per_block(bool backward, int elem_bytes) {
    if (backward) return kBackwardTilesPerBlock;
    return elem_bytes <= 2 ? kForwardTilesPerBlock : kForwardTilesPerBlockWide;
  }
  // The time tiles' backward: vectors per thread in a tile (the row groups'
  // backward keeps kBackwardTileSteps), stages of its ring, and the blocks
  // per SM it is compiled for (which caps its registers: 80 at 6 blocks, 64
  // at 8, 40 at 12), per element size. ncu found it issue-bound (session 12:
  // ~59 instructions an element against Tri Dao's ~38). Its math is about 3W
  // FMAs and the slope an element; a tile adds about 250 instructions a
  // thread (staging, the W-1 g after each warp's run, the ring's barriers),
  // so in 16 bits a tile of 4 vectors a thread (4096 timesteps) costs ~34 an
  // element where 2 cost ~43, and it was the fastest (bf16 [8,4096,8192] W4
  // 0.423 ms, 0.442-0.460 for the others; two stages of 16 KiB of x and dy
  // each fit 6 blocks; widths 5-8 fit 80 registers too, where at 2 vectors
  // and 12 blocks, 40 registers, they spilled). f32 was fastest at 2 vectors
  // (1024 timesteps), 3 stages and 8 blocks (f32 [8,4096,8192] W4 0.807 ms,
  // 0.832 at the 16-bit setting, 0.816 before it; measured, not explained:
  // an f32 tile holds half the timesteps, and half the math, of a 16-bit
  // tile of the same bytes). f64 keeps the 16-bit setting, uncapped.
  static constexpr int kBackwardTimeTileSteps = 4;
  static constexpr int kBackwardTimeStages = 2;
  static constexpr int kBackwardTimeBlocks = 6;
  static constexpr int kBackwardTimeTileStepsF32 = 2;
  static constexpr int kBackwardTimeStagesF32 = 3;
  static constexpr int kBackwardTimeBlocksF32 = 8;
  static constexpr int backward_time_tile_steps(int elem_bytes) {
    return elem_bytes == 4 ? kBackwardTimeTileStepsF32 : kBackwardTimeTileSteps;
  }
  static constexpr int backward_time_stages(int elem_bytes) {
    return elem_bytes == 4 ? kBackwardTimeStagesF32 : kBackwardTimeStages;
  }
  static constexpr int backward_time_blocks(int elem_bytes) {
    if (elem_bytes > 4) return 1;
    return elem_bytes == 4 ? kBackwardTimeBlocksF32 : kBackwardTimeBlocks;
  }
  // The register tiles' backward (conv1d_register_tiles.cuh: one-tile
  // blocks of the time tiles' backward with a warp's run in registers): the
  // blocks an SM it is compiled for (64 registers to W 6; 7 blocks lost
  // 0.5-6%), its tile's vectors a lane (16 bits: the time tiles' value),
  // and whether rows of several whole tiles take it too (a block a tile).
  // Session 19 (H200, bf16 x with f32 weights, W 4, bias + SiLU,
  // bench/NOTES.md): [8,4096,4096] 229.5 -> 189.9 us (Tri Dao's 212.0),
  // [64,2048,4096] 902 -> 782; rows of several tiles [8,4096,8192] 455 -> 414,
  // f16 W3 [2,1536,16384] 86.3 -> 75.0, [64,768,32768] 2568 / 2576 (f32 rows
  // of several 2-vector tiles as one-tile blocks lost 5-11% to the staged
  // ring). Session 20: f32 at 4 vectors a lane (tiles of 2048 timesteps),
  // rows of several a block a tile, against the staged ring: [8,4096,4096] W4
  // 400.4 -> 377.2, [8,4096,8192] 808.9 -> 747.7, [64,2048,4096] 1601 -> 1480.
  static constexpr int kBackwardRegisterBlocks = 8;
  static constexpr int kBackwardRegisterBlocksW8 = 6;  // W 7, 8 (at 64 registers W 8 spilled 56 bytes)
  static constexpr int backward_register_blocks(int width) {
    return width <= 6 ? kBackwardRegisterBlocks : kBackwardRegisterBlocksW8;
  }
  static constexpr int kBackwardRegisterTileSteps = 4;
  static constexpr int kBackwardRegisterTileStepsF32 = 4;
  static constexpr int backward_register_tile_steps(int elem_bytes) {
    return elem_bytes == 4 ? kBackwardRegisterTileStepsF32 : kBackwardRegisterTileSteps;
  }
  static constexpr bool kBackwardRegisterOneTileAll = true;
  // Rows of an even number of 16-bit register tiles, W 2-4 with SiLU (the
  // shapes Mamba runs; other widths and SiLU off keep a tile a block): two
  // tiles a block (backward_register_tile_pairs_kernel) while the grid keeps
  // at least kBackwardRegisterMinBlocks blocks, the row's prologue once for
  // two tiles. Session 24 (H200, bf16 x with f32 weights, W 4, SiLU, against
  // a tile a block): [64,768,32768] 2654 -> 2502 us, [8,2048,32768] 795 ->
  // 764, [8,4096,8192] 381 -> 379; four or eight a block no better there
  // (8: [8,2048,32768] 772 against 754 at two), and [1,2048,32768] at 2048
  // blocks of 8 lost 8% (session 23). f32's 2048-timestep tiles lost 1-5% at
  // 2-8 a block.
  static constexpr int kBackwardRegisterPairsMaxWidth = 4;
  static constexpr int64_t kBackwardRegisterMinBlocks = 32768;
  static constexpr bool register_tile_pairs(int elem_bytes, int width, bool silu) {
    return elem_bytes == 2 && width <= kBackwardRegisterPairsMaxWidth && silu;
  }
  // Rows of one or two warps' runs (16-bit L 1024 and 2048, f32 L 512 and
  // 1024, which the row groups and the staged tiles took) take the register
  // rows, a warp a run (conv1d_register_tiles.cuh; session 20: bf16
  // [8,2048,1024] 44.4 -> 30.5 us, [8,2048,2048] 92.4 -> 55.4, f32
  // [64,2048,512] W4 228.9 -> 198.4; f32 [1,2048,1024] 8.8 -> 10.3, half the
  // blocks of a one-tile row at 2 vectors a lane).
  static constexpr bool kBackwardRegisterWarpRows = true;
  static constexpr bool register_warp_rows(int elem_bytes) { return kBackwardRegisterWarpRows && elem_bytes <= 4; }
  static constexpr bool register_one_tile_all(int elem_bytes) {
    return kBackwardRegisterOneTileAll && elem_bytes <= 4;
  }
  // Row groups: [B, C, L] rows of at most half a time tile (L <= 1024 in
  // 16-bit, forward) staged whole, several to a tile, so that a block's tile
  // holds a full tile's bytes (a short row alone left most threads idle and
  // a block a row's bytes in flight: 25-50% of copy). A row's vectors, a
  // power of two, at least kGroupMinVecs (the tile's halo slots and the
  // backward's sums per segment are sized for it). A block streams about
  // kGroupTilesPerBlock tiles through its ring (one wave of blocks each
  // taking many tiles lost up to half its time to the partial second wave
  // of the backward's 7 blocks per SM), but the grid has kGroupMinBlocks
  // while there are tiles for them. Session 15 (H200, bf16 C2048 W4, whole
  // passes in CUDA graphs, bench/NOTES.md): 4 tiles a block and 2112 blocks
  // (16 an SM) gave the smallest sum over the short-row shapes; against 8
  // and 264: [1,2048,1024] backward 12.4 -> 9.1 us (DW/DB written
  // directly), [8,2048,512] forward 18.7 -> 14.3 us, [8,2048,1024] backward
  // 54.4 -> 50.5 us, [64,2048,512] 86.8 -> 83.4 / 184.3 -> 180.2 us; no
  // shape lost more than noise (2%).
  static constexpr int kGroupMinVecs = 8;
  static constexpr int kGroupTilesPerBlock = 4;
  static constexpr int kGroupMinBlocks = 2112;
  // The row groups' backward: blocks an SM it is compiled for, which caps
  // its registers (64 at 8, 72 at 7). To W 5 its ring of 3 stages and two
  // buffers of segment sums (26.9-27.7 KB) fit 8 blocks and 64 registers
  // spill nothing; widths 6-8 (28.0-30.0 KB; 16-bit ones spilled at 64
  // registers) take 7. Before the warp runs it took 70 registers and 30 KB:
  // 7 blocks. f64 is left uncapped. Session 17: with a lane's run summed in
  // registers, 16-bit W 7-8 spilled 24-52 bytes at 7 (72 registers): 6.
  static constexpr int kBackwardGroupBlocks = 8;
  static constexpr int kBackwardGroupBlocksW6 = 7;  // W 6
  static constexpr int kBackwardGroupBlocksW8 = 6;  // W 7, 8
  static constexpr int backward_group_blocks(int width, int elem_bytes) {
    if (elem_bytes > 4) return 1;
    return width <= 5 ? kBackwardGroupBlocks : width <= 6 ? kBackwardGroupBlocksW6 : kBackwardGroupBlocksW8;
  }
  // The register-fed forward over [B, C, L] rows (conv1d_direct.cuh): rows
  // of at most kThreads * direct_rows_steps vectors (a row fits a block: L <=
  // 1024 in 16 bits and f32), and longer rows of a problem of at most
  // direct_rows_max_bytes of x; vectors a thread. Session 19 (H200, bf16 x,
  // f32 weights, W 4, SiLU, same process, bench/NOTES.md), against the row
  // groups at 1 vector a thread: [1,2048,1024] 4.90 -> 4.04 us,
  // [8,2048,1024] 23.2 -> 18.9, [64,2048,1024] 146 -> 134, [8,2048,512] 13.1
  // -> 11.0, [1,2048,128] 2.59 -> 2.00 ([128,2048,128] 40.3 -> 41.9 and f16
  // [64,2048,512] W4 85.5 -> 86.6, the rows it lost); f32 at 2 vectors
  // ([8,2048,1024] 41.2 -> 34.2, [64,2048,512] 135.5 -> 131.1; at 1: 35.7,
  // 135.7). Against the time tiles, 16 bits: [1,2048,2048] 8.03 -> 6.48,
  // [1,2048,4096] 11.16 -> 10.72 (f16 12.22 -> 12.45), [2,2048,4096] 19.1 ->
  // 18.7 (f16 20.5 -> 21.7), [8,2048,4096] 66.6 -> 67.2, [8,4096,4096] 130 ->
  // 135 (f16 141 -> 153): the staged ring's copies in flight win on large
  // problems, and f16's two-MUFU SiLU sooner (the heuristics see 2-byte
  // elements, not f16 against bf16): 16 MiB. f32 at 2 vectors won at every
  // size: [8,4096,4096] W 2/3/4 266.8 / 264.9 / 265.2 -> 253.9 / 254.6 /
  // 259.5, [8,4096,8192] 532.9 -> 517.7, [1,2048,32768] 136.7 -> 131.8. 2
  // or 4 vectors a thread were slower in 16 bits (44 and 72 registers).
  // Every width (session 20: f32 W 6-8, whose W-1 inputs span two vectors,
  // had taken the row groups' forward, since deleted).
  static constexpr int kDirectRowsSteps = 1;
  static constexpr int kDirectRowsStepsF32 = 2;
  static constexpr int direct_rows_steps(int elem_bytes) {
    return elem_bytes == 4 ? kDirectRowsStepsF32 : kDirectRowsSteps;
  }
  static constexpr int64_t kDirectRowsMaxBytes = int64_t{16} << 20;  // 16-bit x
  static constexpr int64_t kDirectRowsMaxBytesF32 = INT64_MAX;
  static constexpr int64_t direct_rows_max_bytes(int elem_bytes) {
    return elem_bytes == 4 ? kDirectRowsMaxBytesF32 : kDirectRowsMaxBytes;
  }
  // The [B, C, L] forward's launches overlap the kernel before them on the
  // stream (programmatic dependent launch: its blocks wait for that kernel's
  // end before they touch memory, and let the next kernel start): the time
  // tiles always, the direct rows in grids of at most this many blocks.
  // Session 21 (H200, back to back in a graph, same process): bf16
  // [1,2048,128] 1.99 -> 1.54 us, [8,2048,128] 4.22 -> 3.66, [1,2048,1024]
  // 4.10 -> 3.51, [8,768,4096] (time tiles) 26.8 -> 26.2; but the direct rows'
  // short blocks (2 KB of x each in 16 bits) ran 10-20% slower with the wait
  // and the trigger in grids of 16384 blocks and more ([8,2048,1024] 18.9 ->
  // 20.7, [64,2048,1024] 134 -> 159): the wait costs a block its time.
  static constexpr int64_t kDirectRowsOverlapMaxBlocks = 4096;
  static constexpr int kBoxBytes = 8192;
  // The channels-last forward's one-box blocks (conv1d_channel_box.cuh):
  // problems of at most kChannelBoxMaxBytes of x, widths up to
  // kChannelBoxMaxWidth (Tri Dao's; wider ones keep the channel tiles: fewer
  // kernels to build). A thread takes kChannelBoxSteps timesteps, or
  // kChannelBoxStepsFew where that grid would have at most
  // kChannelBoxFewBlocks blocks (two an SM: there a thread's serial steps
  // are the block's life); a block's box is kChannelBoxRows timesteps (time
  // groups of a thread's steps, at most 1 << kChannelBoxMaxGroupShift) by
  // 256 >> group shift channels (16-bit; f32 128 >> it). Session 21 (H200,
  // bf16 x with f32 weights, W 4, bias + SiLU, same process; us): against
  // the channel tiles, [1,2048,128] 3.14 -> 2.40 (steps 4, 256 blocks; at 8:
  // 2.54), [1,2048,512] 3.65 -> 3.21, [1,2048,1024] 5.45 -> 4.79,
  // [8,2048,128] 5.63 -> 5.06, [1,768,1024] 3.76 -> 2.85, f32 [1,2048,512]
  // 5.06 -> 4.54 (steps 8, 16 timesteps by 128 channels; at 4 every one of
  // these lost 10-35%); at 8 MB of x the channel tiles won ([2,2048,1024]
  // 7.47 against 8.06, f32 [1,2048,1024] 6.85 against 7.23).
  static constexpr int kChannelBoxSteps = 8;
  static constexpr int kChannelBoxStepsFew = 4;
  static constexpr int kChannelBoxRows = 16;
  static constexpr int kChannelBoxMaxGroupShift = 3;
  static constexpr int kChannelBoxMaxWidth = 4;
  static constexpr int64_t kChannelBoxMaxBytes = int64_t{4} << 20;
  static constexpr int64_t kChannelBoxFewBlocks = 264;
  // A channel tile's chunk: kChunk timesteps, halved (down to the pass's
  // minimum, a multiple of its box's steps) while the grid of 128-channel
  // groups by (b, chunk) pairs would have fewer than the pass's blocks (about
  // a wave): a small batch of short rows gave 16-32 blocks, each walking 256
  // timesteps (25-40% of Tri Dao's speed); and while half of it still holds
  // the row (the boxes past a row's end were ring steps of their own:
  // [64,2048,128] forward 23.3 -> 21.7 us, backward 69.9 -> 63.1, same
  // bits). Session 15 (H200, bf16 C2048 W4, bench/NOTES.md): the backward's
  // chunks of 16 took [1,2048,128] from 12.3 to 9.2 us and [1,2048,512] from
  // 13.8 to 13.2 ([1,2048,1024] 17.0 -> 17.5, [8,2048,128] 17.1 -> 17.6);
  // shorter ones lost (a chunk's W-1 extra steps and its partial sums, 20
  // bytes a channel, grow against its work: chunks of 8 took [8,2048,512]
  // from 36.7 to 98 us). The forward's chunks of 16 gained at B 1 (3.6 ->
  // 3.0 us at L 128) but lost at [1,2048,1024] (5.3 -> 5.4, at Tri Dao's
  // 5.4): kept at 32. Session 17 (H200, bench/NOTES.md): the forward's
  // longest chunk 64 instead of 256 (more blocks of the same bytes each):
  // [8,2048,4096] 76.3 -> 70.6 us, [64,2048,512] 76.5 -> 70.7, [8,768,4096]
  // 33.1 -> 29.9, [64,2048,4096] 561 -> 528, f32 [64,2048,512] 156 -> 134;
  // [64,2048,128] and [8,2048,1024] (128 before) within 1%. The backward's
  // grid of about 512 blocks (1024 before), with a channel a thread (below):
  // [8,2048,128] 12.8 -> 10.2 us (chunks of 32), [1,2048,1024] 12.7 -> 9.8
  // (32), [8,2048,512] 27.4 -> 25.8 (128), [1,2048,4096] 26.7 -> 25.5 (128).
  // The forward's shortest chunk 16 on rows of at most 512 steps (32 above):
  // [1,2048,128] 3.74 -> 3.12 us, [1,2048,512] 3.87 -> 3.56; at [1,2048,1024]
  // 16 lost (5.44 -> 5.59, Tri Dao's 5.49), at [8,2048,128] it made no
  // difference (5.55 / 5.60).
  static constexpr int kMinChannelChunk = 32;
  static constexpr int kMinChannelChunkShortRow = 16;
  static constexpr int64_t kShortChannelRow = 512;
  static constexpr int kMaxChannelChunkForward = 64;
  static constexpr int kChannelBlocks = 1024;
  static constexpr int kMinChannelChunkBackward = 16;
  static constexpr int kChannelBlocksBackward = 512;
  static constexpr int min_channel_chunk(bool backward, int64_t length) {
    if (backward) return kMinChannelChunkBackward;
    return length <= kShortChannelRow ? kMinChannelChunkShortRow : kMinChannelChunk;
  }
  static constexpr int max_channel_chunk(bool backward) { return backward ? kChunk : kMaxChannelChunkForward; }
  static constexpr int channel_blocks(bool backward) { return backward ? kChannelBlocksBackward : kChannelBlocks; }
  // The backward's reduction of dw/db partial sums: loads of a thread's
  // column in flight together (conv1d_side_kernels.cuh).
  static constexpr int kReduceBatch = 16;
  // Channels per thread in a channel tile: the forward's 4 bytes of them;
  // the backward's one (its per-step state is the largest: two 16-bit
  // channels a thread ran 1.1-1.6x the time of one at every channels-last
  // shape, session 17, H200: [8,2048,1024] 60.6 -> 45.9 us, [1,2048,128] 8.1
  // -> 5.3, [64,2048,4096] 1280 -> 1127, bits unchanged).
  static constexpr int kForwardChannelBytes = 4;
  static constexpr int channel_vec(bool backward, int elem_bytes) {
    return backward ? 1 : kForwardChannelBytes / elem_bytes;
  }
  // The channel-tile backward's stages and the blocks per SM it is compiled
  // for (which caps its registers): its per-step state is the largest, so it
  // trades a stage for occupancy. Its windows grow with the width: wider ones
  // take fewer blocks (7 at W 5 and over spilled up to 260 bytes).
  static constexpr int kBackwardChannelStages = 2;
  // With packed sequences (SEQ_IDX) the window of ids takes registers too:
  // the same counts spilled up to 300 bytes.
  static constexpr int kBackwardChannelBlocks = 7;
  static constexpr int kBackwardChannelBlocksW6 = 6;  // W 5, 6
  static constexpr int kBackwardChannelBlocksW8 = 5;  // W 7, 8
  static constexpr int kBackwardChannelBlocksSeq = 5;
  static constexpr int kBackwardChannelBlocksSeqW8 = 4;  // W 7, 8
  static constexpr int backward_channel_blocks(int width, bool seq) {
    if (seq) return width <= 6 ? kBackwardChannelBlocksSeq : kBackwardChannelBlocksSeqW8;
    return width <= 4 ? kBackwardChannelBlocks : width <= 6 ? kBackwardChannelBlocksW6 : kBackwardChannelBlocksW8;
  }

  // The decoding update (conv1d_update.cuh): threads per block, a block a
  // stretch of one batch row's channels (small blocks spread a small batch
  // over more SMs); the tokens, and the entries of a shifted state longer than
  // the window, loaded together before they are stored.
  static constexpr int kUpdateThreads = 64;
  static constexpr int kUpdateChunk = 4;
  // Blocks per SM the update is compiled for, which caps its registers: a
  // large batch's speed is the threads in flight. Uncapped, the compiler took
  // 64-85 registers (hoisted addresses); 24 blocks (40 registers) spill
  // nothing for widths up to 4 and 2- and 4-byte elements, and spill for the
  // others, which stay uncapped.
  static constexpr int kUpdateBlocks = 24;
  // Widths of the one-token kernel over 16-byte vectors of channels: a
  // thread holds 16 bytes of channels' taps, window and token (wider windows
  // take the thread-per-channel kernel).
  static constexpr int kUpdateVectorMaxWidth = 4;
  // Steps of 2 and 4 tokens up to this many take that kernel too, over
  // 8-byte vectors (a thread's history of W-1 + n inputs a channel).
  static constexpr int kUpdateVectorTokens = 4;
  // A thread takes 16 bytes of channels from this many bytes of x (B*C
  // elements) up, 8 below: a small batch's time is one block's life, and a
  // thread's math between its loads and its stores grows with its channels.
  // At 2^19 rather than 2^17 (session 18, H200, bf16 x, f32 weights, W 4):
  // B16 C5376 2.60 -> 2.19 us, B64 C2048 2.85 -> 2.45, B512 C8192 unchanged.
  static constexpr int64_t kUpdateWideVectorsFrom = int64_t{1} << 19;
  // With 32-bit offsets (conv1d_update_choice.h), this many: at 32 (32
  // registers) W 4 spilled 4 bytes, and 24 ran as fast or faster on most
  // rows of several tokens (session 18: n 4 B256 19.9 -> 19.0 us).
  static constexpr int kUpdateBlocks32 = 24;
  static constexpr int update_blocks(int width, int elem_bytes, int index_bytes) {
    return width > 4 || elem_bytes > 4 ? 1 : index_bytes == 4 ? kUpdateBlocks32 : kUpdateBlocks;
  }

  // bf16's sigmoid through one tanh.approx (error 2^-11, under bf16's output
  // rounding of 2^-9) instead of exp2 and a reciprocal: measured 25% faster
  // channels-last.
  static constexpr bool kTanhSigmoid = true;
};

}  // namespace baracuda::kernels
