// The f32 attention forward on tensor cores: FlashAttention-2's algorithm as
// in sdpa_forward_tc.cuh, with each product in 3xTF32. Every f32 operand is
// split into a tf32 big half and a tf32 small half as it leaves shared
// memory, and a b = a_big b_big + a_big b_small + a_small b_big on mma.sync
// m16n8k8 tf32 with f32 accumulation: about 2^-22 relative per product where
// plain tf32 gives 2^-11, at a third of the tf32 rate. Both S = Q K^T and
// O += P V run so (P in f32, split like the rest); the softmax is the f16 /
// bf16 kernels' online softmax in f32 with exp2. Instantiated per head-size
// tile by sdpa_forward_tf32x3_d<tile>.cu.
//
// Fragments: an m16n8k8 sums over its 8 k indices in any order as long as A
// and B agree, so logical k = t and t + 4 (t = lane % 4) are taken as
// physical 2t and 2t + 1. Q and K fragments are then one float2 each (d 2t,
// 2t + 1 of a row), and the A fragment of P is the thread's own S accumulator
// (keys 2t, 2t + 1 of rows g, g + 8): no shuffles.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "sdpa/sdpa_forward_params.cuh"
#include "sdpa/sdpa_forward_tc_launch.h"
#include "sdpa/sdpa_tc_primitives.cuh"
#include "sdpa/sdpa_tc_scores.cuh"
#include "sdpa/sdpa_tf32x3_heuristics.h"
#include "sdpa/sdpa_tf32x3_tile_io.cuh"

namespace baracuda::kernels::sdpa_tc {

template <int HeadDim>
struct Tf32x3Shape {
  static constexpr SdpaTcConfig kCfg = sdpa_tf32x3_config(HeadDim);
  static constexpr int kThreads = sdpa_tc_threads(kCfg);
  static constexpr int kBlockM = sdpa_tc_block_m(kCfg);
  static constexpr int kBlockN = kCfg.block_n;
  static constexpr int kStages = kCfg.stages;
  static constexpr int kMAtoms = kCfg.m_atoms;
  static constexpr int kWarpRows = 16 * kCfg.m_atoms;
  static constexpr int kKeyBlocks = kBlockN / 8;    // 8-key column blocks of S
  static constexpr int kValueBlocks = HeadDim / 8;  // 8-wide column blocks of O
  static constexpr int kQkPitch = sdpa_tf32x3_qk_pitch(HeadDim);
  static constexpr int kVPitch = sdpa_tf32x3_v_pitch(HeadDim);
  static constexpr uint32_t kKTileBytes = kBlockN * kQkPitch * 4;
  static constexpr uint32_t kStageBytes = kKTileBytes + kBlockN * kVPitch * 4;
  static_assert(kStages >= 2, "the ring overlaps at least one tile's copy with another's math");
  static_assert(kBlockN % 8 == 0 && HeadDim % 8 == 0, "8-wide MMA steps");
};

// The big and small halves of an A fragment whose elements are, in PTX's
// order, x0 (row g, k t), x1 (g + 8, t), x2 (g, t + 4), x3 (g + 8, t + 4).
__device__ __forceinline__ void split_a(uint32_t (&big)[4], uint32_t (&small)[4], float x0, float x1, float x2,
                                        float x3) {
  const float x[4] = {x0, x1, x2, x3};
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const Tf32Split h = split_tf32(x[e]);
    big[e] = h.big;
    small[e] = h.small;
  }
}

