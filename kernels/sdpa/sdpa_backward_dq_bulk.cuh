// The atomic backward's dQ added by the copy engine (sm_90 and later): a
// warp stages its dQ chunk in shared memory a row atom (16 x 32 f32) at a
// time and one lane adds the box to the f32 workspace by a tensor-map bulk
// reduction (cp.reduce.async.bulk.tensor .add), where red.global from
// registers waited in the load/store unit's queue and held the next chunk's
// products behind it (bench/NOTES.md, session 23: lg_throttle and the
// reductions' long scoreboard took a third of the D 256 backward's dQ
// samples). One reduction a row (no tensor map) ran 0.80x red.global at D
// 256, the box's one 1.12x (session 24).
#pragma once

// Included by sdpa_backward_kernel.cuh after the helpers it uses
// (load_transposed_a, mma_tile_by_tile, reduce_dq).
#include <cuda.h>

#include <cstdint>

#include "sdpa/sm90/sm90_async_copy.cuh"

namespace baracuda::kernels::sdpa {

// Stages a warp's dQ chunk (scaled) and adds it to the f32 workspace by
// bulk reductions: row atom m through the warp's buffer m % 2 at `staging`
// (shared window, 1024-byte aligned, two of Tr::kDqStagingBytes), lane 0
// waiting first for the reduction that read that buffer last (the buffers
// alternate in every warp, so only the most recent one may still read).
// dq_map: the workspace's [B, Hq, Q, D] map, boxes of 32 columns by 16 rows
// (sm90::encode_dq_rows); q_row0, head, batch: the warp's first row's
// coordinates; c0: the chunk's column in the warp's columns; rows_left: the
// tile's rows that exist. dq_warp (the workspace's row dq_row, column
// dq_col of the tile) serves the reductions from registers where the code
// is compiled for sm_80.
template <class Tr>
__device__ __forceinline__ void bulk_reduce_dq_chunk(float *dq_warp, const float (&dq)[Tr::kDqRowAtoms][4][4],
                                                     int rows_left, int D, float scale, uint32_t staging, int dq_row,
                                                     int dq_col, int c0, int lane, const CUtensorMap *dq_map,
                                                     int64_t q_row0, int32_t head, int32_t batch) {
  static_assert(Tr::kDqChunk == 32 && Tr::kDqStagingBytes == 16 * 128, "16 rows of 128 bytes a buffer");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int QA = Tr::kDqRowAtoms, NQ = Tr::kDqChunk / 8;
  // A buffer is the map's box of 16 rows of 32 f32 (128 bytes) in the
  // 128-byte swizzle: the 16-byte chunk c of row r at chunk c ^ (r % 8), so
  // that an accumulator tile's 8 rows spread over all 32 banks.
  (void)dq_warp;
  const int g = lane / 4, t = lane % 4;
  const bool any_column = dq_col + c0 < D;
#pragma unroll
  for (int m = 0; m < QA; ++m) {
    const uint32_t buf = staging + (m % 2) * Tr::kDqStagingBytes;
    if (lane == 0) sm90::bulk_wait_read<1>();
    __syncwarp();
#pragma unroll
    for (int n = 0; n < NQ; ++n)
#pragma unroll
      for (int half = 0; half < 2; ++half)
        asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(buf + half * 1024 + g * 128 +
                                                                 (((2 * n + t / 2) ^ g) * 16) + (t % 2) * 8),
                     "f"(scale * dq[m][n][2 * half]), "f"(scale * dq[m][n][2 * half + 1])
                     : "memory");
    sm90::fence_async_shared();
    __syncwarp();
    // Rows past the queries and columns past D fall outside the map: the copy drops them.
    if (lane == 0) {
      if (any_column && dq_row + m * 16 < rows_left)
        sm90::tma_reduce_add_4d(dq_map, buf, dq_col + c0, static_cast<int32_t>(q_row0 + m * 16), head, batch);
      sm90::bulk_commit();
    }
  }
#else
  // A JIT from compute_80 PTX on a device that holds the tile: the
  // reductions from registers, as add_dq_part issues them.
  (void)staging, (void)dq_map, (void)q_row0, (void)head, (void)batch;
  float *dq_lane = dq_warp + (lane / 4) * D + (lane % 4) * 2;
  constexpr int kAll = kDqReductionsPerChunk<Tr>;
  if (rows_left == Tr::kQueries && D == Tr::kHeadTile)
    reduce_dq<Tr, false>(dq_lane, dq, 0, kAll, c0, dq_col + c0, dq_row, rows_left, D, scale, lane);
  else
    reduce_dq<Tr, true>(dq_lane, dq, 0, kAll, c0, dq_col + c0, dq_row, rows_left, D, scale, lane);
#endif
}

// add_dq_part's work with the chunks staged over the dS^T and P^T slots
// (Tr::kDqFragmentsOnce: no product reads them once every warp holds its dS
// fragments, after the block barrier here): the warp's buffers at
// `staging`. Lane 0 waits for its reductions to read the buffers before
// returning, ahead of the block barrier that lets the next step's scores in.
template <class T, class Tr>
__device__ __forceinline__ void add_dq_part_bulk(float *dq_warp, int rows_left, int D, float scale, uint32_t sdS,
                                                 uint32_t sK, uint32_t staging, int dq_row, int dq_col, int lane,
                                                 const CUtensorMap *dq_map, int64_t q_row0, int32_t head,
                                                 int32_t batch) {
  constexpr int BR = Tr::kQueries, BC = Tr::kKeys, QA = Tr::kDqRowAtoms, HT = Tr::kHeadTile;
  static_assert(Tr::kDqFragmentsOnce, "dS fragments in registers");
  uint32_t ds[BC / 16][QA][4];
  load_transposed_a<BR>(ds, sdS, dq_row, lane);
  __syncthreads();
#pragma unroll
  for (int c0 = 0; c0 < Tr::kDqColumns; c0 += Tr::kDqChunk) {
    if (dq_col + c0 >= D) break;
    float dq[QA][Tr::kDqChunk / 8][4] = {};
    mma_tile_by_tile<T, HT>(dq, ds, sK, dq_col + c0, lane);
    bulk_reduce_dq_chunk<Tr>(dq_warp, dq, rows_left, D, scale, staging, dq_row, dq_col, c0, lane, dq_map, q_row0,
                             head, batch);
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (lane == 0) sm90::bulk_wait_read<0>();
#endif
}

}  // namespace baracuda::kernels::sdpa
