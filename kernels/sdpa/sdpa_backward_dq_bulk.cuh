// The atomic backward's dQ added by the copy engine (sm_90 and later): a
// warp's dQ chunk is staged in shared memory a row atom at a time and each
// of its rows goes out as one bulk reduction (cp.reduce.async.bulk .add.f32),
// where red.global from registers waited in the load/store unit's queue and
// held the next chunk's products behind it (bench/NOTES.md, session 23:
// lg_throttle and the reductions' long scoreboard took a third of the D 256
// backward's dQ samples). Row copies need no tensor map: the plan layer
// stays as it is.
#pragma once

// Included by sdpa_backward_kernel.cuh after the helpers it uses
// (load_transposed_a, mma_tile_by_tile, reduce_dq).
#include <cstdint>

#include "sdpa/sm90/sm90_async_copy.cuh"

namespace baracuda::kernels::sdpa {

// Stages a warp's dQ chunk (scaled) and adds it to the f32 workspace by
// bulk reductions: row atom m through the warp's buffer m % 2 at `staging`
// (shared window, two of Tr::kDqStagingBytes), waiting first for the copies
// that read that buffer last (the buffers alternate in every warp, so only
// the most recent group may still read). dq_warp: the workspace's row dq_row,
// column dq_col of the tile; c0: the chunk's column in the warp's columns;
// rows_left: the tile's rows that exist.
template <class Tr>
__device__ __forceinline__ void bulk_reduce_dq_chunk(float *dq_warp, const float (&dq)[Tr::kDqRowAtoms][4][4],
                                                     int rows_left, int D, float scale, uint32_t staging, int dq_row,
                                                     int dq_col, int c0, int lane) {
  constexpr int QA = Tr::kDqRowAtoms, NQ = Tr::kDqChunk / 8;
  static_assert(Tr::kDqChunk == 32 && Tr::kDqStagingBytes == 16 * 128, "16 rows of 128 bytes a buffer");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Row r of a buffer is its 128 contiguous bytes from r * 128, as the copy
  // reads it. An accumulator tile's lanes hold rows lane / 4 (+ 8) at
  // columns 8 n + 2 (lane % 4): stored tile by tile, their 8 rows would hit
  // the same 8 banks. Lane pairs of rows take the tiles from tile
  // (lane / 8) on, so a store's 8 rows spread over all 32 banks (two
  // wavefronts, the least for 256 bytes).
  const int rotate = lane / 8;
  const uint32_t store_off = (lane / 4) * 128 + (lane % 4) * 8;
  const uint32_t copy_off = (lane % 16) * 128;
  const bool issuer = lane < 16;
  const int col0 = dq_col + c0;
  const bool any_column = col0 < D;
  const uint32_t bytes = static_cast<uint32_t>(D - col0 < Tr::kDqChunk ? D - col0 : Tr::kDqChunk) * 4u;
#pragma unroll
  for (int m = 0; m < QA; ++m) {
    const uint32_t buf = staging + (m % 2) * Tr::kDqStagingBytes;
    if (issuer) sm90::bulk_wait_read<1>();
    __syncwarp();
#pragma unroll
    for (int k = 0; k < NQ; ++k) {
      const int n = (k + rotate) % NQ;
      float v[4];
#pragma unroll
      for (int e = 0; e < 4; ++e)
        v[e] = n == 0 ? dq[m][0][e] : n == 1 ? dq[m][1][e] : n == 2 ? dq[m][2][e] : dq[m][3][e];
#pragma unroll
      for (int half = 0; half < 2; ++half)
        asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(buf + store_off + half * 1024 + n * 32),
                     "f"(scale * v[2 * half]), "f"(scale * v[2 * half + 1])
                     : "memory");
    }
    sm90::fence_async_shared();
    __syncwarp();
    if (issuer && any_column && dq_row + m * 16 + lane % 16 < rows_left)
      sm90::bulk_reduce_add_f32(dq_warp + (m * 16 + lane % 16) * D + c0, buf + copy_off, bytes);
    if (issuer) sm90::bulk_commit();
  }
#else
  // A JIT from compute_80 PTX on a device that holds the tile: the
  // reductions from registers, as add_dq_part issues them.
  (void)staging;
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
// `staging`. Issuing lanes wait for their copies to read the buffers before
// returning, ahead of the block barrier that lets the next step's scores in.
template <class T, class Tr>
__device__ __forceinline__ void add_dq_part_bulk(float *dq_warp, int rows_left, int D, float scale, uint32_t sdS,
                                                 uint32_t sK, uint32_t staging, int dq_row, int dq_col, int lane) {
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
    bulk_reduce_dq_chunk<Tr>(dq_warp, dq, rows_left, D, scale, staging, dq_row, dq_col, c0, lane);
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (lane < 16) sm90::bulk_wait_read<0>();
#endif
}

}  // namespace baracuda::kernels::sdpa
