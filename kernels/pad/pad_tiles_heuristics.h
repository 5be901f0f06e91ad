// Which pads and pad backwards run in row tiles (common/row_tiles.h) or
// slot tiles (pad_forward_slots.h), and their tiles. Host-only, no CUDA.
#pragma once

#include <cstdint>
#include <numeric>

#include "common/row_tiles.h"
#include "common/rows_problem.h"
#include "pad/pad_forward_slots.h"
#include "pad/pad_tiles_traits.h"

namespace baracuda::kernels {

// At most this many rows a tile (one preamble row per thread, twice over),
// and this much dynamic shared memory a block: the default limit (48 KiB, no
// opt-in) less what the kernels declare statically (the backward's row
// counts, 2 KiB).
constexpr int32_t kMaxTileRows = 2 * PadTilesTraits::kThreads;
constexpr uint32_t kMaxTileSmemBytes = 48 * 1024 - 4 * kMaxTileRows - 64;

// The largest inner extent and pad the forward's tiles map (in int32 sums of a few such terms).
constexpr int64_t kMaxTileInnerIndex = int64_t{1} << 29;

// The source columns a pad forward's rows read: all of each input row, but
// the columns a constant pad crops away.
inline void pad_forward_window(const RowsProblem &p, int64_t &begin, int64_t &count) {
  const int inner = p.rank - 1;
  const int64_t n = p.in_extent[inner], lo = p.pad_low[inner], w = p.out_extent[inner];
  begin = lo < 0 ? -lo : 0;
  const int64_t end = n < w - lo ? n : w - lo;
  count = end > begin ? end - begin : 0;
}

// The rows after which rows of `width` elements are back at their 16-byte phase.
inline int64_t slot_row_period(int64_t width, int elem_bytes) { return 16 / std::gcd<int64_t>(width * elem_bytes, 16); }

// Tiles serve short rows (output and staged window at most max_row_bytes)
// of a dense output aligned to its elements, read from unit-stride input
// rows aligned to their elements, fewer than 2^31 rows (their coordinates
// are found by 32-bit multiply-shift divisions).
inline bool row_tiles_serve(const RowsProblem &p, int elem_bytes, int64_t window, int64_t max_row_bytes) {
  const int inner = p.rank - 1;
  const int64_t w = p.out_extent[inner];
  int64_t rows = 1;
  for (int d = 0; d < inner && rows < INT32_MAX; ++d) rows *= p.out_extent[d];
  if (rows >= INT32_MAX) return false;
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
  // The kernel maps the inner axis's columns in 32-bit arithmetic.
  const int64_t n = p.in_extent[p.rank - 1], lo = p.pad_low[p.rank - 1];
  if (n > kMaxTileInnerIndex || lo > kMaxTileInnerIndex || lo < -kMaxTileInnerIndex) return false;
  const int64_t row_bytes = p.out_extent[p.rank - 1] * elem_bytes;
  const int64_t tile = row_bytes > PadTilesTraits::kLongRowBytes ? PadTilesTraits::kLongTileBytes
                                                                   : PadTilesTraits::kTileBytes;
  return fit_row_tiles(p, elem_bytes, begin, window, tile / row_bytes > 1 ? tile / row_bytes : 1, t);
}

// The least slot stride (in 16-byte vectors) from `least` on at which the
// shared loads of consecutive output vectors across a row end fall in
// consecutive banks: the stride, less the row's bytes, within 16 bytes past
// a multiple of 128 (the bytes a quarter warp's 16-byte loads span), so that
// the vectors before and after a row end do not share banks.
inline int32_t bank_aligned_slot_stride(int32_t least, int64_t row_bytes) {
  int32_t s = least;
  while (((s * int64_t{16} - row_bytes) % 128 + 128) % 128 >= 16) ++s;
  return s;
}

// The slot tiles set their rows up in 32-bit arithmetic (session 21: the
// 64-bit set-up was some 258 instructions a row): the input's bytes, with a
// row's window past them, under 2^31, every outer extent and pad under 2^30.
inline bool slot_tiles_index_in_32_bits(const RowsProblem &p, int elem_bytes) {
  constexpr int64_t kLimit = int64_t{1} << 30;
  int64_t span = 1;
  for (int d = 0; d < p.rank; ++d) span += (p.in_extent[d] > 0 ? p.in_extent[d] - 1 : 0) * p.in_stride[d];
  if (span * elem_bytes + 2 * PadTilesTraits::kMaxSlotRowBytes + 32 >= 2 * kLimit) return false;
  for (int d = 0; d + 1 < p.rank; ++d)
    if (p.out_extent[d] >= kLimit || p.in_extent[d] >= kLimit || p.pad_low[d] >= kLimit || p.pad_low[d] <= -kLimit ||
        p.in_stride[d] < 0 || p.in_stride[d] >= 2 * kLimit)
      return false;
  return true;
}

// A pad forward of 2- or 4-byte elements (the widths measured, session 19)
// in rows of at most PadTilesTraits::kMaxSlotRowBytes (and at least a
// vector) in slot tiles of about kSlotTileBytes of output, each slot an
// output row (pad_forward_slots.h): true and its tiles, or false.
inline bool pad_forward_takes_slot_tiles(const RowsProblem &p, int elem_bytes, PadSlotTiles &f) {
  if (elem_bytes != 2 && elem_bytes != 4) return false;
  int64_t begin, window;
  pad_forward_window(p, begin, window);
  const int inner = p.rank - 1;
  const int64_t n = p.in_extent[inner], lo = p.pad_low[inner], w = p.out_extent[inner];
  if (w * elem_bytes < 16 || !row_tiles_serve(p, elem_bytes, window, PadTilesTraits::kMaxSlotRowBytes)) return false;
  // The kernel maps the inner axis's columns in 32-bit arithmetic.
  if (n > kMaxTileInnerIndex || lo > kMaxTileInnerIndex || lo < -kMaxTileInnerIndex) return false;
  if (!slot_tiles_index_in_32_bits(p, elem_bytes)) return false;
  const int32_t v = 16 / elem_bytes;
  f.lead = pad_slot_lead(lo, begin, v);
  // Where some row ends off the 16-byte grid, vectors cross row ends: each
  // slot then holds the next row's first v - 1 columns.
  const bool on_grid = (w * elem_bytes) % 16 == 0 && reinterpret_cast<uintptr_t>(p.out) % 16 == 0;
  f.overhang = on_grid ? 0 : v - 1;
  f.slot_stride = pad_slot_stride(f.lead, lo, begin, static_cast<int32_t>(w + f.overhang), v);
  f.slot_stride = bank_aligned_slot_stride(f.slot_stride, w * elem_bytes);
  int32_t a, b;
  interior_columns(lo, n, static_cast<int32_t>(w), a, b);
  f.pad_columns = a + static_cast<int32_t>(w) - b;
  f.interior_begin = a;
  f.interior_end = b;
  f.item_div = fast_divisor(f.pad_columns + f.overhang > 0 ? f.pad_columns + f.overhang : 1);
  // The staged copies take t.slot_vectors of a slot, the rest of its stride is extra bytes.
  const int64_t staged = window > 0 ? (window * elem_bytes + 15) / 16 + 1 : 0;
  // Tiles of a whole number of the rows after which the output is back at its
  // 16-byte phase: every tile then starts where the one before ended, on a
  // 16-byte boundary (for an aligned output), and no vector is split between two.
  const int64_t period = slot_row_period(w, elem_bytes);
  int64_t rows = PadTilesTraits::kSlotTileBytes / (w * elem_bytes);
  if (rows >= period) rows -= rows % period;
  return fit_row_tiles(p, elem_bytes, begin, window, rows > 1 ? rows : 1, f.t, (f.slot_stride - staged) * 16);
}

// The shared memory a slot-tile block asks for (`need` or more) so that at
// most `blocks` blocks fit an SM of smem_per_sm bytes, each with `reserved`
// bytes besides; `need` where no more than that fit anyway, or where the
// padding would pass kMaxTileSmemBytes.
inline uint32_t smem_for_blocks_per_sm(uint32_t need, int64_t smem_per_sm, int64_t reserved, int blocks) {
  if (blocks <= 0) return need;
  const int64_t enough = smem_per_sm / (blocks + 1) - reserved + 1;  // blocks + 1 such blocks do not fit
  return enough <= need || enough > kMaxTileSmemBytes ? need : static_cast<uint32_t>(enough);
}

// A pad backward's tiles (reflect, replicate, circular): the dx rows of a
// block, and how many dy rows (slots) its shared memory stages at once.
struct SumTiles {
  RowTiles t;
  int32_t slots;
};

// The band's weight for pad_backward_takes_tiles: how many dx columns of a
// row have several inner sources (`columns`), but for replicate, whose two
// edge columns sum every pad column, the pad columns, wide pads too
// (session 23, H200: rows of 8192 padded by 100 and 300 in tiles, their
// wide edges summed beside the other vectors, 16-bit 83 -> 90-91% of copy,
// f32 92 -> 96-97%, against the passes).
template <IndexMap M>
int64_t sum_band_columns(const RowsProblem &p, int64_t columns) {
  if constexpr (M == IndexMap::Replicate) {
    const int inner = p.rank - 1;
    return p.pad_low[inner] + (p.in_extent[inner] - p.out_extent[inner] - p.pad_low[inner]);
  }
  return columns;
}

// A pad backward (out = dx, in = dy) in tiles of about
// PadTilesTraits::kSumTileBytes of dx, at most one row a thread, each dy row
// staged whole; max_sources: the most dy rows any dx row has (what one round
// of a block must hold), saturated at anything over the slots that fit;
// band_columns: how many dx columns have several inner sources.
inline bool pad_backward_takes_tiles(const RowsProblem &p, int elem_bytes, int64_t max_sources,
                                     int64_t band_columns, SumTiles &s) {
  const int inner = p.rank - 1;
  const int64_t window = p.in_extent[inner], w = p.out_extent[inner];
  const int64_t longest = band_columns * elem_bytes >= PadTilesTraits::kSumBandBytes
                              ? PadTilesTraits::kMaxBandSumRowBytes
                              : PadTilesTraits::kMaxSumRowBytes;
  if (!row_tiles_serve(p, elem_bytes, window, longest)) return false;
  // The kernel lists a tile's rows in 32-bit arithmetic (sums of an outer
  // extent, twice another and a pad).
  constexpr int64_t kOuterLimit = int64_t{1} << 29;
  for (int d = 0; d < inner; ++d)
    if (p.out_extent[d] >= kOuterLimit || p.in_extent[d] >= kOuterLimit || p.pad_low[d] >= kOuterLimit ||
        p.pad_low[d] <= -kOuterLimit)
      return false;
  int64_t rows = PadTilesTraits::kSumTileBytes / (w * elem_bytes);
  rows = rows < 1 ? 1 : rows > PadTilesTraits::kThreads ? PadTilesTraits::kThreads : rows;
  for (;; rows /= 2) {
    s.t = make_row_tiles(p, elem_bytes, 0, window, static_cast<int32_t>(rows));
    // A vector more a slot: a slot may start a vector late, on its row's
    // 32-byte phase (pad_backward_tiles.cuh).
    s.t.slot_vectors += 1;
    s.t.slot_div = fast_divisor(s.t.slot_vectors);
    int64_t slots = rows + rows * PadTilesTraits::kSumSpareSlotsPercent / 100;
    if (slots < max_sources) slots = max_sources;
    s.slots = static_cast<int32_t>(slots < kMaxTileSmemBytes ? slots : kMaxTileSmemBytes);
    s.t.smem_bytes = row_tile_smem_bytes(s.slots, s.t.slot_vectors, 0);
    if (slots <= kMaxTileSmemBytes && s.t.smem_bytes <= kMaxTileSmemBytes) return true;
    if (rows == 1) return false;
  }
}

// Where pad backward's tiles may read their dy rows as one flat range
// (pad_backward_plane_tiles.cuh), planes of the last outer axis at a time
// (at most 32 a tile: a warp checks them): tiles of whole planes where dx
// rows are whole 16-byte vectors from a 16-byte boundary, and tiles
// anywhere along a plane axis without a pad where rows of at most
// kMaxSumRowBytes are at least a vector wide; dense dy rows, no replicate
// edge of kSumLateEdgeCopies or more (replicate: whether the mode is), and
// the range (from its 16-byte boundary, a vector late, a vector after it
// for the shifted reads) inside the slots' shared memory. The plane's rows,
// else 0.
inline int32_t pad_backward_plane_rows(const RowsProblem &p, int elem_bytes, const SumTiles &s, bool replicate) {
  if (p.rank < 2) return 0;
  const int inner = p.rank - 1, axis = p.rank - 2;
  const int64_t rows = p.out_extent[axis], dy_rows = p.in_extent[axis], tile = s.t.rows_per_block;
  const int64_t w = p.out_extent[inner], lo = p.pad_low[inner], hi = p.in_extent[inner] - w - lo;
  if (rows < 1 || p.in_stride[axis] != p.in_extent[inner]) return 0;
  if (replicate && (lo >= PadTilesTraits::kSumLateEdgeCopies || hi >= PadTilesTraits::kSumLateEdgeCopies)) return 0;
  int64_t range_rows = 0;
  if (p.pad_low[axis] == 0 && dy_rows == rows) {
    if (w * elem_bytes < 16 || w * elem_bytes > PadTilesTraits::kMaxSumRowBytes || (tile - 1) / rows + 2 > 32) return 0;
    range_rows = tile;
  } else {
    if (tile % rows != 0 || tile / rows > 32 || (w * elem_bytes) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(p.out) % 16 != 0)
      return 0;
    range_rows = tile / rows * dy_rows;
  }
  const int64_t range_bytes = range_rows * p.in_stride[axis] * elem_bytes;
  if ((range_bytes + 15) / 16 * 16 + 3 * 16 > s.t.smem_bytes) return 0;
  return static_cast<int32_t>(rows);
}

}  // namespace baracuda::kernels
