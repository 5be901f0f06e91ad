// A rows problem with a dense output cut into tiles of whole output rows,
// each tile's source rows staged through shared memory: where rows are
// short, a block loads every source row of its tile with aligned 16-byte
// copies (the rows of consecutive output rows lie mostly one after another),
// and writes its output as one contiguous run of 16-byte vector stores,
// each element picked from shared memory by its row and column. Host-only,
// no CUDA; the device side is row_tiles.cuh.
#pragma once

#include <cstdint>

#include "common/fast_divisor.h"
#include "common/host_device.h"
#include "common/rows_problem.h"

namespace baracuda::kernels {

// The output has no gaps: unit-stride rows, each axis's stride the size of
// the axes inside it (a tile's rows are then one contiguous run).
inline bool dense_output(const RowsProblem &p) {
  int64_t size = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    if (p.out_extent[d] != 1 && p.out_stride[d] != size) return false;
    size *= p.out_extent[d];
  }
  return true;
}

struct RowTiles {
  int64_t rows;             // output rows: the product of the outer extents
  int32_t rows_per_block;   // of a tile
  int64_t blocks;
  int32_t width;            // output row width
  int64_t window_begin;     // first source column staged per row
  int32_t window;           // source columns staged per row
  int32_t slot_vectors;     // 16-byte vectors of a row's slot: the window at any 16-byte phase
  int64_t source_span;      // elements from the input's first that its last lies within
  FastDivisor width_div;    // of width
  FastDivisor slot_div;     // of slot_vectors
  FastDivisor outer_div[kMaxRank - 1];  // of each outer output extent (rows < 2^31)
  FastDivisor edge_div;     // of the edge vectors a row (edge_vectors_per_row), set at launch
  uint32_t smem_bytes;      // a block's shared memory: the slots, each one's copies (12 bytes) and word, extra bytes
};

// The shared memory a tile of `rows` rows of `slot_vectors` vectors and
// `extra` more bytes a row takes (those from a 16-byte boundary).
inline uint32_t row_tile_smem_bytes(int64_t rows, int64_t slot_vectors, int64_t extra) {
  return static_cast<uint32_t>(rows * (slot_vectors * 16 + 8 + 4 + 4 + extra) + (extra > 0 ? 15 : 0));
}

// A tile's 16-byte output vectors (v elements each; vector k starts at
// tile-relative element first + k * v, first in (-v, 0]) are either inside
// one row's columns [x0, x1) (its interior, or all of a row of fill values)
// or edge vectors, each counted with the row its first element lies in; a
// row may also take the vector across its start (row 0 does: the vector
// that starts before the tile). At most this many edge vectors a row of
// `width` whose columns [x0, x1) contain [a, b):
BARACUDA_HOST_DEVICE_INLINE int32_t edge_vectors_per_row(int32_t width, int32_t a, int32_t b, int32_t v) {
  const int32_t ends = (a + 2 * v - 1) / v + (width - b + 2 * v - 2) / v, all = (width + 2 * v - 1) / v;
  return ends < all ? ends : all;
}

// The columns [a, b) of an output row of `width` that read input columns
// c - lo of an input row of n (a pad's interior).
BARACUDA_HOST_DEVICE_INLINE void interior_columns(int64_t lo, int64_t n, int32_t width, int32_t &a, int32_t &b) {
  a = static_cast<int32_t>(lo < 0 ? 0 : lo > width ? width : lo);
  b = static_cast<int32_t>(lo + n < a ? a : lo + n > width ? width : lo + n);
}

// The first vector start at or after tile-relative element x.
BARACUDA_HOST_DEVICE_INLINE int32_t vector_start_from(int32_t first, int32_t x, int32_t v) {
  return x + ((first - x) & (v - 1));
}

// Where row r's q-th edge vector starts (its columns [x0, x1) as above;
// with_start: it takes the vector across its start too), or INT32_MIN where
// the row has fewer: the vectors before its first one inside [x0, x1), then
// those from the end of its last.
BARACUDA_HOST_DEVICE_INLINE int32_t edge_vector_start(int32_t first, int32_t width, int32_t r, int32_t x0,
                                                      int32_t x1, int32_t v, int32_t q, bool with_start) {
  const int32_t row = r * width;
  const int32_t begin = with_start ? row - ((row - first) & (v - 1)) : vector_start_from(first, row, v);
  const int32_t end = vector_start_from(first, row + width, v);
  const int32_t inside = vector_start_from(first, row + x0, v), past = vector_start_from(first, row + x1 - v + 1, v);
  const int32_t heads = inside < past ? (inside - begin) / v : 0;
  const int32_t s = q < heads ? begin + q * v : (inside < past ? past : begin) + (q - heads) * v;
  return s < end ? s : INT32_MIN;
}

// Tiles of rows_per_block rows of p's output, staging source columns
// [window_begin, window_begin + window) of each row, with `extra` bytes of
// shared memory a row.
inline RowTiles make_row_tiles(const RowsProblem &p, int elem_bytes, int64_t window_begin, int64_t window,
                               int32_t rows_per_block, int64_t extra = 0) {
  RowTiles t{};
  const int inner = p.rank - 1;
  t.rows = 1;
  for (int d = 0; d < inner; ++d) t.rows *= p.out_extent[d];
  t.rows_per_block = rows_per_block;
  t.blocks = (t.rows + rows_per_block - 1) / rows_per_block;
  t.width = static_cast<int32_t>(p.out_extent[inner]);
  t.window_begin = window_begin;
  t.window = static_cast<int32_t>(window);
  t.slot_vectors = window > 0 ? static_cast<int32_t>((window * elem_bytes + 15) / 16 + 1) : 0;
  t.source_span = 1;
  for (int d = 0; d < p.rank; ++d) t.source_span += (p.in_extent[d] > 0 ? p.in_extent[d] - 1 : 0) * p.in_stride[d];
  t.width_div = fast_divisor(t.width);
  t.slot_div = fast_divisor(t.slot_vectors > 0 ? t.slot_vectors : 1);
  for (int d = 0; d < inner; ++d) t.outer_div[d] = fast_divisor(p.out_extent[d]);
  t.smem_bytes = row_tile_smem_bytes(rows_per_block, t.slot_vectors, extra);
  return t;
}

}  // namespace baracuda::kernels
