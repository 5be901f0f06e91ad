// The tensor-core attention backward's main kernel (FlashAttention-2's
// algorithm): a block owns one K/V tile of one (b, kv head) and walks the
// query tiles of every query head that reads it, recomputing
// P = exp(s - lse) from the forward's lse, then
//   dV += P^T dO,  dP = dO V^T,  dS = P (dP - delta),  dK += dS^T Q,
//   dQ += dS K (f32 atomics into the workspace; where the tile sets
//   kDqBulk, tensor-map bulk reductions from shared memory on sm_90 on,
//   sdpa_backward_dq_bulk.cuh).
// dK and dV of the kv head sum over its query heads in registers. Tile shapes:
// sdpa_backward_traits.h. A warp computes the transposed scores S^T of its
// key group's keys against its share of the query tile; the warps of a key
// group trade their P^T and dS^T columns through shared memory, whence the
// dV and dK products read them as A operands, and dQ reads dS^T, transposed
// by ldmatrix, with the warps split by query rows and head-size columns.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "sdpa/sdpa_backward_band.h"
#include "sdpa/sdpa_backward_traits.h"
#include "sdpa/sdpa_forward_tc_tile_io.cuh"
#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_tc_primitives.cuh"

namespace baracuda::kernels::sdpa {

// The tensor-core building blocks the forward kernels share (sdpa_tc_primitives.cuh).
using namespace sdpa_tc;

// Element offset of (row, col) in a shared tile of Cols 16-bit elements per
// row: the 16-byte chunks of a row are XOR-permuted by the row so that the 8
// row addresses of one ldmatrix matrix, or of one cp.async sweep down a
// column of chunks, fall in 8 different bank groups. Rows of 4 chunks pair up
// in one 128-byte line, hence the row/2 for them.
template <int Cols>
__device__ __forceinline__ int swizzled(int row, int col) {
  constexpr int kChunks = Cols / 8;
  static_assert(kChunks >= 4 && (kChunks & (kChunks - 1)) == 0, "rows of 4, 8, 16 ... chunks");
  const int key = kChunks == 4 ? (row >> 1) & 3 : row & 7;
  const int chunk = (col >> 3) ^ key;
  return row * Cols + chunk * 8 + (col & 7);
}

constexpr float kLog2e = 1.4426950408889634f;

// Shared tiles are addressed per lane as in the forward kernels
// (sdpa_forward_tc_tile_io.cuh): the byte offset of the lane's ldmatrix row
// at its first 16-column step, then at_step(offset, j) for step j, an XOR
// with one of four constants and an add that rides in the instruction's
// immediate (a swizzle recomputed per step took a fifth of the S^T / dP^T
// phase's instructions). The swizzle XORs the low three bits of a row's
// 16-byte chunk with row % 8, so this holds while step 0's chunk is a
// multiple of 8 or the steps stay short of the next one (every use below:
// tiles from column 0, or steps from a multiple of 32 columns that stay
// within 64).
template <int Cols>
__device__ __forceinline__ uint32_t row_offset(int row, int col) {
  return 2u * static_cast<uint32_t>(swizzled<Cols>(row, col));
}

// c[m][n] (m-tiles of 16 rows, n-tiles of 8 columns) += A B^T, A the warp's
// 16 M rows of a shared [*, Cols] tile starting at row a_row, B the rows
// [0, 8 N) of another, over all Cols columns (zero past D); sa and sb are
// shared-window addresses. Every B fragment serves the M row tiles. The
// loops hold no branch: one would split them into blocks the compiler
// cannot interleave, leaving every ldmatrix's latency exposed to the mma
// that waits for it. after_step(k) runs after step k's products are issued,
// in the same stretch of code, so that ptxas may interleave its work with
// them (it mostly defers a dependent exponential to the end all the same).
template <class T, int Cols, int M, int N, class AfterStep>
__device__ __forceinline__ void mma_rows_by_rows(float (&c)[M][N][4], uint32_t sa, int a_row, uint32_t sb, int lane,
                                                 AfterStep &&after_step) {
  const uint32_t a_off = row_offset<Cols>(a_row + lane % 16, (lane / 16) * 8);
  const uint32_t b_off = row_offset<Cols>(lane % 8 + (lane / 16) * 8, (lane / 8) % 2 * 8);
#pragma unroll
  for (int k = 0; k < Cols / 16; ++k) {
    uint32_t a[M][4];
#pragma unroll
    for (int m = 0; m < M; ++m) ldmatrix_x4(a[m], sa + at_step(a_off, k) + m * 16 * Cols * 2);
#pragma unroll
    for (int n = 0; n < N; n += 2) {
      uint32_t b[4];
      ldmatrix_x4(b, sb + at_step(b_off, k) + n * 8 * Cols * 2);
#pragma unroll
      for (int m = 0; m < M; ++m) {
        mma_16816<T>(c[m][n], a[m], b[0], b[1]);
        mma_16816<T>(c[m][n + 1], a[m], b[2], b[3]);
      }
    }
    after_step(k);
  }
}
template <class T, int Cols, int M, int N>
__device__ __forceinline__ void mma_rows_by_rows(float (&c)[M][N][4], uint32_t sa, int a_row, uint32_t sb,
                                                 int lane) {
  mma_rows_by_rows<T, Cols>(c, sa, a_row, sb, lane, [](int) {});
}

// Step kk of mma_tile_by_tile from its A fragments: c[m][n] += a[m] times
// the B fragments of rows [16 kk, 16 kk + 16) from b_off (the lane's offset
// at step 0), transposed by ldmatrix.
template <class T, int Cols, int M, int N>
__device__ __forceinline__ void mma_step_b_transposed(float (&c)[M][N][4], const uint32_t (&a)[M][4], uint32_t sb,
                                                      uint32_t b_off, int kk) {
#pragma unroll
  for (int n = 0; n < N; n += 2) {
    uint32_t b[4];
    ldmatrix_x4_trans(b, sb + at_step(b_off, n / 2) + kk * 16 * Cols * 2);
#pragma unroll
    for (int m = 0; m < M; ++m) {
      mma_16816<T>(c[m][n], a[m], b[0], b[1]);
      mma_16816<T>(c[m][n + 1], a[m], b[2], b[3]);
    }
  }
}

// c[m][n] += A B over K = 16 KSteps, A the 16 M rows from a_row of a shared
// [*, ACols] tile (columns [0, 16 KSteps)) or, ATransposed, its 16 M
// columns from a_row, a multiple of 16 M (rows [0, 16 KSteps)), ldmatrix
// transposing them, B the rows [0, 16 KSteps) of a
// shared [*, Cols] tile from column col0 (a multiple of 64, or of 32 with
// N <= 4), transposed by ldmatrix. after_step(kk) runs after step kk's
// products are issued, as in mma_rows_by_rows.
template <class T, bool ATransposed, int ACols, int Cols, int KSteps, int M, int N, class AfterStep>
__device__ __forceinline__ void mma_tile_by_tile(float (&c)[M][N][4], uint32_t sa, int a_row, uint32_t sb, int col0,
                                                 int lane, AfterStep &&after_step) {
  const uint32_t a_off = ATransposed ? row_offset<ACols>(lane % 8 + (lane / 16) * 8, a_row + (lane / 8) % 2 * 8)
                                     : row_offset<ACols>(a_row + lane % 16, (lane / 16) * 8);
  const uint32_t b_off = row_offset<Cols>(lane % 8 + (lane / 8) % 2 * 8, col0 + (lane / 16) * 8);
#pragma unroll
  for (int kk = 0; kk < KSteps; ++kk) {
    uint32_t a[M][4];
#pragma unroll
    for (int m = 0; m < M; ++m) {
      if constexpr (ATransposed)
        ldmatrix_x4_trans(a[m], sa + at_step(a_off, m) + kk * 16 * ACols * 2);
      else
        ldmatrix_x4(a[m], sa + at_step(a_off, kk) + m * 16 * ACols * 2);
    }
    mma_step_b_transposed<T, Cols>(c, a, sb, b_off, kk);
    after_step(kk);
  }
}
template <class T, bool ATransposed, int ACols, int Cols, int KSteps, int M, int N>
__device__ __forceinline__ void mma_tile_by_tile(float (&c)[M][N][4], uint32_t sa, int a_row, uint32_t sb, int col0,
                                                 int lane) {
  mma_tile_by_tile<T, ATransposed, ACols, Cols, KSteps>(c, sa, a_row, sb, col0, lane, [](int) {});
}

// The A fragments of mma_tile_by_tile's transposed A for every step, read
// once (a[kk][m]), and its products from them.
template <int ACols, int KSteps, int M>
__device__ __forceinline__ void load_transposed_a(uint32_t (&a)[KSteps][M][4], uint32_t sa, int a_row, int lane) {
  const uint32_t a_off = row_offset<ACols>(lane % 8 + (lane / 16) * 8, a_row + (lane / 8) % 2 * 8);
#pragma unroll
  for (int kk = 0; kk < KSteps; ++kk)
#pragma unroll
    for (int m = 0; m < M; ++m) ldmatrix_x4_trans(a[kk][m], sa + at_step(a_off, m) + kk * 16 * ACols * 2);
}
template <class T, int Cols, int KSteps, int M, int N>
__device__ __forceinline__ void mma_tile_by_tile(float (&c)[M][N][4], const uint32_t (&a)[KSteps][M][4], uint32_t sb,
                                                 int col0, int lane) {
  const uint32_t b_off = row_offset<Cols>(lane % 8 + (lane / 8) % 2 * 8, col0 + (lane / 16) * 8);
#pragma unroll
  for (int kk = 0; kk < KSteps; ++kk) mma_step_b_transposed<T, Cols>(c, a[kk], sb, b_off, kk);
}

// Four 8x8 16-bit matrices from registers (sm_90): r[i] is the lane's
// fragment of matrix i, as an mma accumulator holds it; lane l gives the
// address of row l%8 of matrix l/8.
__device__ __forceinline__ void stmatrix_x4(uint32_t smem_addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(smem_addr), "r"(r0), "r"(r1),
               "r"(r2), "r"(r3));
}

