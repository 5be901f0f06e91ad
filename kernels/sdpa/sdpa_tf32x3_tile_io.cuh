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

// This thread's share of Items work items, i = k Threads + threadIdx.x
// (consecutive threads take consecutive items), in batches of up to 64 bytes
// of what read(i) gives: read(i) for a batch, then write(i, what it gave).
// The splits rewrite their tiles in place, and the compiler keeps a thread's
// shared-memory loads behind its stores to the same tile: item by item, each
// load waited for the previous item's split. Bigger batches spill at D 256.
template <int Items, int Threads, class Read, class Write>
__device__ __forceinline__ void for_thread_items(Read &&read, Write &&write) {
  static_assert(Items % Threads == 0, "every thread takes as many items");
  using Value = decltype(read(0));
  constexpr int kPerThread = Items / Threads;
  constexpr int kFit = 64 / sizeof(Value) > 0 ? 64 / sizeof(Value) : 1;
  constexpr int kBatch = kPerThread < kFit ? kPerThread : kFit;
  static_assert(kPerThread % kBatch == 0, "whole batches");
#pragma unroll
  for (int k0 = 0; k0 < kPerThread; k0 += kBatch) {
    Value value[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) value[k] = read((k0 + k) * Threads + static_cast<int>(threadIdx.x));
#pragma unroll
    for (int k = 0; k < kBatch; ++k) write((k0 + k) * Threads + static_cast<int>(threadIdx.x), value[k]);
  }
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

// The 4 floats of a chunk rounded to their tf32 big halves (to be stored in
// its place) and their small halves.
struct SplitChunk {
  float4 big, small;
};
__device__ __forceinline__ SplitChunk split_chunk(const float4 &x) {
  const Tf32Halves h0 = tf32_halves(x.x), h1 = tf32_halves(x.y), h2 = tf32_halves(x.z), h3 = tf32_halves(x.w);
  return {make_float4(h0.big, h1.big, h2.big, h3.big), make_float4(h0.small, h1.small, h2.small, h3.small)};
}

// A landed K tile of Rows rows: every element rounded in place to its tf32
// big half, the small halves of columns 2c and 2c + 1 as one bf16 pair at
// word c of the row in the small plane after the tile (SmallPitch words a
// row). Each thread takes 4-column chunks, a warp 512 contiguous bytes.
template <int Rows, int HeadDim, int Pitch, int SmallPitch, int Threads>
__device__ __forceinline__ void split_k_tile(unsigned char *s_tile) {
  constexpr int kChunksPerRow = HeadDim / 4;
  const SplitTile tile = split_tile_at<Rows, Pitch>(s_tile);
  auto at = [&](int chunk) { return tile.big + chunk / kChunksPerRow * Pitch + chunk % kChunksPerRow * 4; };
  for_thread_items<Rows * kChunksPerRow, Threads>(
      [&](int chunk) { return *reinterpret_cast<const float4 *>(at(chunk)); },
      [&](int chunk, const float4 &x) {
        const SplitChunk h = split_chunk(x);
        *reinterpret_cast<float4 *>(at(chunk)) = h.big;
        *reinterpret_cast<uint2 *>(tile.small + chunk / kChunksPerRow * SmallPitch + chunk % kChunksPerRow * 2) =
            make_uint2(pack2<__nv_bfloat16>(h.small.x, h.small.y), pack2<__nv_bfloat16>(h.small.z, h.small.w));
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
  // Block i: 16 columns of the row pair (row, row + 8) of its MMA tile.
  auto at = [&](int block, int r) {
    const int pair = block / kBlocksPerRow;
    return (pair / 8 * 16 + pair % 8 + 8 * r) * Pitch + 16 * (block % kBlocksPerRow);
  };
  struct RowPairBlock {
    float4 x[2][4];  // [row, row + 8][columns 4c to 4c + 3]
  };
  for_thread_items<Rows / 2 * kBlocksPerRow, Threads>(
      [&](int block) {
        RowPairBlock b;
#pragma unroll
        for (int r = 0; r < 2; ++r)
#pragma unroll
          for (int c = 0; c < 4; ++c) b.x[r][c] = *reinterpret_cast<const float4 *>(tile.big + at(block, r) + 4 * c);
        return b;
      },
      [&](int block, const RowPairBlock &b) {
        Tf32Halves h[2][16];  // [row, row + 8][column 16j + c]
#pragma unroll
        for (int r = 0; r < 2; ++r)
#pragma unroll
          for (int c = 0; c < 4; ++c) {
            h[r][4 * c] = tf32_halves(b.x[r][c].x);
            h[r][4 * c + 1] = tf32_halves(b.x[r][c].y);
            h[r][4 * c + 2] = tf32_halves(b.x[r][c].z);
            h[r][4 * c + 3] = tf32_halves(b.x[r][c].w);
          }
        const int pair = block / kBlocksPerRow, j = block % kBlocksPerRow;
        const int row = pair / 8 * 16 + pair % 8;
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
  // Chunk i: 4 columns of a row pair.
  auto at = [&](int chunk) { return tile.big + chunk / kChunksPerRow * 2 * Pitch + chunk % kChunksPerRow * 4; };
  struct RowPair {
    float4 x, y;
  };
  for_thread_items<Rows / 2 * kChunksPerRow, Threads>(
      [&](int chunk) {
        return RowPair{*reinterpret_cast<const float4 *>(at(chunk)),
                       *reinterpret_cast<const float4 *>(at(chunk) + Pitch)};
      },
      [&](int chunk, const RowPair &r) {
        const SplitChunk x = split_chunk(r.x), y = split_chunk(r.y);
        *reinterpret_cast<float4 *>(at(chunk)) = x.big;
        *reinterpret_cast<float4 *>(at(chunk) + Pitch) = y.big;
        *reinterpret_cast<uint4 *>(tile.small + chunk / kChunksPerRow * SmallPitch + chunk % kChunksPerRow * 4) =
            make_uint4(pack2<__nv_bfloat16>(x.small.x, y.small.x), pack2<__nv_bfloat16>(x.small.y, y.small.y),
                       pack2<__nv_bfloat16>(x.small.z, y.small.z), pack2<__nv_bfloat16>(x.small.w, y.small.w));
      });
}

}  // namespace baracuda::kernels::sdpa_tc
