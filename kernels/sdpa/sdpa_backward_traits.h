// The tensor-core backward's tile shapes, per head-size tile, all in one
// place. Host-includable: the heuristics and the workspace size read them,
// the kernels compile against them.
//
// A block owns kKeys keys of one (b, kv head) and walks the query tiles of
// every query head that reads it. Each warp owns 16 keys and, of dK and dV,
// the head-size columns of its column group: with a 256 head tile two warps
// share 16 keys (each computing the scores of half the query tile, which
// they trade through shared memory) so that dK and dV stay in 128 registers
// per thread.
#pragma once

namespace baracuda::kernels {

template <int HeadTile>
struct SdpaBackwardTraits {
  static_assert(HeadTile == 64 || HeadTile == 128 || HeadTile == 256, "head tiles are 64, 128 or 256");
  static constexpr int kHeadTile = HeadTile;  // D and Dv rounded up, zero-filled
  // Measured on the H200 (bf16, dev harness, TFLOP/s): the 64 tile runs 3
  // blocks of 4 warps an SM (153 at B16 H16 S1024, vs 137 with 2 blocks of 4
  // and 137 with one of 8); the 128 tile one block of 8 warps (209 at B4 H32
  // S4096, vs 204 with 2 blocks of 4; deterministic 178 vs 157); the 256
  // tile needs 8 warps to keep its K/V tile 64 keys tall (158 at B8 H16
  // S2048; 141 with 16 warps in 4 column groups). Two column groups at 128
  // registers lost on the 64 and 128 tiles (8 warps, 2 blocks an SM: 125 and
  // 173; 16 warps on the 128 tile: 175; session 11).
  static constexpr int kWarps = HeadTile == 64 ? 4 : 8;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kMinBlocksPerSm = HeadTile == 64 ? 3 : 1;
  static constexpr int kColumnGroups = HeadTile > 128 ? 2 : 1;
  static constexpr int kKeys = 16 * kWarps / kColumnGroups;  // rows of the K/V tile
  static constexpr int kQueries = 64;                         // rows of a Q/dO tile
  // Q/dO tiles in flight: the next one loads while this one computes, where
  // shared memory allows it on every sm_80-class GPU (163 KB a block on A100).
  static constexpr int kStages = HeadTile > 128 ? 1 : 2;
  static constexpr int kHeadPerGroup = HeadTile / kColumnGroups;  // dK/dV columns of one warp
  // dS^T goes through shared memory for dQ; P^T too where warps trade halves.
  static constexpr int kScoreTiles = kColumnGroups > 1 ? 2 : 1;
  // The dQ = dS K product: warps split the Q tile's 16-row groups, then columns.
  static constexpr int kDqRowGroups = kQueries / 16;
  static constexpr int kDqColumnSplit = kWarps / kDqRowGroups;
  static constexpr int kDqColumns = HeadTile / kDqColumnSplit;
  static constexpr int kDqChunk = kDqColumns < 64 ? kDqColumns : 64;  // columns accumulated at once

  static constexpr int kTileBytes = kHeadTile * 2;
  static constexpr int kSmemBytes = 2 * kKeys * kTileBytes                // K, V
                                    + kStages * 2 * kQueries * kTileBytes  // Q, dO
                                    + kScoreTiles * kKeys * kQueries * 2   // dS^T, P^T
                                    + kStages * 2 * kQueries * 4;          // lse, delta
};

}  // namespace baracuda::kernels
