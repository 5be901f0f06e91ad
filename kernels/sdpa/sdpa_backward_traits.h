// The tensor-core backward's tile shapes, per head-size tile, all in one
// place. Host-includable: the heuristics and the workspace size read them,
// the kernels compile against them.
//
// A block owns kKeys keys of one (b, kv head) and walks the query tiles of
// every query head that reads it. The warps form key groups of 16 kKeyAtoms
// keys by column groups: a warp computes S^T and dP^T for its key group's
// keys against its column group's share of the query tile, the warps of a
// key group trade their P^T and dS^T columns through shared memory, and each
// then accumulates dK and dV of its keys over its column group's head-size
// columns. dQ = dS K splits the query tile into row groups of 16 kDqRowAtoms
// rows and the head-size columns between the warps of a row group.
#pragma once

namespace baracuda::kernels {

// Where an iteration issues the loads of a later step's Q/dO tile: kScores,
// the next step's among the S^T and dP^T products; kDq, the step Stages
// ahead's into the stage just freed, among the dQ products (the only choice
// with one stage); kScoresAhead, the step Stages - 1 ahead's as the score
// phase starts, and the next step's S^T products run at the end of this
// one, among dK's, so that the score phase opens on S^T in registers (its
// exponentials then issue among dP^T's products); kGradients, the step
// Stages - 1 ahead's after the middle barrier (kTwo, kOne).
enum class SdpaBackwardPrefetch { kScores, kDq, kScoresAhead, kGradients };

// The barriers of an iteration besides the one that opens it: kFour, the
// key group's before dV and dK, the block's before dQ and one closing the
// iteration; kTwo, one block barrier before dV, dQ and dK (in that order,
// so that dQ's reductions issue among dK's products; the opening barrier of
// the next iteration orders dQ's reads of dS^T before its stores). The
// deterministic mode's turn always closes with one.
// kOne: kTwo's middle barrier alone. Nothing holds a warp at the top of an
// iteration, so the warps drift apart by up to a phase (one's exponentials
// among another's products): P^T and dS^T alternate between two buffers,
// and the loads (kGradients, three stages) go into the stage the step before
// last read, landing before the next middle barrier.
enum class SdpaBackwardBarriers { kFour, kTwo, kOne };

// Where the plain and masked score paths compute P^T: kAfterProducts, after
// dP^T's products, with dS^T; kAmongProducts, one 8-column tile after each
// of dP^T's steps (the exponentials issue among the products).
enum class SdpaBackwardProbabilities { kAfterProducts, kAmongProducts };

// Where the atomic mode's dQ reductions issue: kAfterDqProducts, each
// chunk's after its products; kAmongDkProducts (kTwo, kOne), a share after
// each of dK's steps (dQ in one chunk, a whole tile), so that they leave
// the SM spread over the phase rather than in one burst. A warp barrier
// after each step holds them there: ptxas hoists them above the products
// otherwise.
enum class SdpaBackwardDqReductions { kAfterDqProducts, kAmongDkProducts };

template <int HeadTile, int Warps, int MinBlocksPerSm, int ColumnGroups, int KeyAtoms, int Stages, int DqRowAtoms,
          int DqChunk, SdpaBackwardPrefetch Prefetch, SdpaBackwardBarriers Barriers, int Queries = 64,
          SdpaBackwardProbabilities Probabilities = SdpaBackwardProbabilities::kAfterProducts,
          SdpaBackwardDqReductions DqReductions = SdpaBackwardDqReductions::kAfterDqProducts,
          bool DqFragmentsOnce = false, bool DqBulk = false>
struct SdpaBackwardShape {
  static_assert(HeadTile == 64 || HeadTile == 128 || HeadTile == 256, "head tiles are 64, 128 or 256");
  static constexpr int kHeadTile = HeadTile;  // D and Dv rounded up, zero-filled
  static constexpr int kWarps = Warps;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
  static constexpr int kColumnGroups = ColumnGroups;
  static constexpr int kKeyAtoms = KeyAtoms;                             // 16-key mma tiles of a warp
  static constexpr int kKeys = 16 * kKeyAtoms * kWarps / kColumnGroups;  // rows of the K/V tile
  static constexpr int kQueries = Queries;  // rows of a Q/dO tile, a multiple of 64 (the deterministic counters'
                                            // tile; sdpa_backward_heuristics.h)
  // Q/dO tiles in flight: 2, the next one loads while this one computes; 1,
  // it loads once dK and dV have read this one.
  static constexpr int kStages = Stages;
  static constexpr SdpaBackwardPrefetch kPrefetch = Prefetch;
  static constexpr SdpaBackwardBarriers kBarriers = Barriers;
  static constexpr int kScoreBuffers = Barriers == SdpaBackwardBarriers::kOne ? 2 : 1;  // P^T, dS^T pairs
  static constexpr SdpaBackwardProbabilities kProbabilities = Probabilities;
  static constexpr SdpaBackwardDqReductions kDqReductions = DqReductions;
  // Whether dQ reads its dS fragments once for all of a warp's column
  // chunks (kAfterDqProducts), rather than again for each chunk.
  static constexpr bool kDqFragmentsOnce = DqFragmentsOnce;
  // Whether the atomic mode's dQ goes out by tensor-map bulk reductions from
  // shared memory on sm_90 and later (sdpa_backward_dq_bulk.cuh): each warp
  // stages a row atom's chunk in one of its two buffers and the copy engine
  // adds it, so that no reduction waits in the load/store unit's queue nor
  // holds registers. The buffers lie over the dS^T and P^T slots, which no
  // product reads once dQ has its dS fragments (kDqFragmentsOnce).
  static constexpr bool kDqBulk = DqBulk;
  static_assert(!DqBulk || (DqChunk == 32 && DqFragmentsOnce), "128-byte staged rows over the score slots");
  static constexpr int kHeadPerGroup = HeadTile / kColumnGroups;  // dK/dV columns of one warp
  static constexpr int kDqRowAtoms = DqRowAtoms;
  static constexpr int kDqRowGroups = kQueries / (16 * kDqRowAtoms);
  static constexpr int kDqColumnSplit = kWarps / kDqRowGroups;
  static constexpr int kDqColumns = HeadTile / kDqColumnSplit;
  static constexpr int kDqChunk = DqChunk;  // dQ columns accumulated at once
  static_assert(kQueries % (8 * kColumnGroups) == 0 && kDqColumns % kDqChunk == 0 && kDqChunk % 16 == 0,
                "whole mma tiles for every warp");
  static_assert(kQueries % 64 == 0 && kQueries <= kThreads, "a thread a row's lse and delta");

