// Moving [rows][head_dim_tile] tiles of 2-byte elements between global and
// shared memory. Shared tiles are swizzled by 16-byte chunks (chunk c of row r
// sits at c ^ (r % 8)), so the eight row addresses of an ldmatrix and the
// fragment stores of the epilogue hit eight different bank groups.
#pragma once

#include <cstdint>

#include "sdpa/sdpa_tc_primitives.cuh"

namespace baracuda::kernels::sdpa_tc {

// Byte offset of (row, col) in a swizzled tile with HeadDim columns.
template <int HeadDim>
__device__ __forceinline__ uint32_t swizzled(int row, int col) {
  return static_cast<uint32_t>(row * HeadDim + ((((col >> 3) ^ (row & 7))) << 3) + (col & 7)) * 2u;
}

// The ldmatrix address of a thread for 16-column step `step` of a tile: its
// row's swizzled offset at step 0 (swizzled(row, 8 half), half = 0 or 1, the
// thread's 8-column half of the step), moved to column chunk 2 step + half.
// The swizzle XORs only the low 3 bits of the chunk with row % 8, so chunk
// 2 step + half lands at 8 (step / 4) + ((2 (step % 4) + half) ^ row % 8):
// an XOR with 32 (step % 4) and an add of 128 (step / 4) bytes. Every step
// then shares one of four registers, the add riding in ldmatrix's immediate
// (a distinct XOR per step held 16 address registers a tile at D 256, where
// the kernels spill).
__device__ __forceinline__ uint32_t at_step(uint32_t offset_at_step0, int step) {
  return (offset_at_step0 ^ static_cast<uint32_t>(32 * (step % 4))) + static_cast<uint32_t>(128 * (step / 4));
}

// The same for 8-column block `block` (a 16-byte chunk) of an element
// offset within its chunk: chunk `block` lands at 8 (block / 8) +
// ((block % 8) ^ row % 8), an XOR with 16 (block % 8) and an add of
// 128 (block / 8) bytes of the offset at block 0.
__device__ __forceinline__ uint32_t at_block(uint32_t offset_at_block0, int block) {
  return (offset_at_block0 ^ static_cast<uint32_t>(16 * (block % 8))) + static_cast<uint32_t>(128 * (block / 8));
}

// Eight 2-byte elements from an address with no 16-byte alignment.
__device__ __forceinline__ uint4 load_8_unaligned(const void *src) {
  const uint16_t *s = static_cast<const uint16_t *>(src);
  uint32_t w[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) w[k] = static_cast<uint32_t>(s[2 * k]) | (static_cast<uint32_t>(s[2 * k + 1]) << 16);
  return make_uint4(w[0], w[1], w[2], w[3]);
}
__device__ __forceinline__ void store_8_unaligned(void *dst, uint4 v) {
  uint16_t *d = static_cast<uint16_t *>(dst);
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    d[2 * k] = static_cast<uint16_t>(w[k]);
    d[2 * k + 1] = static_cast<uint16_t>(w[k] >> 16);
  }
}

__device__ __forceinline__ void st_shared_16(uint32_t addr, uint4 v) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
}
__device__ __forceinline__ uint4 ld_shared_16(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
  return v;
}
__device__ __forceinline__ void st_shared_4(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v));
}

// Rows [0, Rows) of a tile whose row 0 is at g, rows_left of them real,
// zero past row rows_left or column cols: the MMAs take the whole tile, the
// zeros adding nothing (a branch on the head size would cost more, as it
// stops the fragment loads from running ahead of the MMAs). Aligned tiles go through cp.async
// (the caller commits the group); the others through plain loads. A thread
// keeps one chunk column and steps down the rows.
template <int Rows, int HeadDim, int Threads>
__device__ __forceinline__ void load_tile(uint32_t s_tile, const uint16_t *g, int64_t row_stride, int64_t rows_left,
                                          int cols, bool aligned) {
  constexpr int kChunksPerRow = HeadDim / 8;
  constexpr int kRowStep = Threads / kChunksPerRow;
  static_assert(Threads % kChunksPerRow == 0 && Rows % kRowStep == 0, "every thread copies whole columns");
  const int row0 = static_cast<int>(threadIdx.x) / kChunksPerRow, chunk = static_cast<int>(threadIdx.x) % kChunksPerRow;
  const bool real_col = chunk * 8 < cols;
  // Opaque to the optimizer, so the row offsets are stepped here rather than
  // hoisted out of the key loop, one 64-bit register pair per row.
  int64_t step = row_stride * kRowStep;
  asm volatile("" : "+l"(step));
  const uint16_t *src = g + row0 * row_stride + chunk * 8;
  const uint32_t dst = s_tile + swizzled<HeadDim>(row0, chunk * 8);
  // kRowStep is a multiple of 8 or the swizzle's row % 8 changes with k.
  constexpr uint32_t kDstStep = kRowStep * HeadDim * 2;
  if (aligned) {
#pragma unroll
    for (int k = 0; k < Rows / kRowStep; ++k, src += step) {
      const bool real = real_col && row0 + k * kRowStep < rows_left;
      const uint32_t d =
          kRowStep % 8 == 0 ? dst + k * kDstStep : s_tile + swizzled<HeadDim>(row0 + k * kRowStep, chunk * 8);
      cp_async_16(d, real ? src : g, real ? 16 : 0);
    }
  } else {
#pragma unroll
    for (int k = 0; k < Rows / kRowStep; ++k, src += step) {
      const bool real = real_col && row0 + k * kRowStep < rows_left;
      const uint32_t d =
          kRowStep % 8 == 0 ? dst + k * kDstStep : s_tile + swizzled<HeadDim>(row0 + k * kRowStep, chunk * 8);
      st_shared_16(d, real ? load_8_unaligned(src) : make_uint4(0, 0, 0, 0));
    }
  }
}

