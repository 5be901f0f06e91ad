// Moving [rows][head_dim_tile] f32 tiles from global into shared memory,
// rows `Pitch` floats apart, and splitting them there into tf32 halves once
// they have landed (sdpa_tf32x3_heuristics.h gives the layout).
#pragma once

#include <cstdint>

#include "sdpa/sdpa_tc_primitives.cuh"
#include "sdpa/sdpa_tf32_split.cuh"

namespace baracuda::kernels::sdpa_tc {

// Rows [0, Rows) of a tile whose row 0 is at g, rows_left of them real, zero
// past row rows_left or column cols (the MMAs take the whole tile, the zeros
// adding nothing). Aligned rows go through cp.async (the caller commits the
// group), the others through plain loads. A thread keeps one 4-float chunk
// column and steps down the rows.
template <int Rows, int HeadDim, int Pitch, int Threads>
__device__ __forceinline__ void load_tile_f32(unsigned char *s_tile, const float *g, int64_t row_stride,
                                              int64_t rows_left, int cols, bool aligned) {
  constexpr int kChunksPerRow = HeadDim / 4;
  constexpr int kRowStep = Threads / kChunksPerRow;
  static_assert(Threads % kChunksPerRow == 0 && Rows % kRowStep == 0, "every thread copies whole columns");
  const int row0 = static_cast<int>(threadIdx.x) / kChunksPerRow, chunk = static_cast<int>(threadIdx.x) % kChunksPerRow;
  const bool real_col = chunk * 4 < cols;
  const int64_t step = row_stride * kRowStep;
  const float *src = g + row0 * row_stride + chunk * 4;
  float *dst = reinterpret_cast<float *>(s_tile) + row0 * Pitch + chunk * 4;
  constexpr int kDstStep = kRowStep * Pitch;
#pragma unroll
  for (int k = 0; k < Rows / kRowStep; ++k, src += step) {
    const bool real = real_col && row0 + k * kRowStep < rows_left;
    if (aligned) {
      cp_async_16(dst + k * kDstStep, real ? src : g, real);
    } else {
      *reinterpret_cast<float4 *>(dst + k * kDstStep) =
          real ? make_float4(src[0], src[1], src[2], src[3]) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
  }
}

// Runs item(i) for this thread's share of Items work items, i = k Threads +
// threadIdx.x: consecutive threads take consecutive items.
template <int Items, int Threads, class Item>
__device__ __forceinline__ void for_thread_items(Item &&item) {
  static_assert(Items % Threads == 0, "every thread takes as many items");
#pragma unroll
  for (int k = 0; k < Items / Threads; ++k) item(k * Threads + static_cast<int>(threadIdx.x));
}

// A tile of Rows rows, Pitch floats apart, and its small plane right after them.
struct SplitTile {
  float *big;
  uint32_t *small;
};
template <int Rows, int Pitch>
__device__ __forceinline__ SplitTile split_tile_at(unsigned char *s_tile) {
  return {reinterpret_cast<float *>(s_tile), reinterpret_cast<uint32_t *>(s_tile + Rows * Pitch * sizeof(float))};
}

// The 4 floats at `at` (16-byte aligned) rounded in place to their tf32 big
// halves; returns their small halves.
__device__ __forceinline__ float4 split_chunk_in_place(float *at) {
  float4 *chunk = reinterpret_cast<float4 *>(at);
  const float4 x = *chunk;
  const Tf32Halves h0 = tf32_halves(x.x), h1 = tf32_halves(x.y), h2 = tf32_halves(x.z), h3 = tf32_halves(x.w);
  *chunk = make_float4(h0.big, h1.big, h2.big, h3.big);
  return make_float4(h0.small, h1.small, h2.small, h3.small);
}

// A landed K tile of Rows rows: every element rounded in place to its tf32
// big half, the small halves of columns 2c and 2c + 1 as one bf16 pair at
// word c of the row in the small plane after the tile (SmallPitch words a
// row). Each thread takes 4-column chunks, a warp 512 contiguous bytes.
template <int Rows, int HeadDim, int Pitch, int SmallPitch, int Threads>
__device__ __forceinline__ void split_k_tile(unsigned char *s_tile) {
  constexpr int kChunksPerRow = HeadDim / 4;
  const SplitTile tile = split_tile_at<Rows, Pitch>(s_tile);
  for_thread_items<Rows * kChunksPerRow, Threads>([&](int chunk) {
    const int row = chunk / kChunksPerRow, col = chunk % kChunksPerRow * 4;
    const float4 x = split_chunk_in_place(tile.big + row * Pitch + col);
    *reinterpret_cast<uint2 *>(tile.small + row * SmallPitch + col / 2) =
        make_uint2(pack2<__nv_bfloat16>(x.x, x.y), pack2<__nv_bfloat16>(x.z, x.w));
  });
}

// The landed Q tile of Rows rows, rewritten in place as tf32 A fragments:
// in each 16-row MMA tile, rows g and g + 8 (g < 8) hold the fragments of
// the 8-column steps 2j (in row g) and 2j + 1 (in row g + 8) at words 16j +
// 4t, t < 4: the big halves of (g, c), (g + 8, c), (g, c + 1), (g + 8, c + 1)
// with c = 8 kk + 2t (sdpa_forward_tf32x3.cuh's column order). Their small
// halves go to the small plane after the tile, in the same rows at words
// 8j + 2t: the bf16 pairs (g, c), (g, c + 1) and (g + 8, c), (g + 8, c + 1).
// A thread rewrites a 16-column block of one row pair: it reads what it writes.
template <int Rows, int HeadDim, int Pitch, int SmallPitch, int Threads>
__device__ __forceinline__ void split_q_tile(unsigned char *s_tile) {
  constexpr int kBlocksPerRow = HeadDim / 16;
  static_assert(Rows % 16 == 0, "whole 16-row MMA tiles");
  const SplitTile tile = split_tile_at<Rows, Pitch>(s_tile);
  for_thread_items<Rows / 2 * kBlocksPerRow, Threads>([&](int block) {
    const int pair = block / kBlocksPerRow, j = block % kBlocksPerRow;
    const int row = pair / 8 * 16 + pair % 8;  // and row + 8
    Tf32Halves h[2][16];                         // [row, row + 8][column 16j + c]
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int c = 0; c < 16; c += 4) {
        const float4 x = *reinterpret_cast<const float4 *>(tile.big + (row + 8 * r) * Pitch + 16 * j + c);
        h[r][c] = tf32_halves(x.x);
        h[r][c + 1] = tf32_halves(x.y);
        h[r][c + 2] = tf32_halves(x.z);
        h[r][c + 3] = tf32_halves(x.w);
      }
#pragma unroll
    for (int step = 0; step < 2; ++step)  // kk = 2j + step, written to row + 8 step
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        const int c = 8 * step + 2 * t;
        *reinterpret_cast<float4 *>(tile.big + (row + 8 * step) * Pitch + 16 * j + 4 * t) =
            make_float4(h[0][c].big, h[1][c].big, h[0][c + 1].big, h[1][c + 1].big);
        *reinterpret_cast<uint2 *>(tile.small + (row + 8 * step) * SmallPitch + 8 * j + 2 * t) =
            make_uint2(pack2<__nv_bfloat16>(h[0][c].small, h[0][c + 1].small),
                       pack2<__nv_bfloat16>(h[1][c].small, h[1][c + 1].small));
      }
  });
}

