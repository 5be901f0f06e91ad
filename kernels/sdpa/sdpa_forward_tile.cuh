// FlashAttention-2's forward over one query tile, shared by the tensor-core
// kernels (f16 / bf16 in sdpa_forward_tc.cuh, f32 in sdpa_forward_tf32x3.cuh),
// which differ in how tiles are stored and multiplied. A block owns a tile of
// query rows of one (b, h), its warps m_atoms * 16 rows each, and walks the
// key tiles its rows can see: K and V tiles arrive by cp.async in a ring of
// `stages` slots (or, with one stage, FlashAttention-2's single K and V
// slots, each refilled under the other's product), S = Q K^T and O += P V
// run on the tensor cores with f32 accumulation, and the softmax is online
// in f32 with exp2.
//
// A kernel is a policy class K with
//   K::Shape   TileCounts, and kQTileBytes and kKTileBytes (a ring slot holds
//              K, then V, in kStageBytes)
//   K::Elem    the element of q, k, v and out
//   K::Smem    how it addresses shared memory (a 32-bit shared-window address or
//              a pointer), K::smem_at(pointer) converting
//   K::load_q, load_k, load_v<Aligned> (tile, rows, row_stride, rows_left, cols):
//              a tile's copies into shared memory (cp.async when aligned; the
//              caller commits), zeros past rows_left and cols
//   K::kSplitsLandedTiles: whether each tile, once landed, is rewritten in
//              place by K::split_q, split_k, split_v (s_q, the K tile, the V
//              tile; f32's tf32 halves), a barrier before its fragment reads
//   K::qk (s, s_q, s_k), K::pv (o, s, s_v): the two products of this warp's rows
//   K::store_out (p, fp, o, row_max, row_sum, b, h, m0, s_q): the normalized
//              rows and their lse, once every copy has landed (s_q is free)
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "sdpa/sdpa_forward_params.cuh"
#include "sdpa/sdpa_tc_primitives.cuh"
#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sdpa_tc_scores.cuh"