// load_tile for the forward's key loop (and the backward's Q/dO tiles),
// Aligned a template flag and the copies issued a row step at a time: the
// thread's real rows counted in 32 bits, one compare a row, and no select
// of the source address (64-bit compares and selects
// took 12 instructions a copy, 200 of a D 128 key tile's; the backward keeps
// load_tile, its SASS unchanged).
template <int Rows, int HeadDim, int Threads>
struct TileRowCopies {
  static constexpr int kChunksPerRow = HeadDim / 8;
  static constexpr int kRowStep = Threads / kChunksPerRow;
  static constexpr int kSteps = Rows / kRowStep;
  static_assert(Threads % kChunksPerRow == 0 && Rows % kRowStep == 0, "every thread copies whole columns");

  const uint16_t *src;  // the next step's row
  int64_t step;
  uint32_t s_tile, dst;
  int rows_after_row0;  // the thread's real rows past its first

  __device__ __forceinline__ TileRowCopies(uint32_t tile, const uint16_t *g, int64_t row_stride, int64_t rows_left,
                                           int cols)
      : step(row_stride * kRowStep), s_tile(tile) {
    const int row0 = row(), chunk = static_cast<int>(threadIdx.x) % kChunksPerRow;
    rows_after_row0 = chunk * 8 < cols ? static_cast<int>(rows_left < Rows ? rows_left : Rows) - row0 : 0;
    // Opaque to the optimizer, so the row offsets are stepped here rather
    // than hoisted out of the key loop, one 64-bit register pair per row.
    asm volatile("" : "+l"(step));
    src = g + row0 * row_stride + chunk * 8;
    dst = s_tile + swizzled<HeadDim>(row0, chunk * 8);
  }
  __device__ __forceinline__ static int row() { return static_cast<int>(threadIdx.x) / kChunksPerRow; }

  // Row step k (0, 1, ... in turn): its chunk, zeros past the real rows and
  // columns. A zero-byte cp.async reads nothing, so the address of a row
  // past the tensor's end is never dereferenced.
  template <bool Aligned>
  __device__ __forceinline__ void issue(int k) {
    const bool real = k * kRowStep < rows_after_row0;
    // kRowStep is a multiple of 8 or the swizzle's row % 8 changes with k.
    const uint32_t d = kRowStep % 8 == 0 ? dst + k * kRowStep * HeadDim * 2
                                         : s_tile + swizzled<HeadDim>(row() + k * kRowStep,
                                                                      static_cast<int>(threadIdx.x) % kChunksPerRow * 8);
    if constexpr (Aligned)
      cp_async_16(d, src, real ? 16 : 0);
    else
      st_shared_16(d, real ? load_8_unaligned(src) : make_uint4(0, 0, 0, 0));
    src += step;
  }
};

// A whole tile's copies at once.
template <int Rows, int HeadDim, int Threads, bool Aligned>
__device__ __forceinline__ void load_tile_clamped(uint32_t s_tile, const uint16_t *g, int64_t row_stride,
                                                  int64_t rows_left, int cols) {
  TileRowCopies<Rows, HeadDim, Threads> copies(s_tile, g, row_stride, rows_left, cols);
#pragma unroll
  for (int k = 0; k < copies.kSteps; ++k) copies.template issue<Aligned>(k);
}

// The inverse for the output: rows [0, rows_left) and columns [0, cols) of
// the shared tile to global memory at g.
template <int Rows, int HeadDim, int Threads>
__device__ __forceinline__ void store_tile(uint16_t *g, int64_t row_stride, int64_t rows_left, int cols,
                                           uint32_t s_tile, bool aligned) {
  constexpr int kChunksPerRow = HeadDim / 8;
  static_assert(Rows * kChunksPerRow % Threads == 0, "every thread copies the same number of chunks");
#pragma unroll
  for (int k = 0; k < Rows * kChunksPerRow / Threads; ++k) {
    const int c = static_cast<int>(threadIdx.x) + k * Threads;
    const int row = c / kChunksPerRow, chunk = c % kChunksPerRow;
    if (row >= rows_left || chunk * 8 >= cols) continue;
    const uint4 v = ld_shared_16(s_tile + swizzled<HeadDim>(row, chunk * 8));
    uint16_t *dst = g + row * row_stride + chunk * 8;
    if (aligned)
      *reinterpret_cast<uint4 *>(dst) = v;
    else
      store_8_unaligned(dst, v);
  }
}

}  // namespace baracuda::kernels::sdpa_tc
