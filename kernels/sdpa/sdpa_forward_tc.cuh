// The tensor-core attention forward for f16 / bf16 (FlashAttention-2's
// algorithm, sdpa_forward_tile.cuh), shared by the sm80 and sm89 variants,
// which differ only in their SdpaTcConfig: S = Q K^T and O += P V on
// mma.sync m16n8k16 from ldmatrix fragments of swizzled tiles, and O leaves
// through shared memory in 16-byte stores. Instantiated per variant, dtype
// and head-size tile by sdpa_forward_<variant>_<dtype>_d<tile>.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "sdpa/sdpa_forward_tc_launch.h"
#include "sdpa/sdpa_forward_tc_tile_io.cuh"
#include "sdpa/sdpa_forward_tile.cuh"
#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sdpa_tc_primitives.cuh"
#include "sdpa/sdpa_tc_scores.cuh"

namespace baracuda::kernels::sdpa_tc {

template <SdpaTcVariant Variant>
struct TcConfigOf {
  static constexpr SdpaTcConfig of(int head_dim_tile) { return sdpa_tc_config(Variant, head_dim_tile); }
};

// Config: a class whose of(head_dim_tile) gives the SdpaTcConfig (TcConfigOf
// for the two variants; benchmarks may time others).
template <class Config, int HeadDim>
struct Shape : TileCounts<Config, HeadDim> {
  using Counts = TileCounts<Config, HeadDim>;
  static constexpr uint32_t kQTileBytes = static_cast<uint32_t>(Counts::kBlockM) * HeadDim * 2;
  static constexpr uint32_t kKTileBytes = static_cast<uint32_t>(Counts::kBlockN) * HeadDim * 2;
  static constexpr uint32_t kStageBytes = 2 * kKTileBytes;
  static_assert(Counts::kBlockN % 16 == 0 && HeadDim % 64 == 0, "16-key MMA steps; 8 chunks a row for the swizzle");
};

// acc[a][2 pair] and acc[a][2 pair + 1] += a[a] times the two 8-column B
// fragments of one ldmatrix x4 (b0 b1 of each), for every mma tile a.
template <class T, int MAtoms, int Blocks>
__device__ __forceinline__ void mma_two_blocks(float (&acc)[MAtoms][Blocks][4], const uint32_t (&a)[MAtoms][4],
                                               const uint32_t (&b)[4], int pair) {
#pragma unroll
  for (int m = 0; m < MAtoms; ++m) {
    mma_16816<T>(acc[m][2 * pair], a[m], b[0], b[1]);
    mma_16816<T>(acc[m][2 * pair + 1], a[m], b[2], b[3]);
  }
}

// S = Q K^T for this warp's rows against the key tile at s_k.
template <class T, class Sh, int HeadDim>
__device__ __forceinline__ void qk_product(float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], uint32_t s_q, uint32_t s_k) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp_row = static_cast<int>(threadIdx.x) / 32 * Sh::kWarpRows;
  // ldmatrix x4 of Q: matrices (rows 0-7, cols 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15): a0..a3.
  const uint32_t q_off = swizzled<HeadDim>(warp_row + (lane & 7) + (lane & 8), (lane >> 4) * 8);
  // Of K (keys x d): (keys 0-7, d 0-7), (0-7, 8-15), (8-15, 0-7), (8-15, 8-15): b0 b1 of two key blocks.
  const uint32_t k_off = swizzled<HeadDim>((lane & 7) + (lane >> 4) * 8, lane & 8);
  zero_accumulators(s);
#pragma unroll
  for (int kk = 0; kk < HeadDim / 16; ++kk) {
    uint32_t qa[Sh::kMAtoms][4];
#pragma unroll
    for (int a = 0; a < Sh::kMAtoms; ++a) ldmatrix_x4(qa[a], s_q + at_step(q_off, kk) + a * 16 * HeadDim * 2);
#pragma unroll
    for (int nb2 = 0; nb2 < Sh::kKeyBlocks / 2; ++nb2) {
      uint32_t kb[4];
      ldmatrix_x4(kb, s_k + at_step(k_off, kk) + nb2 * 16 * HeadDim * 2);
      mma_two_blocks<T>(s, qa, kb, nb2);
    }
  }
}

// O += P V, P (in s) rounded to T, against the value tile at s_v;
// before(kk) first thing for the 16 keys of step kk (Scores: s's type,
// const where before leaves it alone).
template <class T, class Sh, int HeadDim, class Scores, class Before>
__device__ __forceinline__ void pv_product(float (&o)[Sh::kMAtoms][Sh::kValueBlocks][4], Scores &s, uint32_t s_v,
                                           Before &&before) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  // ldmatrix x4 .trans of V (keys x dv): (keys 0-7, dv 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15): b0 b1 of two dv
  // blocks.
  const uint32_t v_off = swizzled<HeadDim>((lane & 7) + (lane & 8), (lane >> 4) * 8);
#pragma unroll
  for (int kk = 0; kk < Sh::kKeyBlocks / 2; ++kk) {
    before(kk);
    uint32_t pa[Sh::kMAtoms][4];
#pragma unroll
    for (int a = 0; a < Sh::kMAtoms; ++a) {
      pa[a][0] = pack2<T>(s[a][2 * kk][0], s[a][2 * kk][1]);
      pa[a][1] = pack2<T>(s[a][2 * kk][2], s[a][2 * kk][3]);
      pa[a][2] = pack2<T>(s[a][2 * kk + 1][0], s[a][2 * kk + 1][1]);
      pa[a][3] = pack2<T>(s[a][2 * kk + 1][2], s[a][2 * kk + 1][3]);
    }
#pragma unroll
    for (int dv = 0; dv < HeadDim / 16; ++dv) {
      uint32_t vb[4];
      ldmatrix_x4_trans(vb, s_v + at_step(v_off, dv) + kk * 16 * HeadDim * 2);
      mma_two_blocks<T>(o, pa, vb, dv);
    }
  }
}

