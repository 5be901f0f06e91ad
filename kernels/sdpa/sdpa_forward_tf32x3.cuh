// The f32 attention forward on tensor cores: FlashAttention-2's algorithm
// (sdpa_forward_tile.cuh) with every product, S = Q K^T and O += P V (P in
// f32), split as sdpa_tf32_split.cuh describes: tf32 big halves on mma.sync
// m16n8k8, their corrections on bf16 m16n8k16, f32 accumulation. The f32
// tiles land in shared memory in padded rows and are split there once (Q
// once a block, K and V once a key tile, sdpa_tf32x3_tile_io.cuh), so the
// warps' fragment reads take halves ready for the MMAs; only P is split in
// registers. Instantiated per head-size tile by sdpa_forward_tf32x3_d<tile>.cu.
//
// Fragments: an m16n8k8 sums over its 8 k indices in any order as long as A
// and B agree, so tf32 k t and t + 4 (t = lane % 4) are taken as the tile's
// columns 2t and 2t + 1. Q and K fragments are then one float2 each, and the
// A fragment of P is the thread's own S accumulator (keys 2t, 2t + 1 of rows
// g, g + 8): no shuffles.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "sdpa/sdpa_forward_tc_launch.h"
#include "sdpa/sdpa_forward_tile.cuh"
#include "sdpa/sdpa_tc_primitives.cuh"
#include "sdpa/sdpa_tc_scores.cuh"
#include "sdpa/sdpa_tf32_split.cuh"
#include "sdpa/sdpa_tf32x3_heuristics.h"
#include "sdpa/sdpa_tf32x3_tile_io.cuh"