namespace baracuda::kernels::sdpa_tc {

// The counts a kernel's Shape derives from its SdpaTcConfig, Config::of(HeadDim).
template <class Config, int HeadDim>
struct TileCounts {
  static constexpr SdpaTcConfig kCfg = Config::of(HeadDim);
  static constexpr int kThreads = sdpa_tc_threads(kCfg);
  static constexpr int kBlockM = sdpa_tc_block_m(kCfg);
  static constexpr int kBlockN = kCfg.block_n;
  static constexpr int kStages = kCfg.stages;
  static constexpr int kMAtoms = kCfg.m_atoms;
  static constexpr int kWarpRows = 16 * kCfg.m_atoms;
  static constexpr int kKeyBlocks = kBlockN / 8;    // 8-key column blocks of S
  static constexpr int kValueBlocks = HeadDim / 8;  // 8-wide column blocks of O
  static_assert(kStages >= 1, "a ring of stages slots, or the one-slot pipeline");
};

// Aligned: fp.aligned, a template flag so that the key loop holds only the
// cp.async copies (the plain loads of unaligned views are another
// instantiation, chosen at launch); with kCfg.aligned_at_run_time the one
// instantiation reads fp.aligned instead (Aligned true).
template <class K, bool Aligned>
__device__ __forceinline__ void forward_tile(const SdpaProblem &p, const ForwardParams &fp, int64_t tile,
                                             typename K::Smem s_q, typename K::Smem s_kv) {
  using Sh = typename K::Shape;
  using Elem = typename K::Elem;
  const SdpaQueryTile at = sdpa_query_tile(fp.order, tile);
  const int64_t bh = at.bh, m0 = at.m_index * Sh::kBlockM;
  const int64_t b = bh / p.heads_q, h = bh % p.heads_q, hk = h / fp.group;
  const int64_t m_last = (m0 + Sh::kBlockM < p.queries ? m0 + Sh::kBlockM : p.queries) - 1;

  const Elem *q = static_cast<const Elem *>(p.q.data) + b * p.q.stride[0] + h * p.q.stride[1] + m0 * p.q.stride[2];
  const Elem *k = static_cast<const Elem *>(p.k.data) + b * p.k.stride[0] + hk * p.k.stride[1];
  const Elem *v = static_cast<const Elem *>(p.v.data) + b * p.v.stride[0] + hk * p.v.stride[1];
  const SdpaKeyTiles key_tiles = sdpa_key_tiles(fp.score.visible, m0, m_last, Sh::kBlockN);
  SdpaCommonKeys common_keys = sdpa_common_keys(fp.score.visible, m0, m_last);
  // Opaque to the optimizer, so that the key loop keeps the two bounds
  // rather than recomputing them from the mask's fields on every tile
  // (44 uniform instructions a tile at D 128).
  asm("" : "+l"(common_keys.from), "+l"(common_keys.to));
  const int64_t n_tiles = key_tiles.end - key_tiles.begin;
  // f(std::bool_constant<the views' alignment>).
  auto aligned_as = [&](auto &&f) {
    if constexpr (Sh::kCfg.aligned_at_run_time) {
      if (fp.aligned)
        f(std::true_type{});
      else
        f(std::false_type{});
    } else {
      f(std::bool_constant<Aligned>{});
    }
  };
  auto slot = [&](int64_t t) { return s_kv + static_cast<uint32_t>(t % Sh::kStages) * Sh::kStageBytes; };

  auto load_k = [&](int64_t t) {
    const int64_t n0 = (key_tiles.begin + t) * Sh::kBlockN;
    aligned_as([&](auto aligned) {
      constexpr bool kAligned = decltype(aligned)::value;
      K::template load_k<kAligned>(slot(t), k + n0 * p.k.stride[2], p.k.stride[2], p.keys - n0, p.head_dim);
    });
  };
  auto load_v = [&](int64_t t) {
    const int64_t n0 = (key_tiles.begin + t) * Sh::kBlockN;
    aligned_as([&](auto aligned) {
      constexpr bool kAligned = decltype(aligned)::value;
      K::template load_v<kAligned>(slot(t) + Sh::kKTileBytes, v + n0 * p.v.stride[2], p.v.stride[2], p.keys - n0,
                                   p.head_dim_v);
    });
  };
  // In the ring each key tile is one cp.async group, K and V, committed even
  // when empty so the wait below counts a fixed number of groups.
  auto load_kv = [&](int64_t t) {
    if (t < n_tiles) {
      load_k(t);
      load_v(t);
    }
    cp_async_commit();
  };

  aligned_as([&](auto aligned) {
    constexpr bool kAligned = decltype(aligned)::value;
    K::template load_q<kAligned>(s_q, q, p.q.stride[2], p.queries - m0, p.head_dim);
  });
  if constexpr (Sh::kStages == 1) {
    if (n_tiles > 0) load_k(0);
    cp_async_commit();
  } else {
    cp_async_commit();
#pragma unroll
    for (int t = 0; t < Sh::kStages - 1; ++t) load_kv(t);
  }

  float slope_log2 = 0.f;
  if (fp.score.alibi != 0)
    slope_log2 =
        static_cast<const float *>(p.slopes)[b * p.slope_stride[0] + h * p.slope_stride[1]] * 1.4426950408889634f;

  float o[Sh::kMAtoms][Sh::kValueBlocks][4];
  float row_max[Sh::kMAtoms][2], row_sum[Sh::kMAtoms][2];
  zero_accumulators(o);
#pragma unroll
  for (int a = 0; a < Sh::kMAtoms; ++a) {
    row_max[a][0] = row_max[a][1] = -INFINITY;
    row_sum[a][0] = row_sum[a][1] = 0.f;
  }

  for (int64_t t = 0; t < n_tiles; ++t) {
    if constexpr (Sh::kStages == 1) {
      // K(t) (and Q) have landed and every warp is done with V(t - 1): V(t)
      // goes into its slot under this tile's S and softmax.
      cp_async_wait<0>();
      __syncthreads();
      load_v(t);
      cp_async_commit();
      if constexpr (K::kSplitsLandedTiles) {
        if (t == 0) K::split_q(s_q);
        K::split_k(slot(t));
        __syncthreads();
      }
    } else {
      // Tile t (and Q) have landed, and every warp is done with tile t - 1,
      // whose slot the next copy refills.
      cp_async_wait<Sh::kStages - 2>();
      __syncthreads();
      load_kv(t + Sh::kStages - 1);
      if constexpr (K::kSplitsLandedTiles) {
        if (t == 0) K::split_q(s_q);
        K::split_k(slot(t));
        K::split_v(slot(t) + Sh::kKTileBytes);
        __syncthreads();
      }
    }
    const int64_t n0 = (key_tiles.begin + t) * Sh::kBlockN;

    float s[Sh::kMAtoms][Sh::kKeyBlocks][4];
    K::qk(s, s_q, slot(t));
    if (fp.score.transformed)
      transform_scores<Sh::kMAtoms, Sh::kKeyBlocks, Sh::kWarpRows>(s, fp.score, slope_log2, m0, n0);
    if (!common_keys.hold(n0, Sh::kBlockN))
      mask_scores<Sh::kMAtoms, Sh::kKeyBlocks, Sh::kWarpRows, true>(s, fp.score.visible, m0, n0);
    constexpr int kSlack = Sh::kCfg.rescale_slack;
    constexpr bool kExpsInPv = Sh::kCfg.exponentials == SdpaTcExponentials::kInPv;
    float correction[Sh::kMAtoms][2], base[Sh::kMAtoms][2];
    if constexpr (kExpsInPv)
      softmax_maxima<Sh::kMAtoms, Sh::kKeyBlocks, kSlack>(s, row_max, fp.score.mul, base, correction);
    else
      softmax_probabilities<Sh::kMAtoms, Sh::kKeyBlocks, kSlack>(s, row_max, row_sum, fp.score.mul, correction);
    if (rescale_owed<kSlack>(correction)) rescale_rows(o, correction);
    if constexpr (Sh::kStages == 1) {
      // V(t) has landed and every warp is done with K(t): K(t + 1) goes into
      // its slot under P V.
      cp_async_wait<0>();
      __syncthreads();
      if (t + 1 < n_tiles) load_k(t + 1);
      cp_async_commit();
      if constexpr (K::kSplitsLandedTiles) {
        K::split_v(slot(t) + Sh::kKTileBytes);
        __syncthreads();
      }
    }
    if constexpr (Sh::kCfg.exponentials == SdpaTcExponentials::kInPv) {
      K::pv_exponentiating(o, s, slot(t) + Sh::kKTileBytes, base, fp.score.mul);
      softmax_row_sums(s, row_sum, correction);
    } else {
      K::pv(o, s, slot(t) + Sh::kKTileBytes);
    }
  }
  // With no key tile the Q copies were never waited for.
  cp_async_wait<0>();
  K::store_out(p, fp, o, row_max, row_sum, b, h, m0, s_q);
}

template <class K, bool Aligned>
__global__ void __launch_bounds__(K::Shape::kThreads, K::Shape::kCfg.min_blocks)
    forward_kernel(const SdpaProblem p, const ForwardParams fp) {
  extern __shared__ __align__(128) unsigned char smem[];
  const typename K::Smem s_q = K::smem_at(smem), s_kv = K::smem_at(smem + K::Shape::kQTileBytes);
  for (int64_t tile = blockIdx.x; tile < fp.tiles; tile += gridDim.x) {
    forward_tile<K, Aligned>(p, fp, tile, s_q, s_kv);
    __syncthreads();  // every warp is done with Q and the ring before the next tile's copies refill them
  }
}

// The launch of kernel K for p; smem: its blocks' dynamic shared memory.
template <class K>
int launch_forward(const SdpaProblem &p, size_t smem, cudaStream_t stream) {
  const ForwardParams fp = forward_params(p, K::Shape::kCfg, sizeof(typename K::Elem));
  if constexpr (K::Shape::kCfg.aligned_at_run_time)
    return launch_forward(forward_kernel<K, true>, K::Shape::kThreads, smem, p, fp, stream);
  else
    return launch_forward(fp.aligned ? forward_kernel<K, true> : forward_kernel<K, false>, K::Shape::kThreads, smem,
                          p, fp, stream);
}

}  // namespace baracuda::kernels::sdpa_tc