// S = Q K^T for this warp's rows against the key tile at s_k.
template <class Sh, int HeadDim>
__device__ __forceinline__ void qk_product_3xtf32(float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], uint32_t s_q,
                                                  uint32_t s_k) {
  const int lane = static_cast<int>(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
  const int warp_row = static_cast<int>(threadIdx.x) / 32 * Sh::kWarpRows;
  const uint32_t q_addr = s_q + static_cast<uint32_t>((warp_row + g) * Sh::kQkPitch + 2 * t) * 4u;
  const uint32_t k_addr = s_k + static_cast<uint32_t>(g * Sh::kQkPitch + 2 * t) * 4u;
#pragma unroll
  for (int a = 0; a < Sh::kMAtoms; ++a)
#pragma unroll
    for (int nb = 0; nb < Sh::kKeyBlocks; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[a][nb][e] = 0.f;
#pragma unroll
  for (int kk = 0; kk < HeadDim / 8; ++kk) {
    uint32_t qa_big[Sh::kMAtoms][4], qa_small[Sh::kMAtoms][4];
#pragma unroll
    for (int a = 0; a < Sh::kMAtoms; ++a) {
      const float2 lo = ld_shared_f2(q_addr + (a * 16 * Sh::kQkPitch + 8 * kk) * 4);
      const float2 hi = ld_shared_f2(q_addr + ((a * 16 + 8) * Sh::kQkPitch + 8 * kk) * 4);
      split_a(qa_big[a], qa_small[a], lo.x, hi.x, lo.y, hi.y);
    }
#pragma unroll
    for (int nb = 0; nb < Sh::kKeyBlocks; ++nb) {
      const float2 kb = ld_shared_f2(k_addr + (nb * 8 * Sh::kQkPitch + 8 * kk) * 4);
      const Tf32Split b0 = split_tf32(kb.x), b1 = split_tf32(kb.y);
#pragma unroll
      for (int a = 0; a < Sh::kMAtoms; ++a) mma_1688_3xtf32(s[a][nb], qa_big[a], qa_small[a], b0, b1);
    }
  }
}

// O += P V, P (in s) split like the rest, against the value tile at s_v.
template <class Sh, int HeadDim>
__device__ __forceinline__ void pv_product_3xtf32(float (&o)[Sh::kMAtoms][Sh::kValueBlocks][4],
                                                  const float (&s)[Sh::kMAtoms][Sh::kKeyBlocks][4], uint32_t s_v) {
  const int lane = static_cast<int>(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
  const uint32_t v_addr = s_v + static_cast<uint32_t>(2 * t * Sh::kVPitch + g) * 4u;
#pragma unroll
  for (int kb = 0; kb < Sh::kKeyBlocks; ++kb) {
    uint32_t pa_big[Sh::kMAtoms][4], pa_small[Sh::kMAtoms][4];
#pragma unroll
    for (int a = 0; a < Sh::kMAtoms; ++a)
      split_a(pa_big[a], pa_small[a], s[a][kb][0], s[a][kb][2], s[a][kb][1], s[a][kb][3]);
#pragma unroll
    for (int db = 0; db < Sh::kValueBlocks; ++db) {
      const uint32_t at = v_addr + (kb * 8 * Sh::kVPitch + db * 8) * 4;
      const Tf32Split b0 = split_tf32(ld_shared_f1(at)), b1 = split_tf32(ld_shared_f1(at + Sh::kVPitch * 4));
#pragma unroll
      for (int a = 0; a < Sh::kMAtoms; ++a) mma_1688_3xtf32(o[a][db], pa_big[a], pa_small[a], b0, b1);
    }
  }
}

template <int HeadDim>
__device__ __forceinline__ void forward_tile_3xtf32(const SdpaProblem &p, const ForwardParams &fp, int64_t tile,
                                                    uint32_t s_q, uint32_t s_kv) {
  using Sh = Tf32x3Shape<HeadDim>;
  const int64_t bh = tile / fp.query_tiles;
  const int64_t m_index = tile % fp.query_tiles;
  // Causal rows further down see more keys: their tiles go first.
  const int64_t m0 = (p.causal ? fp.query_tiles - 1 - m_index : m_index) * Sh::kBlockM;
  const int64_t b = bh / p.heads_q, h = bh % p.heads_q, hk = h / fp.group;
  const int64_t m_last = (m0 + Sh::kBlockM < p.queries ? m0 + Sh::kBlockM : p.queries) - 1;

  const float *q = static_cast<const float *>(p.q.data) + b * p.q.stride[0] + h * p.q.stride[1] + m0 * p.q.stride[2];
  const float *k = static_cast<const float *>(p.k.data) + b * p.k.stride[0] + hk * p.k.stride[1];
  const float *v = static_cast<const float *>(p.v.data) + b * p.v.stride[0] + hk * p.v.stride[1];
  const SdpaKeyTiles key_tiles = sdpa_key_tiles(fp.score.visible, m0, m_last, Sh::kBlockN);
  const int64_t n_tiles = key_tiles.end - key_tiles.begin;

  // Each key tile is one cp.async group, K and V, committed even when empty
  // so the wait below counts a fixed number of groups.
  auto load_kv = [&](int64_t t) {
    const int64_t n0 = (key_tiles.begin + t) * Sh::kBlockN;
    const uint32_t s_k = s_kv + static_cast<uint32_t>(t % Sh::kStages) * Sh::kStageBytes;
    if (t < n_tiles) {
      load_tile_f32<Sh::kBlockN, HeadDim, Sh::kQkPitch, Sh::kThreads>(s_k, k + n0 * p.k.stride[2], p.k.stride[2],
                                                                      p.keys - n0, p.head_dim, fp.aligned);
      load_tile_f32<Sh::kBlockN, HeadDim, Sh::kVPitch, Sh::kThreads>(s_k + Sh::kKTileBytes, v + n0 * p.v.stride[2],
                                                                     p.v.stride[2], p.keys - n0, p.head_dim_v,
                                                                     fp.aligned);
    }
    cp_async_commit();
  };

  load_tile_f32<Sh::kBlockM, HeadDim, Sh::kQkPitch, Sh::kThreads>(s_q, q, p.q.stride[2], p.queries - m0, p.head_dim,
                                                                  fp.aligned);
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
    const uint32_t s_k = s_kv + static_cast<uint32_t>(t % Sh::kStages) * Sh::kStageBytes;
    const int64_t n0 = (key_tiles.begin + t) * Sh::kBlockN;

    float s[Sh::kMAtoms][Sh::kKeyBlocks][4];
    qk_product_3xtf32<Sh, HeadDim>(s, s_q, s_k);
    if (fp.score.transformed)
      transform_scores<Sh::kMAtoms, Sh::kKeyBlocks, Sh::kWarpRows>(s, fp.score, slope_log2, m0, n0);
    if (!sdpa_tile_fully_visible(fp.score.visible, m0, m_last, n0, Sh::kBlockN))
      mask_scores<Sh::kMAtoms, Sh::kKeyBlocks, Sh::kWarpRows>(s, fp.score.visible, m0, n0);
    online_softmax(s, o, row_max, row_sum, fp.score.mul);
    pv_product_3xtf32<Sh, HeadDim>(o, s, s_k + Sh::kKTileBytes);
  }
  // With no key tile the Q copies were never waited for; the next tile's
  // copies must not race them.
  cp_async_wait<0>();

  // Straight from the accumulators: each quad of threads writes 32 bytes of a row.
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

template <int HeadDim>
__global__ void __launch_bounds__(Tf32x3Shape<HeadDim>::kThreads, Tf32x3Shape<HeadDim>::kCfg.min_blocks)
    forward_kernel_3xtf32(const SdpaProblem p, const ForwardParams fp) {
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t s_q = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const uint32_t s_kv = s_q + Tf32x3Shape<HeadDim>::kBlockM * Tf32x3Shape<HeadDim>::kQkPitch * 4;
  for (int64_t tile = blockIdx.x; tile < fp.tiles; tile += gridDim.x) {
    forward_tile_3xtf32<HeadDim>(p, fp, tile, s_q, s_kv);
    __syncthreads();  // every warp is done with Q and the ring before the next tile's copies refill them
  }
}

}  // namespace baracuda::kernels::sdpa_tc

namespace baracuda::kernels {

template <int HeadDimTile>
int sdpa_forward_tf32x3_launch(const SdpaProblem &p, cudaStream_t stream) {
  using Sh = sdpa_tc::Tf32x3Shape<HeadDimTile>;
  return sdpa_tc::launch_forward(sdpa_tc::forward_kernel_3xtf32<HeadDimTile>, Sh::kThreads,
                                 sdpa_tf32x3_smem_bytes(Sh::kCfg, HeadDimTile), p,
                                 sdpa_tc::forward_params(p, Sh::kCfg, 4), stream);
}

}  // namespace baracuda::kernels

// One file's instantiation: BARACUDA_SDPA_TF32X3_FORWARD(128).
#define BARACUDA_SDPA_TF32X3_FORWARD(TILE) \
  template int baracuda::kernels::sdpa_forward_tf32x3_launch<TILE>(const baracuda::kernels::SdpaProblem &, cudaStream_t)
