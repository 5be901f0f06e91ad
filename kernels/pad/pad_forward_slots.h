// Where a pad forward tile keeps its rows in shared memory
// (pad_forward_slot_tiles.cuh): each slot holds a whole output row, its staged
// source columns at the input's 16-byte phase, its pad columns written
// beside them and (PadSlotTiles::overhang) after them the next row's first
// V - 1 columns (V elements a vector), so that every output vector, across
// a row end too, is a shifted 16 bytes of one slot and no output element is
// picked one at a time.
// Host and device.
#pragma once

#include <cstdint>

#include "common/fast_divisor.h"
#include "common/row_tiles.h"

namespace baracuda::kernels {

struct PadSlotTiles {
  RowTiles t;           // t.slot_vectors: the staged copies a row (its window at any phase)
  int32_t slot_stride;  // 16-byte vectors a slot: an output row and V - 1 more columns at any phase
  int32_t lead;         // element of a slot its first staged vector starts at (ahead of
                        // it, the low pad columns)
  int32_t pad_columns;  // output columns a row outside its interior [a, b)
  int32_t overhang;      // the next row's first columns a slot holds after its row: V - 1, or 0 where
                         // every row ends on the 16-byte grid (no vector crosses a row end)
  int32_t interior_begin, interior_end;  // output columns [a, b) that read input columns
  FastDivisor item_div;  // of pad_columns + overhang: a row's pad columns and the next row's first columns
};

// The slot vectors an output row of `width` takes, `lead` elements after the
// slot's start plus a phase under 16 bytes, its window starting `lo` columns
// after the row (lo + window_begin of them ahead of it, 0 when cropping); the
// slot tiles ask for `width` + V - 1 (the next row's first columns after it).
BARACUDA_HOST_DEVICE_INLINE int32_t pad_slot_lead(int64_t lo, int64_t window_begin, int32_t v) {
  const int64_t ahead = lo + window_begin > 0 ? lo + window_begin : 0;
  return static_cast<int32_t>((ahead + v - 1) / v * v);
}

BARACUDA_HOST_DEVICE_INLINE int32_t pad_slot_stride(int32_t lead, int64_t lo, int64_t window_begin, int32_t width,
                                                    int32_t v) {
  // The row's first column lies at lead + phase - lo - window_begin >= 0.
  const int64_t end = lead + (v - 1) - lo - window_begin + width;
  return static_cast<int32_t>((end + v - 1) / v);
}

}  // namespace baracuda::kernels
