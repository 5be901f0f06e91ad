// How the ALiBi kernels cut a problem into tiles, and the grids and the
// workspace that follow. Host-only, no CUDA: tested on the CPU.
//
// A tile is a block of rows of one (b, h) by a chunk of columns: every
// element of a tile has the same slope, so the backward's partial sum of a
// tile (one workspace slot per tile) belongs to one slope, and the number of
// slots does not depend on the grid (bit-stable on any device).
#pragma once

#include <cstdint>

#include "alibi/alibi_problem.h"
#include "alibi/alibi_traits.h"
#include "common/fast_divisor.h"

namespace baracuda::kernels {

struct AlibiTiling {
  int32_t vector_elems;   // elements of a 16-byte vector
  int64_t chunk_cols;     // columns of a tile, a multiple of vector_elems
  int64_t tile_rows;      // rows of a tile
  int64_t col_tiles;      // tiles across K
  int64_t tiles_per_head; // tiles of one (b, h)
  bool whole_row_chunks;  // every tile a whole chunk of one row, a tile's width: K a multiple of it
  // tiles_per_head, col_tiles, the vectors of a chunk's width and the inner
  // extent of a tile's head number (H for [B, H] slopes, B for [H]: see
  // alibi_with_heads), as the 32-bit kernels divide by them.
  FastDivisor per_head, across, chunk_vectors, inner;
};

// The elements a block handles per tile.
constexpr int64_t alibi_tile_elems(int elem_bytes) { return int64_t{AlibiTraits::kTileVectors} * (16 / elem_bytes); }

// Threads of the backward's pass and cluster blocks for an element size.
constexpr int alibi_backward_threads(int elem_bytes) {
  return elem_bytes == 4 ? AlibiTraits::kF32BackwardThreads : AlibiTraits::kThreads;
}

// Rows shorter than a tile share it (several rows of one head); longer ones
// are cut into chunks of a tile's width, so Q = 1 with a long K still spreads
// over many blocks. queries and keys are > 0.
inline AlibiTiling alibi_tiling(int64_t queries, int64_t keys, int elem_bytes) {
  AlibiTiling t;
  t.vector_elems = 16 / elem_bytes;
  const int64_t tile = alibi_tile_elems(elem_bytes);
  const int64_t padded_keys = (keys + t.vector_elems - 1) / t.vector_elems * t.vector_elems;
  t.chunk_cols = padded_keys < tile ? padded_keys : tile;
  t.tile_rows = tile / t.chunk_cols < queries ? tile / t.chunk_cols : queries;
  t.col_tiles = (keys + t.chunk_cols - 1) / t.chunk_cols;
  t.tiles_per_head = (queries + t.tile_rows - 1) / t.tile_rows * t.col_tiles;
  // A row shorter than a tile is one chunk narrower than the tile: its
  // tiles are not whole chunks (row_chunk_cells would run past the row).
  t.whole_row_chunks = t.tile_rows == 1 && t.chunk_cols == tile && keys % tile == 0;
  t.per_head = fast_divisor(t.tiles_per_head);
  t.across = fast_divisor(t.col_tiles);
  t.chunk_vectors = fast_divisor(t.chunk_cols / t.vector_elems);
  return t;
}

// The tiling a kernel launch takes: alibi_tiling with the divisor of the
// inner extent of a tile's head number (tiles run head-major over (h, b)
// for [H] slopes, batch-major over (b, h) for [B, H] ones).
inline AlibiTiling alibi_problem_tiling(const AlibiProblem &p, int elem_bytes) {
  AlibiTiling t = alibi_tiling(p.queries, p.keys, elem_bytes);
  t.inner = fast_divisor(p.per_batch_slopes ? p.heads : p.batch);
  return t;
}

// Tiles of the whole problem: one backward partial-sum slot each. 0 when empty.
inline __int128 alibi_tile_count(int64_t batch, int64_t heads, int64_t queries, int64_t keys, int elem_bytes) {
  if (batch == 0 || heads == 0 || queries == 0 || keys == 0) return 0;
  return static_cast<__int128>(batch) * heads * alibi_tiling(queries, keys, elem_bytes).tiles_per_head;
}

// The backward's workspace in bytes: one accumulator (f32, f64 for f64) per tile.
inline __int128 alibi_backward_workspace(int64_t batch, int64_t heads, int64_t queries, int64_t keys,
                                         int elem_bytes) {
  return alibi_tile_count(batch, heads, queries, keys, elem_bytes) * (elem_bytes == 8 ? 8 : 4);
}

// Blocks of a pass over tiles: one per tile, at most kMaxGridBlocks (they walk the rest).
inline int64_t alibi_grid_blocks(int64_t tiles) {
  return tiles < AlibiTraits::kMaxGridBlocks ? tiles : AlibiTraits::kMaxGridBlocks;
}

// Whether the pass kernels may index in 32 bits: the last tile number plus a
// grid stride stays below 2^31, and every column and |j - i'| (at most Q + K,
// plus a vector) below 2^24, where f32 holds every integer, so the kernels
// may step d in f32.
inline bool alibi_indices_fit_32_bits(int64_t queries, int64_t keys, int64_t tiles) {
  return tiles + AlibiTraits::kMaxGridBlocks < (int64_t{1} << 31) && queries + keys + 16 < (int64_t{1} << 24);
}

// Partial sums of one slope: the tiles of its (b, h), or of its h over every b.
inline int64_t alibi_tiles_per_slope(int64_t batch, bool per_batch_slopes, const AlibiTiling &t) {
  return per_batch_slopes ? t.tiles_per_head : batch * t.tiles_per_head;
}

// Whether the backward can run as one launch of thread-block clusters
// (candidate alibi_bwd_clusters, sm_90 and later), a cluster per slope and a
// block per tile: Q * K > 0, every slope's tiles fit a portable cluster and
// the tiles a grid.
inline bool alibi_backward_fits_clusters(int64_t batch, int64_t heads, int64_t queries, int64_t keys,
                                         bool per_batch_slopes, int elem_bytes) {
  if (batch <= 0 || heads <= 0 || queries <= 0 || keys <= 0) return false;
  const int64_t per_slope = alibi_tiles_per_slope(batch, per_batch_slopes, alibi_tiling(queries, keys, elem_bytes));
  return per_slope <= AlibiTraits::kMaxClusterTiles &&
         alibi_tile_count(batch, heads, queries, keys, elem_bytes) < (int64_t{1} << 31);
}

// The contiguous run of partials each thread of the reduction adds in order
// before the block's tree: ceil(partials / kReduceThreads), at least 1.
inline int64_t alibi_reduce_run(int64_t partials_per_slope) {
  const int64_t run = (partials_per_slope + AlibiTraits::kReduceThreads - 1) / AlibiTraits::kReduceThreads;
  return run > 0 ? run : 1;
}

}  // namespace baracuda::kernels