// Stores an accumulator tile rounded to T (16 rows from row0, 8 N columns
// from col0, which start a 64-column run or stay within one) into a
// swizzled shared [*, Cols] tile at shared-window address s. The lane's
// offset at the first column steps as the mma helpers' do (at_step,
// at_block): a swizzle per store took a fifth of the score phase's
// instructions. sm_90 stores four matrices (two 8-column tiles of 16 rows)
// at once, elsewhere two values a store; the bytes are the same.
template <int Cols, class T, int N>
__device__ __forceinline__ void store_rounded(uint32_t s, const float (&c)[N][4], int row0, int col0, int lane) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  static_assert(N % 2 == 0, "pairs of 8-column tiles");
  const uint32_t off = row_offset<Cols>(row0 + lane % 16, col0 + (lane / 16) * 8);
#pragma unroll
  for (int n = 0; n < N; n += 2)
    stmatrix_x4(s + at_step(off, n / 2), pack2<T>(c[n][0], c[n][1]), pack2<T>(c[n][2], c[n][3]),
                pack2<T>(c[n + 1][0], c[n + 1][1]), pack2<T>(c[n + 1][2], c[n + 1][3]));
#else
  const uint32_t off = row_offset<Cols>(row0 + lane / 4, col0 + (lane % 4) * 2);