// The f16 / bf16 kernel as sdpa_forward_tile.cuh's policy.
template <class T, class Config, int HeadDim>
struct TcForward {
  using Shape = sdpa_tc::Shape<Config, HeadDim>;
  using Elem = uint16_t;
  using Smem = uint32_t;
  using Sh = Shape;

  __device__ static uint32_t smem_at(unsigned char *p) { return shared_address(p); }
  // The 16-bit tiles go to the MMAs as they land.
  static constexpr bool kSplitsLandedTiles = false;
  template <bool Aligned>
  __device__ static void load_q(uint32_t tile, const uint16_t *g, int64_t row_stride, int64_t rows_left, int cols) {
    load_tile_clamped<Sh::kBlockM, HeadDim, Sh::kThreads, Aligned>(tile, g, row_stride, rows_left, cols);
  }
  template <bool Aligned>
  __device__ static void load_k(uint32_t tile, const uint16_t *g, int64_t row_stride, int64_t rows_left, int cols) {
    load_tile_clamped<Sh::kBlockN, HeadDim, Sh::kThreads, Aligned>(tile, g, row_stride, rows_left, cols);
  }
  template <bool Aligned>
  __device__ static void load_v(uint32_t tile, const uint16_t *g, int64_t row_stride, int64_t rows_left, int cols) {
    load_k<Aligned>(tile, g, row_stride, rows_left, cols);
  }
  __device__ static void qk(float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], uint32_t s_q, uint32_t s_k) {
    qk_product<T, Sh, HeadDim>(s, s_q, s_k);
  }
  __device__ static void pv(float (&o)[Sh::kMAtoms][Sh::kValueBlocks][4],
                            const float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], uint32_t s_v) {
    pv_product<T, Sh, HeadDim>(o, s, s_v, [](int) {});
  }
  // With SdpaTcExponentials::kInPv: s holds scores, and each step's 16 keys
  // become P (exponentiate_blocks) just before their products, so that the
  // special-function unit's work runs under the tensor cores'.
  __device__ static void pv_exponentiating(float (&o)[Sh::kMAtoms][Sh::kValueBlocks][4],
                                           float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], uint32_t s_v,
                                           const float (&base)[Sh::kMAtoms][2], float mul) {
    pv_product<T, Sh, HeadDim>(o, s, s_v, [&](int kk) { exponentiate_blocks(s, base, mul, 2 * kk, 2); });
  }

  // Through the Q tile's place, once every warp is done reading Q.
  __device__ static void store_out(const SdpaProblem &p, const ForwardParams &fp,
                                   const float (&o)[Sh::kMAtoms][Sh::kValueBlocks][4],
                                   const float (&row_max)[Sh::kMAtoms][2], const float (&row_sum)[Sh::kMAtoms][2],
                                   int64_t b, int64_t h, int64_t m0, uint32_t s_q) {
    __syncthreads();
    // The thread's rows are 8 apart and share their swizzle: its offset at
    // value block 0 of its first row gives every other (at_block). Opaque to
    // the optimizer, as is s_q, so that the addresses are formed here rather
    // than hoisted to the kernel's start and kept across the key loop in
    // local memory (64 spill stores and loads at D 128).
    uint32_t first = swizzled<HeadDim>(thread_row<Sh::kWarpRows>(0, 0), thread_col(0, 0));
    asm volatile("" : "+r"(first), "+r"(s_q));
#pragma unroll
    for (int a = 0; a < Sh::kMAtoms; ++a)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        const int row = thread_row<Sh::kWarpRows>(a, hr);
        const float inv = finish_row(row_max[a][hr], row_sum[a][hr], fp.score.mul, lse_at(p, b, h, m0 + row));
        const uint32_t row_at = s_q + static_cast<uint32_t>((16 * a + 8 * hr) * HeadDim * 2);
#pragma unroll
        for (int db = 0; db < Sh::kValueBlocks; ++db)
          st_shared_4(row_at + at_block(first, db), pack2<T>(o[a][db][2 * hr] * inv, o[a][db][2 * hr + 1] * inv));
      }
    __syncthreads();
    uint16_t *out =
        static_cast<uint16_t *>(p.out.data) + b * p.out.stride[0] + h * p.out.stride[1] + m0 * p.out.stride[2];
    store_tile<Sh::kBlockM, HeadDim, Sh::kThreads>(out, p.out.stride[2], p.queries - m0, p.head_dim_v, s_q,
                                                   fp.aligned);
  }
};

}  // namespace baracuda::kernels::sdpa_tc

namespace baracuda::kernels {

template <SdpaTcVariant Variant, class T, int HeadDimTile>
int sdpa_forward_tc_launch(const SdpaProblem &p, cudaStream_t stream) {
  using K = sdpa_tc::TcForward<T, sdpa_tc::TcConfigOf<Variant>, HeadDimTile>;
  return sdpa_tc::launch_forward<K>(p, sdpa_tc_smem_bytes(K::Shape::kCfg, HeadDimTile), stream);
}

}  // namespace baracuda::kernels

// One file's instantiation: BARACUDA_SDPA_TC_FORWARD(kSm80, __nv_bfloat16, 128).
#define BARACUDA_SDPA_TC_FORWARD(VARIANT, T, TILE)                                                            \
  template int baracuda::kernels::sdpa_forward_tc_launch<baracuda::kernels::SdpaTcVariant::VARIANT, T, TILE>( \
      const baracuda::kernels::SdpaProblem &, cudaStream_t)
