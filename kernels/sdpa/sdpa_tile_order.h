// The order in which the tensor-core forward's blocks take the query tiles.
// Block i works on tile i, and the GPU starts blocks about in index order, so
// the order decides how the last wave's work is balanced. Without a causal
// mask every tile walks as many keys, and the tiles of one (b, h) go
// together, sharing their K and V in L2. With one, a tile's work grows with
// its rows: (b, h) after (b, h), each from its longest tile down, left the
// last blocks' SMs idle (f32 B4 H16 S2048 D 64 ran 16% slower, bf16 4-7%,
// bench/NOTES.md session 15). So the pairs are taken in sections, and within
// a section the longest tile of every pair first, then the next longest
// (longest processing time first). A section's K and V are what the blocks
// in flight share. Host and device: the CPU tests walk it.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace baracuda::kernels {

struct SdpaTileOrder {
  int64_t query_tiles;    // of one (b, h)
  int64_t batch_heads;    // B * Hq
  int64_t section_heads;  // (b, h) pairs a section takes together, 1 to batch_heads
  bool longest_first;     // causal: a tile's keys end at its last row, the bottom tile sees the most
};

// Tile `tile` of the grid: its (b, h) pair and its query tile in that pair
// (0 at the top). Sections of section_heads pairs (the last one may hold
// fewer) follow each other; within one, tile rank r of every pair comes
// before rank r + 1, rank 0 the longest. With sections of one pair this is
// the plain order: tile = bh * query_tiles + rank.
struct SdpaQueryTile {
  int64_t bh, m_index;
};
BARACUDA_HOST_DEVICE_INLINE SdpaQueryTile sdpa_query_tile(const SdpaTileOrder &o, int64_t tile) {
  const int64_t section_tiles = o.section_heads * o.query_tiles;
  const int64_t first_bh = tile / section_tiles * o.section_heads;
  const int64_t heads = o.batch_heads - first_bh < o.section_heads ? o.batch_heads - first_bh : o.section_heads;
  const int64_t r = tile % section_tiles;
  const int64_t rank = r / heads;
  return {first_bh + r % heads, o.longest_first ? o.query_tiles - 1 - rank : rank};
}

// Tiles a causal section holds at least. On the H200 (bench/NOTES.md
// session 15) sections of 512 tiles ran within 2% of one section of the
// whole grid (1024-4096 tiles), sections of 8 pairs of 16 tiles 15% behind
// (f32 D 64). With 2048 every measured problem is one or two sections, and
// a larger one still keeps the blocks in flight to a few pairs' K and V.
constexpr int64_t kSdpaCausalSectionTiles = 2048;

// The order for a problem of batch_heads (b, h) pairs of query_tiles tiles each.
inline SdpaTileOrder sdpa_tile_order(int64_t batch_heads, int64_t query_tiles, bool causal) {
  SdpaTileOrder o{query_tiles, batch_heads, 1, causal};
  if (causal && query_tiles > 0 && batch_heads > 0) {
    const int64_t heads = (kSdpaCausalSectionTiles + query_tiles - 1) / query_tiles;
    o.section_heads = heads < batch_heads ? heads : batch_heads;
  }
  return o;
}

}  // namespace baracuda::kernels