#pragma unroll
  for (int n = 0; n < N; ++n) {
    st_shared_4(s + at_block(off, n), pack2<T>(c[n][0], c[n][1]));
    st_shared_4(s + at_block(off, n) + 8 * Cols * 2, pack2<T>(c[n][2], c[n][3]));  // row + 8: the same swizzle
  }
#endif
}

// Waits for the `threads` threads (whole warps) that use barrier `id`.
__device__ __forceinline__ void named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// What the elementwise step needs about the current (b, query head).
struct HeadContext {
  float scale, softcap, slope;
};

// How much of the score pipeline a tile needs: kPlain, every pair visible and
// nothing but the scale (a few instructions an element, no branch); kMasked,
// the mask too; kFull, softcap and ALiBi as well (uniform branches an
// element, which keep the compiler from interleaving the elements).
enum class ScoreKind { kPlain, kMasked, kFull };

// Turns S^T (in s) into P^T and dP^T (in dp) into dS^T, both unscaled by
// `scale` (applied to dK and dQ at the end). Rows are keys key0 + ...,
// columns queries q0 + ...; lse and delta are the query tile's. A masked
// pair gets P = 0 by selection, since a row that sees no key has lse = -inf.
template <ScoreKind Kind, int N>
__device__ __forceinline__ void scores_to_gradients(float (&s)[N][4], float (&dp)[N][4], const float *lse,
                                                    const float *delta, const SdpaProblem &p, const Band &band,
                                                    const HeadContext &h, int64_t key0, int64_t q0, int lane) {
  const float scale2 = h.scale * kLog2e;
  // j - i' of this lane's first element; the others add small constants.
  const int64_t d0 = key0 + lane / 4 - (q0 + (lane % 4) * 2 + band.shift);
#pragma unroll
  for (int n = 0; n < N; ++n) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int col = n * 8 + (lane % 4) * 2 + (e & 1);
      const float lse2 = lse[col] * kLog2e;
      float prob;
      float cap_slope = 1.f;  // d(capped)/d(raw)
      if constexpr (Kind == ScoreKind::kPlain) {
        prob = exp2_approx(fmaf(s[n][e], scale2, -lse2));
      } else {
        const int64_t d = d0 + (e >> 1) * 8 - n * 8 - (e & 1);
        const int64_t j = key0 + lane / 4 + (e >> 1) * 8;
        const bool visible =
            q0 + col < p.queries && j < p.keys && d <= band.upper && (band.left < 0 || d >= -band.left);
        float x = s[n][e] * h.scale;
        if constexpr (Kind == ScoreKind::kFull) {
          if (h.softcap > 0.f) {
            const float t = tanhf(x / h.softcap);
            x = h.softcap * t;
            cap_slope = 1.f - t * t;
          }
          if (p.alibi != 0) x += h.slope * static_cast<float>(p.alibi == 1 ? d : (d < 0 ? d : -d));
        }
        prob = visible ? exp2_approx(fmaf(x, kLog2e, -lse2)) : 0.f;
      }
      s[n][e] = prob;
      dp[n][e] = prob * (dp[n][e] - delta[col]) * cap_slope;
    }
  }
}

// P^T alone in the 8-column tile n of s (kPlain or kMasked: no softcap
// slope to keep for the gradients): scores_to_gradients on that tile, its
// dS^T discarded, so that a caller can interleave the tiles with other work.
template <ScoreKind Kind, int N>
__device__ __forceinline__ void tile_probabilities(float (&s)[N][4], int n, const float *lse, const SdpaProblem &p,
                                                   const Band &band, const HeadContext &h, int64_t key0, int64_t q0,
                                                   int lane) {
  static_assert(Kind != ScoreKind::kFull, "softcap's slope is needed by the gradients");
  float discarded[1][4] = {};
  scores_to_gradients<Kind>(*reinterpret_cast<float(*)[1][4]>(&s[n]), discarded, lse + 8 * n, lse + 8 * n, p, band, h,
                            key0, q0 + 8 * n, lane);
}

__device__ __forceinline__ int load_acquire(const int *flag) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
  return v;
}

// The reductions [first, last) of one dQ chunk's (row tile, half, column
// tile) list into the f32 workspace (add_dq_part's arguments); Bounded:
// each predicated on its row and column being in the tile.
template <class Tr, bool Bounded>
__device__ __forceinline__ void reduce_dq(float *dq_lane, const float (&dq)[Tr::kDqRowAtoms][Tr::kDqChunk / 8][4],
                                          int first, int last, int c0, int col0, int dq_row, int rows_left, int D,
                                          float scale, int lane) {
  constexpr int NQ = Tr::kDqChunk / 8;
#pragma unroll
  for (int x = first; x < last; ++x) {
    const int m = x / (2 * NQ), half = x / NQ % 2, n = x % NQ;
    const int row = m * 16 + half * 8;  // from the lane's first
    const bool row_in = dq_row + lane / 4 + row < rows_left;
    red_add_f32x2_if(!Bounded || (row_in && col0 + n * 8 + (lane % 4) * 2 < D), dq_lane + row * D + c0 + n * 8,
                     scale * dq[m][n][2 * half], scale * dq[m][n][2 * half + 1]);
  }
}
template <class Tr>
constexpr int kDqReductionsPerChunk = Tr::kDqRowAtoms * 2 * (Tr::kDqChunk / 8);

