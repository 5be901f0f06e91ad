// Which key tile of which (b, kv head) block i of the Hopper backward takes,
// as sdpa_tile_order.h's order over the key tiles of the (b, kv head) pairs
// (its query_tiles: key tiles a pair, its batch_heads: B * Hkv pairs; its
// longest_first here: from the last key tile). Blocks start about in index
// order.
// - Atomic mode: a pair's key tiles in turn, sharing the pair's Q and dO in
//   L2, as the grid's indices give them (the kernel reads those directly).
//   (Under a causal mask, sections of pairs taking key tile 0 of every pair
//   first, the longest walk, measured within the run's drift at D 64, 128
//   and 256: bench/NOTES.md, session 20.)
// - Deterministic mode: a key tile adds its dQ parts after the key tiles
//   above it, so each pair's key tiles go from the last; with no bound on
//   the keys and at least as many key tiles as query tiles, by rank across
//   a batch's kv heads (sdpa::deterministic_by_rank, as the sm_80 kernel:
//   1.18x at B16 H16 S1024 D 64, session 20), where a pair's key tiles
//   started together would queue up on the first query tile.
// Host and device: the CPU tests walk it.
#pragma once

#include <cstdint>

#include "sdpa/sdpa_backward_band.h"
#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_tile_order.h"
#include "sdpa/sm90/sdpa_backward_sm90_shape.h"

namespace baracuda::kernels {

inline SdpaTileOrder sdpa_sm90_backward_order(const SdpaProblem &p, const SdpaSm90BackwardShape &s) {
  const int64_t key_tiles = (p.keys + s.block_n - 1) / s.block_n, query_tiles = (p.queries + s.block_m - 1) / s.block_m;
  SdpaTileOrder o{key_tiles, p.batch * p.heads_kv, 1, p.deterministic};
  if (p.deterministic && p.heads_kv > 0 &&
      sdpa::deterministic_by_rank(sdpa::band_of(p), key_tiles, query_tiles))
    o.section_heads = p.heads_kv;
  return o;
}

}  // namespace baracuda::kernels
