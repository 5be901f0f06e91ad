// The tensor-core attention forward (FlashAttention-2's algorithm), shared by
// the sm80 and sm89 variants, which differ only in their SdpaTcConfig. A
// block owns a tile of query rows of one (b, h), its warps m_atoms * 16 rows
// each, and walks the key tiles its rows can see: K and V tiles arrive by
// cp.async in a ring of `stages` slots, S = Q K^T and O += P V run on
// mma.sync m16n8k16 with f32 accumulation, the softmax is online in f32 with
// exp2, and O leaves through shared memory in 16-byte stores. Instantiated
// per variant, dtype and head-size tile by sdpa_forward_<variant>_<dtype>_d<tile>.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "sdpa/sdpa_forward_params.cuh"
#include "sdpa/sdpa_forward_tc_launch.h"
#include "sdpa/sdpa_forward_tc_tile_io.cuh"
#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sdpa_tc_primitives.cuh"
#include "sdpa/sdpa_tc_scores.cuh"

namespace baracuda::kernels::sdpa_tc {

template <SdpaTcVariant Variant, int HeadDim>
struct Shape {
  static constexpr SdpaTcConfig kCfg = sdpa_tc_config(Variant, HeadDim);
  static constexpr int kThreads = sdpa_tc_threads(kCfg);
  static constexpr int kBlockM = sdpa_tc_block_m(kCfg);
  static constexpr int kBlockN = kCfg.block_n;
  static constexpr int kStages = kCfg.stages;
  static constexpr int kMAtoms = kCfg.m_atoms;
  static constexpr int kWarpRows = 16 * kCfg.m_atoms;
  static constexpr int kKeyBlocks = kBlockN / 8;    // 8-key column blocks of S
  static constexpr int kValueBlocks = HeadDim / 8;  // 8-wide column blocks of O
  static constexpr uint32_t kKvTileBytes = static_cast<uint32_t>(kBlockN) * HeadDim * 2;
  static_assert(kStages >= 2, "the ring overlaps at least one tile's copy with another's math");
  static_assert(kBlockN % 16 == 0 && HeadDim % 64 == 0, "16-key MMA steps; 8 chunks a row for the swizzle");
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
#pragma unroll
  for (int a = 0; a < Sh::kMAtoms; ++a)
#pragma unroll
    for (int nb = 0; nb < Sh::kKeyBlocks; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[a][nb][e] = 0.f;
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

// O += P V, P (in s) rounded to T, against the value tile at s_v.
template <class T, class Sh, int HeadDim>
__device__ __forceinline__ void pv_product(float (&o)[Sh::kMAtoms][Sh::kValueBlocks][4],
                                           const float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], uint32_t s_v) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  // ldmatrix x4 .trans of V (keys x dv): (keys 0-7, dv 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15): b0 b1 of two dv
  // blocks.
  const uint32_t v_off = swizzled<HeadDim>((lane & 7) + (lane & 8), (lane >> 4) * 8);
#pragma unroll
  for (int kk = 0; kk < Sh::kKeyBlocks / 2; ++kk) {
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

template <class T, SdpaTcVariant Variant, int HeadDim>
__device__ __forceinline__ void forward_tile(const SdpaProblem &p, const ForwardParams &fp, int64_t tile, uint32_t s_q,
                                             uint32_t s_kv) {
  using Sh = Shape<Variant, HeadDim>;
  const int64_t bh = tile / fp.query_tiles;
  const int64_t m_index = tile % fp.query_tiles;
  // Causal rows further down see more keys: their tiles go first.
  const int64_t m0 = (p.causal ? fp.query_tiles - 1 - m_index : m_index) * Sh::kBlockM;
  const int64_t b = bh / p.heads_q, h = bh % p.heads_q, hk = h / fp.group;
  const int64_t m_last = (m0 + Sh::kBlockM < p.queries ? m0 + Sh::kBlockM : p.queries) - 1;

  const uint16_t *q =
      static_cast<const uint16_t *>(p.q.data) + b * p.q.stride[0] + h * p.q.stride[1] + m0 * p.q.stride[2];
  const uint16_t *k = static_cast<const uint16_t *>(p.k.data) + b * p.k.stride[0] + hk * p.k.stride[1];
  const uint16_t *v = static_cast<const uint16_t *>(p.v.data) + b * p.v.stride[0] + hk * p.v.stride[1];
  const SdpaKeyTiles key_tiles = sdpa_key_tiles(fp.score.visible, m0, m_last, Sh::kBlockN);
  const int64_t n_tiles = key_tiles.end - key_tiles.begin;

  // Each key tile is one cp.async group, K and V, committed even when empty
  // so the wait below counts a fixed number of groups.
  auto load_kv = [&](int64_t t) {
    const int64_t n0 = (key_tiles.begin + t) * Sh::kBlockN;
    const uint32_t s_k = s_kv + static_cast<uint32_t>(t % Sh::kStages) * 2 * Sh::kKvTileBytes;
    if (t < n_tiles) {
      load_tile<Sh::kBlockN, HeadDim, Sh::kThreads>(s_k, k + n0 * p.k.stride[2], p.k.stride[2], p.keys - n0, p.head_dim,
                                                    fp.aligned);
      load_tile<Sh::kBlockN, HeadDim, Sh::kThreads>(s_k + Sh::kKvTileBytes, v + n0 * p.v.stride[2], p.v.stride[2],
                                                    p.keys - n0, p.head_dim_v, fp.aligned);
    }
    cp_async_commit();
  };

  load_tile<Sh::kBlockM, HeadDim, Sh::kThreads>(s_q, q, p.q.stride[2], p.queries - m0, p.head_dim, fp.aligned);
  cp_async_commit();
#pragma unroll
  for (int t = 0; t < Sh::kStages - 1; ++t) load_kv(t);

  float slope_log2 = 0.f;
  if (fp.score.alibi != 0)
    slope_log2 =
        static_cast<const float *>(p.slopes)[b * p.slope_stride[0] + h * p.slope_stride[1]] * 1.4426950408889634f;

  float o[Sh::kMAtoms][Sh::kValueBlocks][4];
  float row_max[Sh::kMAtoms][2], row_sum[Sh::kMAtoms][2];
#pragma unroll
  for (int a = 0; a < Sh::kMAtoms; ++a) {
#pragma unroll
    for (int db = 0; db < Sh::kValueBlocks; ++db)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[a][db][e] = 0.f;
    row_max[a][0] = row_max[a][1] = -INFINITY;
    row_sum[a][0] = row_sum[a][1] = 0.f;
  }

  for (int64_t t = 0; t < n_tiles; ++t) {
    // Tile t (and Q) have landed, and every warp is done with tile t - 1,
    // whose slot the next copy refills.
    cp_async_wait<Sh::kStages - 2>();
    __syncthreads();
    load_kv(t + Sh::kStages - 1);
    const uint32_t s_k = s_kv + static_cast<uint32_t>(t % Sh::kStages) * 2 * Sh::kKvTileBytes;
    const int64_t n0 = (key_tiles.begin + t) * Sh::kBlockN;

    float s[Sh::kMAtoms][Sh::kKeyBlocks][4];
    qk_product<T, Sh, HeadDim>(s, s_q, s_k);
    if (fp.score.transformed)
      transform_scores<Sh::kMAtoms, Sh::kKeyBlocks, Sh::kWarpRows>(s, fp.score, slope_log2, m0, n0);
    if (!sdpa_tile_fully_visible(fp.score.visible, m0, m_last, n0, Sh::kBlockN))
      mask_scores<Sh::kMAtoms, Sh::kKeyBlocks, Sh::kWarpRows>(s, fp.score.visible, m0, n0);
    online_softmax(s, o, row_max, row_sum, fp.score.mul);
    pv_product<T, Sh, HeadDim>(o, s, s_k + Sh::kKvTileBytes);
  }
  // With no key tile the Q copies were never waited for; either way every
  // warp's reads of Q are done before the output takes its place.
  cp_async_wait<0>();
  __syncthreads();

#pragma unroll
  for (int a = 0; a < Sh::kMAtoms; ++a)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int row = thread_row<Sh::kWarpRows>(a, hr);
      const float inv = finish_row(row_max[a][hr], row_sum[a][hr], fp.score.mul, lse_at(p, b, h, m0 + row));
#pragma unroll
      for (int db = 0; db < Sh::kValueBlocks; ++db)
        st_shared_4(s_q + swizzled<HeadDim>(row, thread_col(db, 0)),
                    pack2<T>(o[a][db][2 * hr] * inv, o[a][db][2 * hr + 1] * inv));
    }
  __syncthreads();
  uint16_t *out =
      static_cast<uint16_t *>(p.out.data) + b * p.out.stride[0] + h * p.out.stride[1] + m0 * p.out.stride[2];
  store_tile<Sh::kBlockM, HeadDim, Sh::kThreads>(out, p.out.stride[2], p.queries - m0, p.head_dim_v, s_q, fp.aligned);
}

template <class T, SdpaTcVariant Variant, int HeadDim>
__global__ void __launch_bounds__(Shape<Variant, HeadDim>::kThreads, Shape<Variant, HeadDim>::kCfg.min_blocks)
    forward_kernel(const SdpaProblem p, const ForwardParams fp) {
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t s_q = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const uint32_t s_kv = s_q + Shape<Variant, HeadDim>::kBlockM * HeadDim * 2;
  for (int64_t tile = blockIdx.x; tile < fp.tiles; tile += gridDim.x) {
    forward_tile<T, Variant, HeadDim>(p, fp, tile, s_q, s_kv);
    __syncthreads();  // the next tile's copies refill Q and the ring
  }
}

}  // namespace baracuda::kernels::sdpa_tc

namespace baracuda::kernels {

template <SdpaTcVariant Variant, class T, int HeadDimTile>
int sdpa_forward_tc_launch(const SdpaProblem &p, cudaStream_t stream) {
  using Sh = sdpa_tc::Shape<Variant, HeadDimTile>;
  return sdpa_tc::launch_forward(sdpa_tc::forward_kernel<T, Variant, HeadDimTile>, Sh::kThreads,
                                 sdpa_tc_smem_bytes(Sh::kCfg, HeadDimTile), p,
                                 sdpa_tc::forward_params(p, Sh::kCfg, 2), stream);
}

}  // namespace baracuda::kernels

// One file's instantiation: BARACUDA_SDPA_TC_FORWARD(kSm80, __nv_bfloat16, 128).
#define BARACUDA_SDPA_TC_FORWARD(VARIANT, T, TILE)                                                            \
  template int baracuda::kernels::sdpa_forward_tc_launch<baracuda::kernels::SdpaTcVariant::VARIANT, T, TILE>( \
      const baracuda::kernels::SdpaProblem &, cudaStream_t)