// One key tile's part of dQ = dS K for a query tile, scaled and added into
// the f32 workspace: the warp's 16 QA rows from dq_row and kDqColumns
// columns from dq_col. dq_lane: the lane's first target (row dq_row + lane /
// 4, column dq_col + 2 (lane % 4) of the tile's [BR][D] rows); rows_left:
// the tile's rows that exist (at most BR). before_reductions() runs between
// the first chunk's products and its reductions, in every thread.
template <class T, class Tr, class BeforeReductions>
__device__ __forceinline__ void add_dq_part(float *dq_lane, int rows_left, int D, float scale, uint32_t sdS,
                                            uint32_t sK, int dq_row, int dq_col, int lane,
                                            BeforeReductions &&before_reductions) {
  constexpr int BR = Tr::kQueries, BC = Tr::kKeys, QA = Tr::kDqRowAtoms, HT = Tr::kHeadTile;
  static_assert((Tr::kDqColumns % 64 == 0 && Tr::kDqChunk % 64 == 0) || Tr::kDqChunk == 32,
                "dQ's column steps within 64 columns of a multiple of 32 (row_offset)");
  constexpr int kAll = kDqReductionsPerChunk<Tr>;
  // dS from dS^T, whose columns are this warp's queries.
  [[maybe_unused]] uint32_t ds[Tr::kDqFragmentsOnce ? BC / 16 : 1][QA][4];
  if constexpr (Tr::kDqFragmentsOnce) load_transposed_a<BR>(ds, sdS, dq_row, lane);
#pragma unroll
  for (int c0 = 0; c0 < Tr::kDqColumns; c0 += Tr::kDqChunk) {
    const int col0 = dq_col + c0;
    // The first chunk's products run in every warp (past D on zeros), so
    // that all reach before_reductions.
    if (c0 > 0 && col0 >= D) break;
    float dq[QA][Tr::kDqChunk / 8][4] = {};
    if constexpr (Tr::kDqFragmentsOnce)
      mma_tile_by_tile<T, HT>(dq, ds, sK, col0, lane);
    else
      mma_tile_by_tile<T, true, BR, HT, BC / 16>(dq, sdS, dq_row, sK, col0, lane);
    if (c0 == 0) before_reductions();
    // A whole tile's reductions need no bounds: the common case, without
    // the predicates that the compiler turns into a branch per reduction.
    // The columns ride in the immediates.
    if (rows_left == BR && D == HT)
      reduce_dq<Tr, false>(dq_lane, dq, 0, kAll, c0, col0, dq_row, rows_left, D, scale, lane);
    else
      reduce_dq<Tr, true>(dq_lane, dq, 0, kAll, c0, col0, dq_row, rows_left, D, scale, lane);
  }
}

}  // namespace baracuda::kernels::sdpa

#include "sdpa/sdpa_backward_dq_bulk.cuh"

