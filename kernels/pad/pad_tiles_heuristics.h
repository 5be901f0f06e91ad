// Which pads and pad backwards run in row tiles (common/row_tiles.h), and
// their tiles. Host-only, no CUDA.
#pragma once

#include <cstdint>

#include "common/row_tiles.h"
#include "common/rows_problem.h"
#include "pad/pad_tiles_traits.h"

namespace baracuda::kernels {

// At most this many rows a tile (one preamble row per thread, twice over),
// and this much dynamic shared memory a block: the default limit (48 KiB, no
// opt-in) less what the kernels declare statically (the backward's row
// counts, 2 KiB).
constexpr int32_t kMaxTileRows = 2 * PadTilesTraits::kThreads;
constexpr uint32_t kMaxTileSmemBytes = 48 * 1024 - 4 * kMaxTileRows - 64;

// The source columns a pad forward's rows read: all of each input row, but
// the columns a constant pad crops away.
inline void pad_forward_window(const RowsProblem &p, int64_t &begin, int64_t &count) {
  const int inner = p.rank - 1;
  const int64_t n = p.in_extent[inner], lo = p.pad_low[inner], w = p.out_extent[inner];
  begin = lo < 0 ? -lo : 0;
  const int64_t end = n < w - lo ? n : w - lo;
  count = end > begin ? end - begin : 0;
}

// Tiles serve short rows (output and staged window at most max_row_bytes)
// of a dense output aligned to its elements, read from unit-stride input
// rows aligned to their elements.
inline bool row_tiles_serve(const RowsProblem &p, int elem_bytes, int64_t window, int64_t max_row_bytes) {
  const int inner = p.rank - 1;
  const int64_t w = p.out_extent[inner];
  const uintptr_t align = static_cast<uintptr_t>(elem_bytes < 16 ? elem_bytes : 16);
  return dense_output(p) && p.in_stride[inner] == 1 && w >= 1 && w * elem_bytes <= max_row_bytes &&
         window * elem_bytes <= max_row_bytes && reinterpret_cast<uintptr_t>(p.out) % align == 0 &&
         reinterpret_cast<uintptr_t>(p.in) % align == 0;
}

// Tiles of up to rows_per_block rows (cut to fit kMaxTileRows and the
// shared memory), `extra` bytes of shared memory a row besides its slot;
// false where rows do not fit.
inline bool fit_row_tiles(const RowsProblem &p, int elem_bytes, int64_t window_begin, int64_t window,
                          int64_t rows_per_block, RowTiles &t, int64_t extra = 0) {
  if (rows_per_block > kMaxTileRows) rows_per_block = kMaxTileRows;
  if (rows_per_block < 1) return false;
  t = make_row_tiles(p, elem_bytes, window_begin, window, static_cast<int32_t>(rows_per_block), extra);
  while (t.smem_bytes > kMaxTileSmemBytes && t.rows_per_block > 1)
    t = make_row_tiles(p, elem_bytes, window_begin, window, t.rows_per_block / 2, extra);
  return t.smem_bytes <= kMaxTileSmemBytes;
}

// A pad forward (or constant mode's backward, a slice) in tiles of about
// PadTilesTraits::kTileBytes of output (kLongTileBytes for rows over
// kLongRowBytes): true and its tiles, or false.
inline bool pad_forward_takes_tiles(const RowsProblem &p, int elem_bytes, RowTiles &t) {
  int64_t begin, window;
  pad_forward_window(p, begin, window);
  if (!row_tiles_serve(p, elem_bytes, window, PadTilesTraits::kMaxRowBytes)) return false;
  const int64_t row_bytes = p.out_extent[p.rank - 1] * elem_bytes;
  const int64_t tile = row_bytes > PadTilesTraits::kLongRowBytes ? PadTilesTraits::kLongTileBytes
                                                                   : PadTilesTraits::kTileBytes;
  return fit_row_tiles(p, elem_bytes, begin, window, tile / row_bytes > 1 ? tile / row_bytes : 1, t);
}

// A pad backward (reflect, replicate, circular; out = dx, in = dy) in tiles
// whose every thread keeps PadTilesTraits::kSumElements sums: as many whole
// dx rows as the block's vectors hold; each dy row staged whole, and
// edge_bytes a row for the sums of its cells outside the vectors.
inline bool pad_backward_takes_tiles(const RowsProblem &p, int elem_bytes, int64_t edge_bytes, RowTiles &t) {
  const int inner = p.rank - 1;
  const int64_t window = p.in_extent[inner], w = p.out_extent[inner];
  if (!row_tiles_serve(p, elem_bytes, window, PadTilesTraits::kMaxSumRowBytes)) return false;
  const int64_t v = 16 / elem_bytes;
  const int64_t vectors = int64_t{PadTilesTraits::kThreads} * (PadTilesTraits::kSumElements / v);
  // Rows of whole vectors from a 16-byte boundary start every tile on one;
  // otherwise a tile of e elements spans up to (e - 1) / v + 2 vectors.
  const bool aligned = (w * elem_bytes) % 16 == 0 && reinterpret_cast<uintptr_t>(p.out) % 16 == 0;
  return fit_row_tiles(p, elem_bytes, 0, window, (aligned ? vectors * v : (vectors - 2) * v + 1) / w, t, edge_bytes);
}

}  // namespace baracuda::kernels
