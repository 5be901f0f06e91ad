// Which key tile of which (b, kv head) block i of the Hopper backward takes,
// as sdpa_tile_order.h's order over the key tiles of the (b, kv head) pairs
// (its query_tiles: key tiles a pair, its batch_heads: B * Hkv pairs; its
// longest_first here: from the last key tile). Blocks start about in index
// order, so the order decides how the last blocks balance and what the
// blocks in flight share in L2.
// - Atomic mode, keys bounded above (causal, right window): a key tile's
//   work falls with its index (its query tiles run from its diagonal to the
//   last), and a pair's key tiles in turn left long blocks starting until
//   the grid's end; sections of pairs take key tile 0 of every pair first,
//   then key tile 1 (longest first), a section small enough that its pairs'
//   Q, dO and dQ rows stay in L2.
// - Atomic mode otherwise: every key tile walks as many query tiles; a
//   pair's key tiles in turn, sharing the pair's Q and dO in L2.
// - Deterministic mode: a key tile adds its dQ parts after the key tiles
//   above it, so each pair's key tiles go from the last; with no bound on
//   the keys and at least as many key tiles as query tiles, by rank across
//   a batch's kv heads (sdpa::deterministic_by_rank, as the sm_80 kernel).
// Host and device: the CPU tests walk it.
#pragma once

#include <cstdint>

#include "sdpa/sdpa_backward_band.h"
#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_tile_order.h"
#include "sdpa/sm90/sdpa_backward_sm90_shape.h"

namespace baracuda::kernels {

// An atomic section's blocks (about two waves of one-block SMs) and the most
// L2 its pairs' rows may take (Q and dO read, the f32 dQ rows added to).
constexpr int64_t kSdpaSm90BackwardSectionBlocks = 256;
constexpr int64_t kSdpaSm90BackwardSectionBytes = int64_t{16} << 20;

inline SdpaTileOrder sdpa_sm90_backward_order(const SdpaProblem &p, const SdpaSm90BackwardShape &s) {
  const int64_t key_tiles = (p.keys + s.block_n - 1) / s.block_n, pairs = p.batch * p.heads_kv;
  const sdpa::Band band = sdpa::band_of(p);
  SdpaTileOrder o{key_tiles, pairs, 1, p.deterministic};
  if (key_tiles < 1 || pairs < 1) return o;
  if (p.deterministic) {
    const int64_t query_tiles = (p.queries + s.block_m - 1) / s.block_m;
    if (sdpa::deterministic_by_rank(band, key_tiles, query_tiles)) o.section_heads = p.heads_kv;
    return o;
  }
  if (band.upper == sdpa::Band::kUnbounded) return o;
  const int64_t pair_bytes =
      p.heads_q / p.heads_kv * p.queries * (2 * (p.head_dim + p.head_dim_v) + 4 * int64_t{p.head_dim});
  const int64_t fit = pair_bytes > 0 ? kSdpaSm90BackwardSectionBytes / pair_bytes : pairs;
  int64_t heads = (kSdpaSm90BackwardSectionBlocks + key_tiles - 1) / key_tiles;
  if (heads > fit) heads = fit;
  if (heads > pairs) heads = pairs;
  o.section_heads = heads > 1 ? heads : 1;
  return o;
}

}  // namespace baracuda::kernels