namespace baracuda::kernels::sdpa {

// The (query head, query tile) of a step. A block walks the query tiles
// [first, last] of each query head of its kv head in turn; counting them
// forward spares the two 64-bit divisions of the step index an iteration.
struct StepCursor {
  int64_t head, q_tile;
  __device__ __forceinline__ void advance(const TileRange &r) {
    if (++q_tile > r.last) {
      q_tile = r.first;
      ++head;
    }
  }
};

// The key tile and (b, kv head) a block works on. Blocks start about in
// linear index order. The atomic mode's grid is (kv heads, key tiles,
// batch), so key tile r of every kv head of a batch starts before any key
// tile r + 1: under a causal mask a key tile's work falls with its index
// (its query tiles run from its diagonal to the last), and a kv head's key
// tiles in turn (the grid (key tiles, kv heads, batch)) started long blocks
// until the grid's end, which then ran on while other SMs idled; over the
// whole grid's (b, kv head) pairs at once the blocks in flight share too
// little of Q, dO and dq in L2 (D 256 lost 23-29%; bench/NOTES.md, session
// 19). The deterministic mode's grid stays (key tiles, kv heads, batch),
// each kv head's key tiles from the last: a key tile waits for the tiles
// above it (see last_key_tile_of_query_tile), which have started then, and
// under a causal mask they reach each query tile in that order. From the
// grid's indices alone: the compiler reads them again where they are used
// rather than hold them through the kernel (a choice between the two
// layouts at run time spilled 104 B at D 64).
struct KeyTileOfBlock {
  int64_t key_tile, head_kv, batch;
};
// by_rank (deterministic_by_rank): the deterministic mode's grid is the
// atomic one's, its key tiles taken from the last rank. The atomic kernels
// keep a choice they never take (turns is null there), the source round 1
// measured: without it ptxas scheduled the D 128 loop 2-3% slower (bf16, B4
// H32 S4096, H200: 288.6 and, with turns a run-time value as well, 284.5
// against 294.3 TFLOP/s; bench/NOTES.md, session 19).
template <bool Deterministic>
__device__ __forceinline__ KeyTileOfBlock key_tile_of_block(const int *turns, bool by_rank) {
  if constexpr (Deterministic) {
    if (by_rank) return {gridDim.y - 1 - blockIdx.y, blockIdx.x, blockIdx.z};
    return {gridDim.x - 1 - blockIdx.x, blockIdx.y, blockIdx.z};
  } else {
    return {turns != nullptr ? gridDim.y - 1 - blockIdx.y : blockIdx.y, blockIdx.x, blockIdx.z};
  }
}

// Aligned: every row of q, k, v and dout starts on 16 bytes, so the tiles
// move by cp.async; the other instantiation copies through registers.
// Deterministic: turns holds the turn counters (else it is null); the flag
// picks the grid's order (key_tile_of_block).
template <class T, class Tr, bool Aligned, bool Deterministic>
__global__ void __launch_bounds__(Tr::kThreads, Tr::kMinBlocksPerSm)
    sdpa_backward_kernel(const SdpaProblem p, const float *delta_ws, float *dq_ws, int *turns,
                         const __grid_constant__ CUtensorMap dq_map) {
  constexpr int HT = Tr::kHeadTile, BR = Tr::kQueries, BC = Tr::kKeys, KA = Tr::kKeyAtoms;
  constexpr int QA = Tr::kDqRowAtoms, ST = Tr::kStages;
  constexpr SdpaBackwardPrefetch kPrefetch = Tr::kPrefetch;
  constexpr SdpaBackwardBarriers kBarriers = Tr::kBarriers;
  static_assert(ST >= 2 || kPrefetch == SdpaBackwardPrefetch::kDq, "one stage is refilled only once dQ runs");
  static_assert(ST == 2 || kPrefetch != SdpaBackwardPrefetch::kScores, "kScores loads one step ahead");
  static_assert(Tr::kHeadPerGroup % 64 == 0 || Tr::kHeadPerGroup <= 32,
                "dK's and dV's column steps within 64 columns of a multiple of 32 (row_offset)");
  static_assert(kBarriers != SdpaBackwardBarriers::kTwo || kPrefetch != SdpaBackwardPrefetch::kDq,
                "loads among dQ's products need a barrier after dK's and dV's");
  constexpr bool kScoresAhead = kPrefetch == SdpaBackwardPrefetch::kScoresAhead;
  constexpr bool kOneBarrier = kBarriers == SdpaBackwardBarriers::kOne;
  static_assert(!kScoresAhead || kBarriers == SdpaBackwardBarriers::kTwo,
                "the next step's S^T is read only after the middle block barrier");
  static_assert(kPrefetch != SdpaBackwardPrefetch::kGradients || kBarriers != SdpaBackwardBarriers::kFour,
                "loads after the middle barrier");
  static_assert(Tr::kDqReductions == SdpaBackwardDqReductions::kAfterDqProducts ||
                    kBarriers != SdpaBackwardBarriers::kFour,
                "kFour's dQ runs after dK");
  static_assert(!kOneBarrier || (kPrefetch == SdpaBackwardPrefetch::kGradients && ST >= 3),
                "with no opening barrier a stage is loaded a step before the barrier that shows it");
  extern __shared__ __align__(1024) uint4 smem_raw[];  // the bulk path's swizzled buffers on 1024 bytes
  T *sK = reinterpret_cast<T *>(smem_raw);
  T *sV = sK + BC * HT;
  T *sQ = sV + BC * HT;                  // [stage][BR][HT]
  T *sdO = sQ + ST * BR * HT;            // [stage][BR][HT]
  constexpr int SB = Tr::kScoreBuffers;
  T *sdS0 = sdO + ST * BR * HT;          // dS^T [buffer][BC][BR]
  T *sP0 = sdS0 + SB * BC * BR;          // P^T [buffer][BC][BR]
  float *sLse = reinterpret_cast<float *>(sP0 + SB * BC * BR);  // [stage][BR]
  float *sDelta = sLse + ST * BR;                         // [stage][BR]

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int key_group = warp / Tr::kColumnGroups, column_group = warp % Tr::kColumnGroups;
  const int key_row = key_group * 16 * KA;  // the warp's first key in the tile
  const KeyTileOfBlock at_block = key_tile_of_block<Deterministic>(
      turns, Deterministic && deterministic_by_rank(band_of(p), (p.keys + BC - 1) / BC, (p.queries + BR - 1) / BR));
  const int64_t n_tile = at_block.key_tile, hkv = at_block.head_kv, b = at_block.batch;
  const int64_t key0 = n_tile * BC;
  const int D = p.head_dim, Dv = p.head_dim_v;
  const Band band = band_of(p);
  const int64_t group = p.heads_q / p.heads_kv;
  const int64_t q_tiles = (p.queries + BR - 1) / BR;

  using E = uint16_t;  // the tile loader moves 16-bit elements of either dtype
  const E *k_base = static_cast<const E *>(p.k.data) + b * p.k.stride[0] + hkv * p.k.stride[1] + key0 * p.k.stride[2];
  const E *v_base = static_cast<const E *>(p.v.data) + b * p.v.stride[0] + hkv * p.v.stride[1] + key0 * p.v.stride[2];
  load_tile<BC, HT, Tr::kThreads>(shared_address(sK), k_base, p.k.stride[2], p.keys - key0, D, Aligned);
  load_tile<BC, HT, Tr::kThreads>(shared_address(sV), v_base, p.v.stride[2], p.keys - key0, Dv, Aligned);
  cp_async_commit();

  const TileRange range = query_tiles_of_key_tile(band, key0, BC, BR, p.queries);
  const int64_t per_head = range.last - range.first + 1;
  const int64_t steps = per_head > 0 ? per_head * group : 0;

  // Issues the loads of the step at `c` into stage `stage` as one group. A
  // load past the last step (real false) copies nothing and zero-fills the
  // stage, so that no branch splits the code it is scheduled into; c is
  // then any step's, whose addresses are valid.
  auto load_step = [&](StepCursor c, int stage, bool real) {
    const int64_t q0 = c.q_tile * BR;
    const int64_t rows = real ? p.queries - q0 : 0;
    const E *q = static_cast<const E *>(p.q.data) + b * p.q.stride[0] + c.head * p.q.stride[1] + q0 * p.q.stride[2];
    const E *dout = static_cast<const E *>(p.dout.data) + b * p.dout.stride[0] + c.head * p.dout.stride[1] +
                    q0 * p.dout.stride[2];
    // The forward's row copies: a thread's real rows counted in 32 bits and
    // no select of the source address (load_tile's 64-bit compares and
    // selects run every step here).
    load_tile_clamped<BR, HT, Tr::kThreads, Aligned>(shared_address(sQ + stage * BR * HT), q, p.q.stride[2], rows, D);
    load_tile_clamped<BR, HT, Tr::kThreads, Aligned>(shared_address(sdO + stage * BR * HT), dout, p.dout.stride[2],
                                                     rows, Dv);
    if (threadIdx.x < BR) {
      const int64_t i = q0 + threadIdx.x;
      const bool valid = threadIdx.x < rows;
      const float *lse = static_cast<const float *>(p.lse) + b * p.lse_stride[0] + c.head * p.lse_stride[1];
      cp_async_4(sLse + stage * BR + threadIdx.x, valid ? lse + i * p.lse_stride[2] : lse, valid);
      const float *delta = delta_ws + (b * p.heads_q + c.head) * p.queries;
      cp_async_4(sDelta + stage * BR + threadIdx.x, valid ? delta + i : delta, valid);
    }
    cp_async_commit();
  };

  float dk[KA][Tr::kHeadPerGroup / 8][4] = {};
  float dv[KA][Tr::kHeadPerGroup / 8][4] = {};
  const int my_cols = column_group * Tr::kHeadPerGroup;
  const int dq_row = (warp % Tr::kDqRowGroups) * 16 * QA;
  const int dq_col = (warp / Tr::kDqRowGroups) * Tr::kDqColumns;
  const int dq_lane_offset = (dq_row + lane / 4) * D + dq_col + (lane % 4) * 2;  // in a [BR][D] tile
  [[maybe_unused]] const uint32_t dq_staging =
      shared_address(sdS0) + 2 * warp * Tr::kDqStagingBytes;  // Tr::kDqBulk's buffers

  // at: the step computed; next: the step loaded next, the loads running
  // kAhead steps ahead of the computation.
  constexpr int kAhead = kPrefetch == SdpaBackwardPrefetch::kDq                                 ? ST
                         : kScoresAhead || kPrefetch == SdpaBackwardPrefetch::kGradients ? ST - 1
                                                                                           : 1;
  StepCursor at{hkv * group, range.first};
  StepCursor next = at;
  int64_t loaded = 0;  // steps whose loads were issued
  auto load_next = [&](int stage) {
    const bool real = loaded < steps;
    // Fields selected by value: a reference to one of the two cursors put
    // both in local memory, stored and reloaded every step.
    load_step(StepCursor{real ? next.head : at.head, real ? next.q_tile : at.q_tile}, stage, real);
    next.advance(range);
    ++loaded;
  };

  // The warps of a key group split the query tile's columns of S^T and
  // dP^T and trade their halves of P^T and dS^T through shared memory, so
  // that no score is computed twice.
  constexpr int kOwnQueries = BR / Tr::kColumnGroups, NS = kOwnQueries / 8;
  const int own0 = column_group * kOwnQueries;
  float s[KA][NS][4];  // S^T of the step at `at` (with kScoresAhead computed during the step before)
  auto scores = [&](int stage) {
    zero_accumulators(s);
    mma_rows_by_rows<T, HT>(s, shared_address(sK), key_row, shared_address(sQ + stage * BR * HT) + own0 * HT * 2,
                            lane);
  };
  int stage = 0;  // step t's
  if (steps > 0) {
    for (int s = 0; s < kAhead; ++s) load_next(s);
    if constexpr (kScoresAhead || kOneBarrier) {
      cp_async_wait<kAhead - 1>();
      __syncthreads();
    }
    if constexpr (kScoresAhead) scores(0);
  }
  for (int64_t t = 0; t < steps; ++t) {
    // Step t's loads have landed (the kAhead - 1 after it may still fly;
    // with kScoresAhead or kOneBarrier, waited for before the last step's
    // middle barrier), and every warp is done with step t - 1.
    if constexpr (!kOneBarrier) {
      if constexpr (!kScoresAhead) cp_async_wait<kAhead - 1>();
      __syncthreads();
    }
    T *sdS = sdS0 + (SB == 2 ? static_cast<int>(t & 1) : 0) * BC * BR;
    T *sP = sP0 + (SB == 2 ? static_cast<int>(t & 1) : 0) * BC * BR;

    const int64_t h = at.head, q_tile = at.q_tile;
    const int64_t q0 = q_tile * BR;
    HeadContext hc;
    hc.scale = static_cast<float>(p.scale);
    hc.softcap = static_cast<float>(p.softcap);
    hc.slope = p.alibi != 0 ? static_cast<const float *>(p.slopes)[b * p.slope_stride[0] + h * p.slope_stride[1]] : 0.f;
    const uint32_t q_s = shared_address(sQ + stage * BR * HT), do_s = shared_address(sdO + stage * BR * HT);
    const int next_stage = stage + 1 == ST ? 0 : stage + 1;
    {
      constexpr bool kAmong = Tr::kProbabilities == SdpaBackwardProbabilities::kAmongProducts;
      if constexpr (!kScoresAhead) scores(stage);
      float dp[KA][NS][4] = {};
      auto dp_products = [&](auto after_step) {
        mma_rows_by_rows<T, HT>(dp, shared_address(sV), key_row, do_s + own0 * HT * 2, lane, after_step);
      };
      // kAfterProducts: S^T's and dP^T's products in one stretch, ahead of
      // the loads' branch.
      if constexpr (!kAmong) dp_products([](int) {});
      // The loaded stage's last readers passed the barrier above.
      if constexpr (kPrefetch == SdpaBackwardPrefetch::kScores || kScoresAhead) load_next((stage + kAhead) % ST);
      const int64_t my_q0 = q0 + own0;
      const float *lse_s = sLse + stage * BR + own0, *delta_s = sDelta + stage * BR + own0;
      auto store = [&](int m) {
        store_rounded<BR, T>(shared_address(sP), s[m], key_row + m * 16, own0, lane);
        store_rounded<BR, T>(shared_address(sdS), dp[m], key_row + m * 16, own0, lane);
      };
      auto gradients = [&](auto kind, int m) {
        scores_to_gradients<decltype(kind)::value>(s[m], dp[m], lse_s, delta_s, p, band, hc, key0 + key_row + m * 16,
                                                   my_q0, lane);
        store(m);
      };
      using Full = std::integral_constant<ScoreKind, ScoreKind::kFull>;
      using Plain = std::integral_constant<ScoreKind, ScoreKind::kPlain>;
      using Masked = std::integral_constant<ScoreKind, ScoreKind::kMasked>;
      const bool full = hc.softcap > 0.f || p.alibi != 0;
      const bool plain = !full && tile_fully_visible(band, q0, BR, key0, BC, p.queries, p.keys);
      if constexpr (!kAmong) {
#pragma unroll
        for (int m = 0; m < KA; ++m) {
          if (full)
            gradients(Full{}, m);
          else if (plain)
            gradients(Plain{}, m);
          else
            gradients(Masked{}, m);
        }
      } else {
        // One uniform branch a step, around dP^T's products, which P^T's
        // tiles issue among, kPerStep after each of its HT / 16 steps in
        // the order S^T's products finish (softcap's slopes would hold too
        // many registers through them: kFull computes P^T after).
        auto among = [&](auto kind) {
          constexpr ScoreKind Kind = decltype(kind)::value;
          constexpr int kSteps = HT / 16, kPerStep = (KA * NS + kSteps - 1) / kSteps;
          dp_products([&](int k) {
#pragma unroll
            for (int x = k * kPerStep; x < (k + 1) * kPerStep && x < KA * NS; ++x)
              tile_probabilities<Kind>(s[x / NS], x % NS, lse_s, p, band, hc, key0 + key_row + x / NS * 16, my_q0,
                                       lane);
          });
#pragma unroll
          for (int m = 0; m < KA; ++m) {
#pragma unroll
            for (int n = 0; n < NS; ++n)
#pragma unroll
              for (int e = 0; e < 4; ++e)
                dp[m][n][e] = s[m][n][e] * (dp[m][n][e] - delta_s[n * 8 + (lane % 4) * 2 + (e & 1)]);
            store(m);
          }
        };
        if (full) {
          dp_products([](int) {});
#pragma unroll
          for (int m = 0; m < KA; ++m) gradients(Full{}, m);
        } else if (plain) {
          among(Plain{});
        } else {
          among(Masked{});
        }
      }
    }
    const int rows_left = static_cast<int>(p.queries - q0 < BR ? p.queries - q0 : BR);
    float *dq_lane = dq_ws + ((b * p.heads_q + h) * p.queries + q0) * D + dq_lane_offset;
    [[maybe_unused]] float *dq_warp = dq_lane - dq_lane_offset + dq_row * D + dq_col;  // the bulk path's
    // dQ's turn: in deterministic mode the key tiles of this query tile add
    // their parts one after the other, in descending key-tile order.
    auto add_dq = [&] {
      if constexpr (Tr::kDqBulk && !Deterministic && kBarriers == SdpaBackwardBarriers::kFour) {
        add_dq_part_bulk<T, Tr>(dq_warp, rows_left, D, hc.scale, shared_address(sdS), shared_address(sK),
                                dq_staging, dq_row, dq_col, lane, &dq_map, q0 + dq_row, static_cast<int32_t>(h),
                                static_cast<int32_t>(b));
        __syncthreads();
        return;
      }
      int *turn = turns != nullptr ? turns + (b * p.heads_q + h) * q_tiles + q_tile : nullptr;
      // The turn is waited for after the products, so that only the
      // reductions hold up the key tiles after this one.
      auto wait_turn = [&] {
        if (turn == nullptr) return;
        const int rank =
            static_cast<int>(last_key_tile_of_query_tile(band, q_tile, BC, BR, p.queries, p.keys) - n_tile);
        if (threadIdx.x == 0)
          while (load_acquire(turn) != rank) __nanosleep(64);
        __syncthreads();
      };
      add_dq_part<T, Tr>(dq_lane, rows_left, D, hc.scale, shared_address(sdS), shared_address(sK), dq_row, dq_col,
                         lane, wait_turn);
      if (turn != nullptr) {
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) atomicAdd(turn, 1);
      } else if constexpr (kBarriers == SdpaBackwardBarriers::kFour) {
        __syncthreads();
      }
    };
    if constexpr (kBarriers != SdpaBackwardBarriers::kFour) {
      // With kScoresAhead or kOneBarrier the next step's tiles have landed
      // too.
      if constexpr (kScoresAhead) cp_async_wait<kAhead - 1>();
      if constexpr (kOneBarrier) cp_async_wait<kAhead - 2>();
      __syncthreads();
      // The stage the step before last read.
      if constexpr (kPrefetch == SdpaBackwardPrefetch::kGradients) load_next((stage + kAhead) % ST);
      mma_tile_by_tile<T, false, BR, HT, BR / 16>(dv, shared_address(sP), key_row, do_s, my_cols, lane);
      // dQ's reductions go out before dK's products, or among them
      // (kAmongDkProducts), and before the next step's S^T products; the
      // deterministic mode's turn is waited for last.
      auto dk_products = [&](auto after_step) {
        mma_tile_by_tile<T, false, BR, HT, BR / 16>(dk, shared_address(sdS), key_row, q_s, my_cols, lane, after_step);
      };
      if (turns == nullptr) {
        if constexpr (Tr::kDqReductions == SdpaBackwardDqReductions::kAmongDkProducts) {
          // A whole tile's reductions a share after each of dK's steps, a
          // partial tile's (bounded, their predicates a branch each) before
          // them.
          static_assert(Tr::kDqColumns == Tr::kDqChunk, "dQ in one chunk");
          constexpr int kAll = kDqReductionsPerChunk<Tr>, kPerStep = (kAll + BR / 16 - 1) / (BR / 16);
          float dq[QA][Tr::kDqChunk / 8][4] = {};
          mma_tile_by_tile<T, true, BR, HT, BC / 16>(dq, shared_address(sdS), dq_row, shared_address(sK), dq_col,
                                                     lane);
          if (rows_left == BR && D == HT) {
            dk_products([&](int kk) {
              __syncwarp();  // keeps ptxas from hoisting the reductions above the step
              const int last = (kk + 1) * kPerStep < kAll ? (kk + 1) * kPerStep : kAll;
              reduce_dq<Tr, false>(dq_lane, dq, kk * kPerStep, last, 0, dq_col, dq_row, rows_left, D, hc.scale,
                                   lane);
            });
          } else {
            reduce_dq<Tr, true>(dq_lane, dq, 0, kAll, 0, dq_col, dq_row, rows_left, D, hc.scale, lane);
            dk_products([](int) {});
          }
        } else {
          add_dq();
          dk_products([](int) {});
        }
        if constexpr (kScoresAhead) scores(next_stage);
      } else {
        mma_tile_by_tile<T, false, BR, HT, BR / 16>(dk, shared_address(sdS), key_row, q_s, my_cols, lane);
        if constexpr (kScoresAhead) scores(next_stage);
        add_dq();
      }
    } else {
      named_barrier(1 + key_group, 32 * Tr::kColumnGroups);  // barrier 0 is __syncthreads'
      mma_tile_by_tile<T, false, BR, HT, BR / 16>(dv, shared_address(sP), key_row, do_s, my_cols, lane);
      mma_tile_by_tile<T, false, BR, HT, BR / 16>(dk, shared_address(sdS), key_row, q_s, my_cols, lane);
      __syncthreads();
      // dQ reads only dS^T and K: this stage's Q/dO rows are free.
      if constexpr (kPrefetch == SdpaBackwardPrefetch::kDq) load_next(stage);
      add_dq();
    }
    at.advance(range);
    stage = next_stage;
  }
  cp_async_wait<0>();  // the K/V loads of a tile that no query tile meets, the zero-fills past the last step
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (Tr::kDqBulk && !Deterministic) {
    if (lane == 0) sm90::bulk_wait();  // dQ's bulk reductions complete before the block ends
  }
#endif