namespace baracuda::kernels::sdpa_tc {

template <bool Wide>
struct Tf32x3ConfigOf {
  static constexpr SdpaTcConfig of(int head_dim_tile) { return sdpa_tf32x3_config(head_dim_tile, Wide); }
};

// Config as in sdpa_forward_tc.cuh's Shape: Tf32x3ConfigOf, or a benchmark's.
template <int HeadDim, class Config = Tf32x3ConfigOf<false>>
struct Tf32x3Shape : TileCounts<Config, HeadDim> {
  using Counts = TileCounts<Config, HeadDim>;
  static constexpr int kQPitch = sdpa_tf32x3_q_pitch(HeadDim);
  static constexpr int kQSmallPitch = sdpa_tf32x3_q_small_pitch(HeadDim);
  static constexpr int kKPitch = sdpa_tf32x3_k_pitch(HeadDim);
  static constexpr int kKSmallPitch = sdpa_tf32x3_k_small_pitch(HeadDim);
  static constexpr int kVPitch = sdpa_tf32x3_v_pitch(HeadDim);
  static constexpr int kVSmallPitch = sdpa_tf32x3_v_small_pitch(HeadDim);
  static constexpr uint32_t kQTileBytes = sdpa_tf32x3_q_tile_bytes(Counts::kBlockM, HeadDim);
  static constexpr uint32_t kKTileBytes = sdpa_tf32x3_k_tile_bytes(Counts::kBlockN, HeadDim);
  static constexpr uint32_t kStageBytes = kKTileBytes + sdpa_tf32x3_v_tile_bytes(Counts::kBlockN, HeadDim);
  // 8-wide blocks of S (of O) whose B fragments are split together: their
  // MMAs go back to back on different accumulators.
  static constexpr int kKeyGroup = Counts::kKeyBlocks < 4 ? Counts::kKeyBlocks : 4;
  static constexpr int kValueGroup = 4;
  static_assert(Counts::kKeyBlocks % kKeyGroup == 0 && Counts::kValueBlocks % kValueGroup == 0,
                "whole groups of 8-wide blocks");
};

// S = Q K^T for this warp's rows against the split key tile at s_k, from
// the split Q tile at s_q (A fragments as split_q_tile lays them out: one
// float4 and one 8-byte word of small pairs a thread and 8-column step). K's
// big halves are read as float2 (d 2t, 2t + 1 of a row: tf32 k t and t + 4
// of each 8-wide step), their small halves as the bf16 pair at word t of the
// step.
template <class Sh, int HeadDim>
__device__ __forceinline__ void qk_product_split(float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], const float *s_q,
                                                 const float *s_k) {
  const int lane = static_cast<int>(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
  const int warp_row = static_cast<int>(threadIdx.x) / 32 * Sh::kWarpRows;
  const float *q_at = s_q + (warp_row + g) * Sh::kQPitch + 4 * t;
  const uint32_t *q_small_at =
      reinterpret_cast<const uint32_t *>(s_q + Sh::kBlockM * Sh::kQPitch) + (warp_row + g) * Sh::kQSmallPitch + 2 * t;
  const float *k_at = s_k + g * Sh::kKPitch + 2 * t;
  const uint32_t *k_small_at =
      reinterpret_cast<const uint32_t *>(s_k + Sh::kBlockN * Sh::kKPitch) + g * Sh::kKSmallPitch + t;
  zero_accumulators(s);
#pragma unroll
  for (int kk = 0; kk < HeadDim / 8; ++kk) {
    // Step kk's fragments sit in row g + 8 (kk % 2) of each MMA tile.
    const int q_row = kk % 2 * 8, q_word = kk / 2;
    SplitA qa[Sh::kMAtoms];
#pragma unroll
    for (int a = 0; a < Sh::kMAtoms; ++a) {
      const float4 x = *reinterpret_cast<const float4 *>(q_at + (a * 16 + q_row) * Sh::kQPitch + 16 * q_word);
      const uint2 small =
          *reinterpret_cast<const uint2 *>(q_small_at + (a * 16 + q_row) * Sh::kQSmallPitch + 8 * q_word);
      qa[a] = split_a_from_halves(x.x, x.y, x.z, x.w, small.x, small.y);
    }
#pragma unroll
    for (int n0 = 0; n0 < Sh::kKeyBlocks; n0 += Sh::kKeyGroup) {
      SplitB kb[Sh::kKeyGroup];
#pragma unroll
      for (int n = 0; n < Sh::kKeyGroup; ++n) {
        const float2 y = *reinterpret_cast<const float2 *>(k_at + (n0 + n) * 8 * Sh::kKPitch + 8 * kk);
        kb[n] = split_b_from_halves(y.x, y.y, k_small_at[(n0 + n) * 8 * Sh::kKSmallPitch + 4 * kk]);
      }
      mma_split(s, qa, kb, n0);
    }
  }
}

// O += P V against the split value tile at s_v. The thread's own S
// accumulator is P's A fragment (keys 2t, 2t + 1 of rows g, g + 8 as tf32 k
// t and t + 4), split here; V is read at rows 2t and 2t + 1, column g, its
// small halves as the bf16 pair at (row pair t, column g).
template <class Sh, int HeadDim>
__device__ __forceinline__ void pv_product_split(float (&o)[Sh::kMAtoms][Sh::kValueBlocks][4],
                                                 const float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], const float *s_v) {
  const int lane = static_cast<int>(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
  const float *v_at = s_v + 2 * t * Sh::kVPitch + g;
  const uint32_t *v_small_at =
      reinterpret_cast<const uint32_t *>(s_v + Sh::kBlockN * Sh::kVPitch) + t * Sh::kVSmallPitch + g;
#pragma unroll
  for (int kb = 0; kb < Sh::kKeyBlocks; ++kb) {
    SplitA pa[Sh::kMAtoms];
#pragma unroll
    for (int a = 0; a < Sh::kMAtoms; ++a) pa[a] = split_a(s[a][kb][0], s[a][kb][2], s[a][kb][1], s[a][kb][3]);
#pragma unroll
    for (int d0 = 0; d0 < Sh::kValueBlocks; d0 += Sh::kValueGroup) {
      SplitB vb[Sh::kValueGroup];
#pragma unroll
      for (int n = 0; n < Sh::kValueGroup; ++n) {
        const float *at = v_at + kb * 8 * Sh::kVPitch + (d0 + n) * 8;
        vb[n] = split_b_from_halves(at[0], at[Sh::kVPitch], v_small_at[kb * 4 * Sh::kVSmallPitch + (d0 + n) * 8]);
      }
      mma_split(o, pa, vb, d0);
    }
  }
}

// The f32 kernel as sdpa_forward_tile.cuh's policy.
template <int HeadDim, class Config = Tf32x3ConfigOf<false>>
struct Tf32x3Forward {
  using Shape = Tf32x3Shape<HeadDim, Config>;
  using Elem = float;
  using Smem = unsigned char *;
  using Sh = Shape;

  __device__ static unsigned char *smem_at(unsigned char *p) { return p; }
  template <bool Aligned>
  __device__ static void load_q(unsigned char *tile, const float *g, int64_t row_stride, int64_t rows_left, int cols) {
    load_tile_f32<Sh::kBlockM, HeadDim, Sh::kQPitch, Sh::kThreads>(tile, g, row_stride, rows_left, cols, Aligned);
  }
  template <bool Aligned>
  __device__ static void load_k(unsigned char *tile, const float *g, int64_t row_stride, int64_t rows_left, int cols) {
    load_tile_f32<Sh::kBlockN, HeadDim, Sh::kKPitch, Sh::kThreads>(tile, g, row_stride, rows_left, cols, Aligned);
  }
  template <bool Aligned>
  __device__ static void load_v(unsigned char *tile, const float *g, int64_t row_stride, int64_t rows_left, int cols) {
    load_tile_f32<Sh::kBlockN, HeadDim, Sh::kVPitch, Sh::kThreads>(tile, g, row_stride, rows_left, cols, Aligned);
  }
  // Landed tiles are split into tf32 halves in place (sdpa_forward_tile.cuh
  // calls these, then a barrier, before the tiles' fragment reads).
  static constexpr bool kSplitsLandedTiles = true;
  __device__ static void split_q(unsigned char *tile) {
    split_q_tile<Sh::kBlockM, HeadDim, Sh::kQPitch, Sh::kQSmallPitch, Sh::kThreads>(tile);
  }
  __device__ static void split_k(unsigned char *tile) {
    split_k_tile<Sh::kBlockN, HeadDim, Sh::kKPitch, Sh::kKSmallPitch, Sh::kThreads>(tile);
  }
  __device__ static void split_v(unsigned char *tile) {
    split_v_tile<Sh::kBlockN, HeadDim, Sh::kVPitch, Sh::kVSmallPitch, Sh::kThreads>(tile);
  }
  __device__ static void qk(float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], unsigned char *s_q, unsigned char *s_k) {
    qk_product_split<Sh, HeadDim>(s, reinterpret_cast<const float *>(s_q), reinterpret_cast<const float *>(s_k));
  }
  __device__ static void pv(float (&o)[Sh::kMAtoms][Sh::kValueBlocks][4],
                            const float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], unsigned char *s_v) {
    pv_product_split<Sh, HeadDim>(o, s, reinterpret_cast<const float *>(s_v));
  }

  // Straight from the accumulators: each quad of threads writes 32 bytes of a row.
  __device__ static void store_out(const SdpaProblem &p, const ForwardParams &fp,
                                   const float (&o)[Sh::kMAtoms][Sh::kValueBlocks][4],
                                   const float (&row_max)[Sh::kMAtoms][2], const float (&row_sum)[Sh::kMAtoms][2],
                                   int64_t b, int64_t h, int64_t m0, unsigned char *) {
    float *out = static_cast<float *>(p.out.data) + b * p.out.stride[0] + h * p.out.stride[1];
#pragma unroll
    for (int a = 0; a < Sh::kMAtoms; ++a)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        const int64_t row = m0 + thread_row<Sh::kWarpRows>(a, hr);
        const float inv = finish_row(row_max[a][hr], row_sum[a][hr], fp.score.mul, lse_at(p, b, h, row));
        if (row >= p.queries) continue;
        float *out_row = out + row * p.out.stride[2];
#pragma unroll
        for (int db = 0; db < Sh::kValueBlocks; ++db) {
          const int col = thread_col(db, 0);
          if (col >= p.head_dim_v) continue;
          const float2 pair = make_float2(o[a][db][2 * hr] * inv, o[a][db][2 * hr + 1] * inv);
          if (fp.aligned) {
            *reinterpret_cast<float2 *>(out_row + col) = pair;
          } else {
            out_row[col] = pair.x;
            out_row[col + 1] = pair.y;
          }
        }
      }
  }
};

}  // namespace baracuda::kernels::sdpa_tc

namespace baracuda::kernels {

template <int HeadDimTile, bool Wide>
int sdpa_forward_tf32x3_launch(const SdpaProblem &p, cudaStream_t stream) {
  using K = sdpa_tc::Tf32x3Forward<HeadDimTile, sdpa_tc::Tf32x3ConfigOf<Wide>>;
  return sdpa_tc::launch_forward<K>(p, sdpa_tf32x3_smem_bytes(K::Shape::kCfg, HeadDimTile), stream);
}

}  // namespace baracuda::kernels

// One file's instantiation: BARACUDA_SDPA_TF32X3_FORWARD(128, false).
#define BARACUDA_SDPA_TF32X3_FORWARD(TILE, WIDE)                                                     \
  template int baracuda::kernels::sdpa_forward_tf32x3_launch<TILE, WIDE>(const baracuda::kernels::SdpaProblem &, \
                                                                         cudaStream_t)