// A landed V tile of Rows rows, as split_k_tile but pairing rows: the small
// halves of rows 2r and 2r + 1 in column c as one bf16 pair at (r, c) of the
// small plane.
template <int Rows, int HeadDim, int Pitch, int SmallPitch, int Threads>
__device__ __forceinline__ void split_v_tile(unsigned char *s_tile) {
  constexpr int kChunksPerRow = HeadDim / 4;
  static_assert(Rows % 2 == 0, "whole row pairs");
  const SplitTile tile = split_tile_at<Rows, Pitch>(s_tile);
  for_thread_items<Rows / 2 * kChunksPerRow, Threads>([&](int chunk) {
    const int pair = chunk / kChunksPerRow, col = chunk % kChunksPerRow * 4;
    const float4 x = split_chunk_in_place(tile.big + 2 * pair * Pitch + col);
    const float4 y = split_chunk_in_place(tile.big + (2 * pair + 1) * Pitch + col);
    *reinterpret_cast<uint4 *>(tile.small + pair * SmallPitch + col) =
        make_uint4(pack2<__nv_bfloat16>(x.x, y.x), pack2<__nv_bfloat16>(x.y, y.y), pack2<__nv_bfloat16>(x.z, y.z),
                   pack2<__nv_bfloat16>(x.w, y.w));
  });
}

}  // namespace baracuda::kernels::sdpa_tc