  // dK and dV of this kv head; keys no query sees get zeros.
  const float scale = static_cast<float>(p.scale);
  T *dk_out = static_cast<T *>(p.dk.data) + b * p.dk.stride[0] + hkv * p.dk.stride[1];
  T *dv_out = static_cast<T *>(p.dv.data) + b * p.dv.stride[0] + hkv * p.dv.stride[1];
#pragma unroll
  for (int m = 0; m < KA; ++m)
#pragma unroll
    for (int n = 0; n < Tr::kHeadPerGroup / 8; ++n) {
      const int col = my_cols + n * 8 + (lane % 4) * 2;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int64_t j = key0 + key_row + m * 16 + lane / 4 + half * 8;
        if (j >= p.keys) continue;
        if (col < D) {
          T *o = dk_out + j * p.dk.stride[2] + col;
          o[0] = static_cast<T>(scale * dk[m][n][2 * half]);
          o[1] = static_cast<T>(scale * dk[m][n][2 * half + 1]);
        }
        if (col < Dv) {
          T *o = dv_out + j * p.dv.stride[2] + col;
          o[0] = static_cast<T>(dv[m][n][2 * half]);
          o[1] = static_cast<T>(dv[m][n][2 * half + 1]);
        }
      }
    }
}

}  // namespace baracuda::kernels::sdpa