  static constexpr int kTileBytes = kHeadTile * 2;
  static constexpr int kDqStagingBytes = 16 * 128;  // a buffer: a row atom's 16 rows of 32 f32, 128-byte swizzle
  static constexpr int kScoreBytes = kScoreBuffers * 2 * kKeys * kQueries * 2;  // dS^T, P^T
  static_assert(!DqBulk || 2 * kWarps * kDqStagingBytes <= kScoreBytes, "two staging buffers a warp in the score slots");
  static_assert(!DqBulk || (2 * kKeys + kStages * 2 * kQueries) * kTileBytes % 1024 == 0,
                "the swizzled staging buffers on 1024 bytes");
  static constexpr int kSmemBytes = 2 * kKeys * kTileBytes                // K, V
                                    + kStages * 2 * kQueries * kTileBytes  // Q, dO
                                    + kScoreBytes                          // dS^T, P^T
                                    + kStages * 2 * kQueries * 4;          // lse, delta
};

// Measured on the H200 (bf16 backward TFLOP/s at the README's rows, each
// shape timed beside the previous kernel in one run; bench/NOTES.md, session
// 11 for the warp counts, session 15 for the warp tiles). 32-key warp rows
// (FlashAttention-2's 32 x 32 score and 32 x 64 dK/dV warp tiles) cut the
// ldmatrix of a warp and query tile 184 -> 144 at D 128 and 208 -> 168 at
// D 256, for 4%: 207.7 -> 215.5 at B4 H32 S4096 D128 (causal 186.8 ->
// 193.6), 158.1 -> 164.5 at B8 H16 S2048 D256 (causal 139.9 -> 144.9).
// Shared-memory bandwidth is not what bounds the kernel, then, nor issue.
// dQ's 32-row warp tiles gave 3% of that at D 128. The 64 tile runs 3
// blocks of 4 warps an SM (1% behind its old 16-key rows with P^T in
// registers: 153.2 -> 152.6, causal 113.1 -> 111.7; 2 blocks of 4 and one
// of 8 lost 9-16%); the 128 tile one block of 8 warps (2 blocks of 4 lost;
// 16-key rows with P^T through shared memory: -4%); the 256 tile
// 8 warps in four column groups for a 64-key tile (two groups of 16-key
// rows: -4%; 16 warps lost), its Q/dO tile single-buffered to fit sm_80's
// 163 KB. Session 16 (two probes, each placement beside the previous
// kernel in one run): with the iteration's fixed work cut (steps counted
// forward, branch-free loads, stepped ldmatrix addresses, bound-free dQ
// reductions) the D 128 tile ran 215.0 -> 233.3 with its loads before the
// opening barrier and kFour; among the score products (kScores) 242.3;
// with one block barrier as well (kScores, kTwo) 254.7 (causal 194.6 ->
// 228.1, deterministic 184.0 -> 208.3); the loads among dV/dK with kTwo
// 239.5, dQ in 16 x 64 tiles 251.8, kFour without its closing barrier
// 231-238. The D 64 tile: kDq, kFour 152.8 -> 165.2 (causal 112.2 ->
// 121.8); loads before the opening barrier 158.4, kScores 155.8, kScores
// with kTwo 157.2 (at 2 blocks an SM, without spills, 152.2), kDq without
// the closing barrier 155.8. The D 256 tiles (one stage, kDq, kFour):
// 164.3 -> 181.5 (165.7 -> 183.4 in the second probe). Session 17 (two
// probes): the D 128 tile with S^T a step ahead and P^T among dP^T's
// products 254.5 -> 257.2 (causal 226.6 -> 225.5; S^T ahead with P^T after
// dP^T 239.3, three stages 250.6). Session 18 (the narrow D 128 tile
// forced on an H200, beside itself in one run): dQ's reductions spread among
// dK's products 264.0 -> 280.4 (causal 234.5 -> 248.8; S 8192 270.5 ->
// 292.4, causal 256.1 -> 272.4); dQ in 32-column chunks at D 256 191.8 ->
// 191.0 (causal 170.9 -> 170.5), not taken.
template <int HeadTile>
struct SdpaBackwardTraits;
template <>
struct SdpaBackwardTraits<64>
    : SdpaBackwardShape<64, 4, 3, 2, 2, 2, 2, 32, SdpaBackwardPrefetch::kDq, SdpaBackwardBarriers::kFour> {};
template <>
struct SdpaBackwardTraits<128>
    : SdpaBackwardShape<128, 8, 1, 2, 2, 2, 2, 32, SdpaBackwardPrefetch::kScoresAhead, SdpaBackwardBarriers::kTwo, 64,
                        SdpaBackwardProbabilities::kAmongProducts, SdpaBackwardDqReductions::kAmongDkProducts> {};
template <>
struct SdpaBackwardTraits<256>
    : SdpaBackwardShape<256, 8, 1, 4, 2, 1, 2, 64, SdpaBackwardPrefetch::kDq, SdpaBackwardBarriers::kFour> {};

// The tiles a head tile runs with where a block may take more shared memory
// than sm_80's 163 KB (sm_90, 100-103: 227 KB); the launch falls back to
// SdpaBackwardTraits elsewhere. Session 17 (bf16 TFLOP/s on an H200 beside the
// previous kernel in one run, bench/NOTES.md): at D 128 no opening barrier
// (kOne, 226 KB) 254.5 -> 264.7 (causal 226.6 -> 233.1; B2 H32 S8192 265.3
// -> 278.2, causal 251.5 -> 260.7), with P^T after dP^T's products 258.1;
// at D 256 128-query tiles, one stage (225 KB) 186.3 -> 205.7 (causal
// 162.2 -> 170.6), where the two-stage 64-query tiles of session 16 gave
// 189.4; at D 64 FlashAttention-2's 128 x 128 tiles of 8 warps 165.4 ->
// 175.1, but 121.9 -> 117.9 under a causal mask, where the diagonal tiles
// waste more. Session 18 (same harness, every row's whole op; the main
// kernel without its dq reductions ran 1.22-1.24x faster, without its
// exponentials 1.01-1.02x): the reductions spread among dK's products at
// D 128 274.9 -> 295.3 (causal 246.1 -> 262.5; S 8192 284.6 -> 306.7,
// causal 269.2 -> 288.8), at D 64 188.5 -> 195.0 (with the mask, where
// the narrow tiles ran, 132.1 -> 133.3; 132.0 -> 133.2 in a second run);
// at D 256 dQ in 32-column chunks
// 210.9 -> 222.6 (causal 180.6 -> 186.6; their reductions among the next
// chunk's products 221.8 / 187.8). Lost: skipping the products of a warp's
// part of a masked tile that sees no pair (+0.2-0.4% alone, -4% beside the
// spread reductions at D 128, -2 to -6% at D 64 and 256 with 190-240 B of
// spills). Session 22 (B8 H16 S2048 D 256, graphs replayed in turn): dQ's
// dS fragments read once for the warp's four 32-column chunks (24 of its
// 64 ldmatrix a step; 32 more registers held through dQ) 224.8 -> 229.0,
// causal 191.8 -> 195.1 (FA2 230.2 / 196.8), dK and dV bits unchanged.
// Session 24 (same harness): dQ by tensor-map bulk reductions (DqBulk) at D
// 256 230.8 -> 256.9 (causal 193.2 -> 219.2; FA2 231.8 / 196.8), at D 64
// 217.3 -> 219.3 (156.6 -> 158.1), not kept there: its 32 KB of staging
// (161 -> 193 KB) would move the A100 (163 KB a block) off this tile for
// under 1% on the H200; one 1-D bulk reduction a row lost
// (0.80-0.92x); at D 128 the narrow tile with the box reductions 0.96-0.99x
// this wide tile, which has no room to stage them.
template <int HeadTile>
struct SdpaBackwardWide {
  using Traits = SdpaBackwardTraits<HeadTile>;
};
template <>
struct SdpaBackwardWide<64> {
  using Traits =
      SdpaBackwardShape<64, 8, 1, 2, 2, 2, 2, 32, SdpaBackwardPrefetch::kScores, SdpaBackwardBarriers::kTwo, 128,
                        SdpaBackwardProbabilities::kAmongProducts, SdpaBackwardDqReductions::kAmongDkProducts>;
};
template <>
struct SdpaBackwardWide<128> {
  using Traits =
      SdpaBackwardShape<128, 8, 1, 2, 2, 3, 2, 32, SdpaBackwardPrefetch::kGradients, SdpaBackwardBarriers::kOne, 64,
                        SdpaBackwardProbabilities::kAmongProducts, SdpaBackwardDqReductions::kAmongDkProducts>;
};
template <>
struct SdpaBackwardWide<256> {
  using Traits = SdpaBackwardShape<256, 8, 1, 4, 2, 1, 2, 32, SdpaBackwardPrefetch::kDq, SdpaBackwardBarriers::kFour,
                                   128, SdpaBackwardProbabilities::kAmongProducts,
                                   SdpaBackwardDqReductions::kAfterDqProducts, true, true>;
};

}  // namespace baracuda::kernels
