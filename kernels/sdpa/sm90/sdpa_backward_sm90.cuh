// The Hopper attention backward for f16 / bf16 (sm_90a): FlashAttention-2's
// backward on warpgroup MMAs. A block owns one key tile (block_n keys, 64
// per consumer warpgroup) of one (b, kv head), K and V resident in shared
// memory, dK and dV accumulated in the consumers' registers, and walks the
// query tiles of every query head that sees those keys. One producer thread
// brings each step's Q and dO tiles by TMA into a ring of slots, a producer
// warp the rows' lse and delta; each slot completes on its "full" mbarrier
// and goes back through its "empty" one. With keys as wgmma's M, a consumer
// warpgroup computes
//   S^T = K Q^T and dP^T = V dO^T   (SS, both operands K-major),
//   P^T and dS^T in registers        (P^T under dP^T's products where the
//                                     tile needs no mask; masks, softcap
//                                     and ALiBi: sdpa_backward_kernel.cuh's
//                                     score code),
//   dV += P^T dO and dK += dS^T Q   (RS, dO and Q N-major; dK issued after
//                                     dQ, to run while dQ goes out),
//   dQ = dS K                        (SS, dS^T stored transposed by stmatrix
//                                     into one of two buffers, both groups'
//                                     halves met at a named barrier)
// and stages dQ in shared memory, which a producer warp adds into the f32
// accumulator of the workspace by TMA reductions (in the deterministic mode
// in a fixed order of key tiles); a later pass converts it. Past 128
// columns (the shared-key tile, shape.h) the consumers stage dQ in the Q/dO
// slot of the step, in their own columns, once no product reads them.
// Instantiated per dtype and head-size tile by
// sdpa_backward_sm90_<dtype>_d<tile>.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "sdpa/sdpa_backward_band.h"
#include "sdpa/sdpa_backward_kernel.cuh"
#include "sdpa/sdpa_problem.h"
#include "sdpa/sm90/sdpa_backward_sm90_params.cuh"
#include "sdpa/sm90/sdpa_backward_sm90_shape.h"
#include "sdpa/sm90/sm90_async_copy.cuh"
#include "sdpa/sm90/sm90_wgmma.cuh"

namespace baracuda::kernels::sm90 {

template <int HeadTile>
struct BackwardTiles {
  static constexpr SdpaSm90BackwardShape kShape = sdpa_sm90_backward_shape(HeadTile);
  static constexpr int kHeadTile = HeadTile;
  static constexpr int kBlockN = kShape.block_n, kBlockM = kShape.block_m, kStages = kShape.stages;
  static constexpr int kSlabs = kShape.slabs, kConsumers = kShape.consumers(), kThreads = kShape.threads();
  static constexpr bool kSharedKeys = kShape.shared_keys();
  static constexpr int kConsumerKeys = 64;           // wgmma's M
  static constexpr int kQueryBlocks = kBlockM / 8;   // 8-query column blocks of S^T
  static constexpr int kKvColumns = kShape.kv_columns();  // of a consumer's dK and dV
  static constexpr int kHeadBlocks = kKvColumns / 8;      // 8-column blocks of a consumer's dK and dV
  static constexpr int kDqColumnGroups = kShape.dq_column_groups();
  static constexpr int kDqColumns = kShape.dq_columns();  // of one consumer
  static constexpr uint32_t kKvSlabBytes = kBlockN * 128, kKvBytes = kKvSlabBytes * kSlabs;
  static constexpr uint32_t kQSlabBytes = kBlockM * 128, kQBytes = kQSlabBytes * kSlabs;
  static constexpr uint32_t kDsSlabBytes = kBlockM * 128, kDsBytes = kDsSlabBytes * (kBlockN / 64);
  static constexpr int kDsBuffers = sdpa_sm90_backward_ds_buffers(kShape);
  static constexpr uint32_t kDqSlabBytes = 64 * 128, kDqBytes = kSharedKeys ? 0 : kDqSlabBytes * (kDqColumns / 32);
  static constexpr uint32_t kRowBytes = 2 * 4 * kBlockM;  // a slot's lse and delta
  static constexpr uint32_t kAtomBytes = 1024;           // 8 rows of 128 bytes: the descriptors' stride
  static_assert(kBlockN * kShape.column_groups == kConsumers * kConsumerKeys && kDqColumns % 64 == 0 &&
                    kKvColumns % 64 == 0 && kBlockM % 64 == 0,
                "whole wgmma tiles for every consumer");
  static_assert(kShape.dq_row_groups() * kDqColumnGroups == kConsumers, "one share of dQ per consumer");
  static_assert(kDqColumns == (kSharedKeys ? 128 : 64), "dQ's products in 64-column slabs: one a step, or two");
};

// Where the block's tiles and barriers lie in shared memory: base, their
// 1024-aligned shared-window address; data, the same place as a pointer.
template <class Ti>
struct BackwardSmem {
  uint32_t base;
  unsigned char *data;
  __device__ uint32_t k() const { return base; }
  __device__ uint32_t v() const { return base + Ti::kKvBytes; }
  __device__ uint32_t q(int stage) const { return base + 2 * Ti::kKvBytes + 2 * Ti::kQBytes * stage; }
  __device__ uint32_t dout(int stage) const { return q(stage) + Ti::kQBytes; }
  // dS of even and odd steps (buffers 0 and 1; where the consumers share
  // their keys, P's in 2 and 3): a consumer overwrites one while products
  // may still read the other.
  __device__ uint32_t ds(int buffer) const { return q(Ti::kStages) + Ti::kDsBytes * buffer; }
  __device__ uint32_t dq(int group) const { return ds(Ti::kDsBuffers) + Ti::kDqBytes * group; }
  __device__ uint32_t rows(int stage) const { return dq(Ti::kConsumers) + Ti::kRowBytes * stage; }
  __device__ float *lse(int stage) const { return reinterpret_cast<float *>(data + (rows(stage) - base)); }
  __device__ float *delta(int stage) const { return lse(stage) + Ti::kBlockM; }
  __device__ uint32_t bars() const { return rows(Ti::kStages); }
  __device__ uint32_t kv_full() const { return bars(); }
  __device__ uint32_t q_full(int stage) const { return bars() + 8 * (1 + stage); }
  __device__ uint32_t q_empty(int stage) const { return bars() + 8 * (1 + Ti::kStages + stage); }
  // A consumer's dQ staging written (its 128 threads) and read (the writer).
  __device__ uint32_t dq_full(int group) const { return q_empty(Ti::kStages) + 8 * group; }
  __device__ uint32_t dq_empty(int group) const { return dq_full(Ti::kConsumers) + 8 * group; }
  // A consumer's dQ half staged (its 128 threads) for the writer: its
  // dq_full, or at the shared-key tile one barrier per slot and half (the
  // slot's refill waits for the writer, so a consumer arrives on one at most
  // a phase ahead of the writer's wait).
  __device__ uint32_t dq_staged(int group, int half, int stage) const {
    if constexpr (Ti::kSharedKeys) return dq_empty(Ti::kConsumers) + 8 * ((stage * 2 + half) * Ti::kConsumers + group);
    else return dq_full(group);
  }
  // The phase of dq_staged's barrier that step t completes.
  __device__ static uint32_t dq_staged_phase(int64_t t) {
    return static_cast<uint32_t>(Ti::kSharedKeys ? t / Ti::kStages : t) & 1;
  }
  // Where consumer `group` stages its dQ share's 64-column half `half` of a
  // step in `stage`: its own buffer; at the shared-key tile, which has none,
  // the slot's dO (half 0, once both groups' scores are done and the group's
  // dV products, the only others reading those columns) and Q (half 1, once
  // the group's dK products are done), in the group's columns, which are 64
  // rows of 256 bytes: 64 f32 columns.
  __device__ uint32_t dq_staging(int group, int half, int stage) const {
    if constexpr (Ti::kSharedKeys)
      return (half == 0 ? dout(stage) : q(stage)) + static_cast<uint32_t>(group) * (Ti::kKvColumns / 64) * Ti::kQSlabBytes;
    else
      return dq(group);
  }
};

__device__ __forceinline__ void store_shared_f32x2(uint32_t address, float x, float y) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(address), "f"(x), "f"(y) : "memory");
}

// S^T (a warp's accumulator: rows keys, columns the query tile's queries)
// into P^T in place, on the plain path: every pair visible, no softcap, no
// ALiBi, so P = 2^(scale log2(e) s - log2(e) lse). lse: the query tile's.
template <int Blocks>
__device__ __forceinline__ void transposed_probabilities(float (&s)[Blocks][4], const float *lse, float scale,
                                                         int lane) {
  constexpr float kLog2e = 1.4426950408889634f;
  const float scale_log2 = scale * kLog2e;
#pragma unroll
  for (int n = 0; n < Blocks; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      s[n][e] = sdpa_tc::exp2_approx(fmaf(s[n][e], scale_log2, -lse[8 * n + 2 * (lane % 4) + (e & 1)] * kLog2e));
}

// dP^T into dS^T = P^T (dP^T - delta), unscaled (the scale comes with dK and dQ).
template <int Blocks>
__device__ __forceinline__ void transposed_score_gradients(float (&dp)[Blocks][4], const float (&prob)[Blocks][4],
                                                           const float *delta, int lane) {
#pragma unroll
  for (int n = 0; n < Blocks; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) dp[n][e] = prob[n][e] * (dp[n][e] - delta[8 * n + 2 * (lane % 4) + (e & 1)]);
}

// The block's key tile and the (query head, query tile) steps it walks:
// every query tile that meets its keys, for each query head of its kv head.
struct KeyTileWork {
  int64_t b, hk, key_tile, key0;
  int64_t first_tile, per_head, steps;
  int64_t group;
  int block_m;
  __device__ int64_t head(int64_t t) const { return hk * group + t / per_head; }
  __device__ int64_t q0(int64_t t) const { return (first_tile + t % per_head) * block_m; }
};

template <class Ti>
__device__ __forceinline__ KeyTileWork key_tile_work(const SdpaProblem &p, const BackwardParams &bp,
                                                     const sdpa::Band &band) {
  KeyTileWork w;
  if (bp.turns == nullptr) {
    // The atomic mode from the grid's indices alone (through the order, a
    // few divisions, D 64 and 128 ran 2-7% slower: bench/NOTES.md, session 20).
    w.b = blockIdx.z;
    w.hk = blockIdx.y;
    w.key_tile = blockIdx.x;
  } else {
    // The deterministic mode's order takes key tiles from the last: a key
    // tile waits only for the tiles above it (sdpa::last_key_tile_of_query_tile),
    // and blocks start in index order, so the ones it waits for have started.
    const int64_t block = blockIdx.x + int64_t{gridDim.x} * (blockIdx.y + int64_t{gridDim.y} * blockIdx.z);
    const SdpaQueryTile at = sdpa_query_tile(bp.order, block);
    w.b = at.bh / gridDim.y;
    w.hk = at.bh % gridDim.y;
    w.key_tile = at.m_index;
  }
  w.key0 = w.key_tile * Ti::kBlockN;
  const sdpa::TileRange range = sdpa::query_tiles_of_key_tile(band, w.key0, Ti::kBlockN, Ti::kBlockM, p.queries);
  w.first_tile = range.first;
  w.per_head = range.last - range.first + 1;
  w.group = bp.group;
  w.steps = w.per_head > 0 ? w.per_head * bp.group : 0;
  w.block_m = Ti::kBlockM;
  return w;
}

// The ring's slot of step t and the phase its barriers complete.
template <class Ti>
__device__ __forceinline__ int slot_of(int64_t t) {
  return static_cast<int>(t % Ti::kStages);
}
template <class Ti>
__device__ __forceinline__ uint32_t phase_of(int64_t t) {
  return static_cast<uint32_t>(t / Ti::kStages) & 1;
}

// The producer's first thread: K and V once, then every step's Q and dO,
// each slot refilled once both consumers have handed it back.
template <class Ti>
__device__ __forceinline__ void produce_tiles(const BackwardParams &bp, const BackwardSmem<Ti> &sm,
                                              const KeyTileWork &w) {
  const auto head_coord = [](const AxisSteps &s, int64_t h) { return static_cast<int32_t>(h * s.head); };
  const auto batch_coord = [](const AxisSteps &s, int64_t b) { return static_cast<int32_t>(b * s.batch); };
  const int32_t key0 = static_cast<int32_t>(w.key0);
  mbarrier_arrive_expect_bytes(sm.kv_full(), 2 * Ti::kKvBytes);
#pragma unroll 1  // the producer runs on 24 registers
  for (int j = 0; j < Ti::kSlabs; ++j) {
    tma_load_4d(sm.k() + j * Ti::kKvSlabBytes, &bp.k, sm.kv_full(), 64 * j, key0, head_coord(bp.k_steps, w.hk),
                batch_coord(bp.k_steps, w.b));
    tma_load_4d(sm.v() + j * Ti::kKvSlabBytes, &bp.v, sm.kv_full(), 64 * j, key0, head_coord(bp.v_steps, w.hk),
                batch_coord(bp.v_steps, w.b));
  }
  for (int64_t t = 0; t < w.steps; ++t) {
    const int stage = slot_of<Ti>(t);
    if (t >= Ti::kStages) mbarrier_wait(sm.q_empty(stage), phase_of<Ti>(t) ^ 1);
    mbarrier_arrive_expect_bytes(sm.q_full(stage), 2 * Ti::kQBytes);
    const int64_t h = w.head(t);
    const int32_t q0 = static_cast<int32_t>(w.q0(t));
#pragma unroll 1
    for (int j = 0; j < Ti::kSlabs; ++j) {
      tma_load_4d(sm.q(stage) + j * Ti::kQSlabBytes, &bp.q, sm.q_full(stage), 64 * j, q0,
                  head_coord(bp.q_steps, h), batch_coord(bp.q_steps, w.b));
      tma_load_4d(sm.dout(stage) + j * Ti::kQSlabBytes, &bp.dout, sm.q_full(stage), 64 * j, q0,
                  head_coord(bp.dout_steps, h), batch_coord(bp.dout_steps, w.b));
    }
  }
}

// The producer's second warp: every step's lse and delta rows (0 past the
// problem's queries), each lane arriving on the slot's full barrier.
template <class Ti>
__device__ __forceinline__ void produce_rows(const SdpaProblem &p, const BackwardParams &bp,
                                             const BackwardSmem<Ti> &sm, const KeyTileWork &w, int lane) {
  for (int64_t t = 0; t < w.steps; ++t) {
    const int stage = slot_of<Ti>(t);
    if (t >= Ti::kStages) mbarrier_wait(sm.q_empty(stage), phase_of<Ti>(t) ^ 1);
    const int64_t h = w.head(t), q0 = w.q0(t);
    const float *lse = static_cast<const float *>(p.lse) + w.b * p.lse_stride[0] + h * p.lse_stride[1];
    const float *delta = bp.delta + (w.b * p.heads_q + h) * p.queries;
#pragma unroll 1
    for (int r = lane; r < Ti::kBlockM; r += 32) {
      const int64_t i = q0 + r;
      const bool in = i < p.queries;
      sm.lse(stage)[r] = in ? lse[i * p.lse_stride[2]] : 0.f;
      sm.delta(stage)[r] = in ? delta[i] : 0.f;
    }
    mbarrier_arrive(sm.q_full(stage));
  }
}

// Consumer `group`'s share of dQ (shape.h): its first row and column.
template <class Ti>
__device__ __forceinline__ int dq_col0(int group) {
  return group % Ti::kDqColumnGroups * Ti::kDqColumns;
}
template <class Ti>
__device__ __forceinline__ int dq_row0(int group) {
  return group / Ti::kDqColumnGroups * 64;
}

// The deterministic mode's order: the key tiles of a query tile add their
// dQ parts one after the other, in descending key-tile order (the turn
// counter of (b, h, query tile) counts the key tiles done). Returns the
// counter once this block's turn has come.
template <class Ti>
__device__ __forceinline__ int *wait_for_turn(const SdpaProblem &p, const BackwardParams &bp, const sdpa::Band &band,
                                              const KeyTileWork &w, int64_t h, int64_t q0) {
  const int64_t q_tile = q0 / Ti::kBlockM, q_tiles = (p.queries + Ti::kBlockM - 1) / Ti::kBlockM;
  int *turn = bp.turns + (w.b * p.heads_q + h) * q_tiles + q_tile;
  const int64_t rank =
      sdpa::last_key_tile_of_query_tile(band, q_tile, Ti::kBlockN, Ti::kBlockM, p.queries, p.keys) - w.key_tile;
  while (sdpa::load_acquire(turn) < rank) __nanosleep(32);
  fence_async_global();  // the earlier turns' additions come before this block's
  return turn;
}

// The producer's third warp: every step's dQ parts into the f32 accumulator,
// one TMA reduction per 32-column slab of each consumer's staged 64-column
// halves (one a step, or two at the shared-key tile), once the consumer has
// written it; the staging goes back once read or, in the deterministic
// mode, once the additions have completed (the strong wait), after which
// the turn passes on. At the shared-key tile the staging is the slot's Q and
// dO, which this warp hands back (its arrival on the slot's empty barrier).
template <class Ti>
__device__ __forceinline__ void produce_dq_additions(const SdpaProblem &p, const BackwardParams &bp,
                                                     const BackwardSmem<Ti> &sm, const KeyTileWork &w,
                                                     const sdpa::Band &band) {
  constexpr int kHalves = Ti::kDqColumns / 64;
  for (int64_t t = 0; t < w.steps; ++t) {
    const int64_t h = w.head(t), q0 = w.q0(t);
    const int stage = slot_of<Ti>(t);
    int *turn = bp.turns != nullptr ? wait_for_turn<Ti>(p, bp, band, w, h, q0) : nullptr;
#pragma unroll 1
    for (int half = 0; half < kHalves; ++half)
#pragma unroll 1
      for (int group = 0; group < Ti::kConsumers; ++group) {
        mbarrier_wait(sm.dq_staged(group, half, stage), BackwardSmem<Ti>::dq_staged_phase(t));
        const int col0 = dq_col0<Ti>(group) + 64 * half;
#pragma unroll 1
        for (int slab = 0; slab < 2 && col0 + 32 * slab < p.head_dim; ++slab)
          tma_reduce_add_4d(&bp.dq_map, sm.dq_staging(group, half, stage) + slab * Ti::kDqSlabBytes, col0 + 32 * slab,
                            static_cast<int32_t>(q0 + dq_row0<Ti>(group)), static_cast<int32_t>(h),
                            static_cast<int32_t>(w.b));
      }
    bulk_commit();
    if (turn != nullptr) {
      bulk_wait();
      fence_async_global();
      __threadfence();
      atomicAdd(turn, 1);
    } else {
      bulk_wait_read();
    }
    if constexpr (Ti::kSharedKeys) {
      mbarrier_arrive(sm.q_empty(stage));
    } else {
#pragma unroll 1
      for (int group = 0; group < Ti::kConsumers; ++group) mbarrier_arrive(sm.dq_empty(group));
    }
  }
  bulk_wait();  // the accumulator's additions complete before the block ends
}

// A consumer warpgroup: its 64 keys' dK and dV over every step, and each
// step's dQ part.
template <class T, class Ti>
struct BackwardConsumer {
  const SdpaProblem &p;
  const BackwardParams &bp;
  const BackwardSmem<Ti> &sm;
  const KeyTileWork &w;
  const sdpa::Band &band;
  int group;  // which consumer warpgroup, 0 to kConsumers - 1

  __device__ int warp() const { return static_cast<int>(threadIdx.x) / 32 % 4; }
  __device__ int lane() const { return static_cast<int>(threadIdx.x) % 32; }

  // acc = A B^T over 16 kSteps columns, A this group's 64 rows of a key
  // tile (K or V), B a query tile (Q or dO) of the same columns.
  __device__ void issue_transposed_scores(float (&acc)[Ti::kQueryBlocks][4], uint32_t keys, uint32_t queries) const {
    const uint64_t a0 = opaque(sw128_descriptor(keys, 16, Ti::kAtomBytes));
    const uint64_t b0 = opaque(sw128_descriptor(queries, 16, Ti::kAtomBytes));
#pragma unroll
    for (int kk = 0; kk < Ti::kHeadTile / 16; ++kk) {
      // 16 columns are 32 bytes of a slab's 128-byte rows.
      const uint32_t slab = kk / 4, within = (kk % 4) * 32;
      wgmma_ss<T, Ti::kBlockM, 0>(acc, sw128_advance(a0, slab * Ti::kKvSlabBytes + within),
                                  sw128_advance(b0, slab * Ti::kQSlabBytes + within), kk > 0);
    }
  }

  // The group's first key of the block and first column of dK and dV.
  __device__ int key_offset() const { return Ti::kSharedKeys ? 0 : group * Ti::kConsumerKeys; }
  __device__ int kv_col0() const { return Ti::kSharedKeys ? group * Ti::kKvColumns : 0; }

  // acc += A B, A from registers (64 keys by the query tile), B the group's
  // columns of a query tile, N-major: 16 queries are 16 rows of every slab.
  __device__ void issue_key_gradient(float (&acc)[Ti::kHeadBlocks][4], const uint32_t (&a)[Ti::kBlockM / 16][4],
                                     uint32_t queries) const {
    const uint64_t b0 = opaque(
        sw128_descriptor(queries + kv_col0() / 64 * Ti::kQSlabBytes, Ti::kQSlabBytes, Ti::kAtomBytes));
#pragma unroll
    for (int kk = 0; kk < Ti::kBlockM / 16; ++kk)
      wgmma_rs<T, Ti::kKvColumns, 1>(acc, a[kk], sw128_advance(b0, kk * 16 * 128), 1);
  }

  // dS (queries by keys, K-major) into shared memory from this group's dS^T
  // fragments: matrix m of fragment kk is query block 2 kk + m / 2 by key
  // block 2 warp + m % 2 of the group's slab.
  __device__ void store_ds(const uint32_t (&da)[Ti::kBlockM / 16][4], int buffer) const {
    const int m = lane() / 8;
    // Every fragment's query % 8 is the lane's: one swizzled row offset serves them all.
    const uint32_t row = opaque(static_cast<uint32_t>(8 * (m / 2) + lane() % 8));
    const uint32_t start = sm.ds(buffer) + static_cast<uint32_t>(key_offset() / 64) * Ti::kDsSlabBytes + row * 128 +
                           (((2 * warp() + m % 2) ^ (row % 8)) * 16);
#pragma unroll
    for (int kk = 0; kk < Ti::kBlockM / 16; ++kk) stmatrix_x4_trans(start + 16 * kk * 128, da[kk]);
  }

  // The shared-key tile's half of S^T (or dP^T): this group's 64 keys by
  // its kSplitQueries queries of the step (rows `queries` on of the slot's tile).
  static constexpr int kSplitQueries = Ti::kBlockM / 2;
  __device__ void issue_split_scores(float (&acc)[kSplitQueries / 8][4], uint32_t keys, uint32_t queries) const {
    const uint64_t a0 = opaque(sw128_descriptor(keys, 16, Ti::kAtomBytes));
    const uint64_t b0 = opaque(sw128_descriptor(queries, 16, Ti::kAtomBytes));
#pragma unroll
    for (int kk = 0; kk < Ti::kHeadTile / 16; ++kk) {
      const uint32_t slab = kk / 4, within = (kk % 4) * 32;
      wgmma_ss_n32<T>(acc, sw128_advance(a0, slab * Ti::kKvSlabBytes + within),
                      sw128_advance(b0, slab * Ti::kQSlabBytes + within), kk > 0);
    }
  }

  // The shared-key tile's acc += A B: A the block's 64 keys by the step's
  // queries, read as P^T or dS^T from a P or dS buffer (queries by keys:
  // MN-major for A), B the group's columns of a query tile, N-major.
  __device__ void issue_split_key_gradient(float (&acc)[Ti::kHeadBlocks][4], uint32_t buffer, uint32_t queries) const {
    static_assert(Ti::kKvColumns == 128 && Ti::kBlockN == 64, "a consumer's 128 columns of 64 keys");
    const uint64_t a0 = opaque(sw128_descriptor(buffer, Ti::kDsSlabBytes, Ti::kAtomBytes));
    const uint64_t b0 = opaque(
        sw128_descriptor(queries + kv_col0() / 64 * Ti::kQSlabBytes, Ti::kQSlabBytes, Ti::kAtomBytes));
#pragma unroll
    for (int kk = 0; kk < Ti::kBlockM / 16; ++kk)
      wgmma_ss_n128_ta<T, 1>(acc, sw128_advance(a0, kk * 16 * 128), sw128_advance(b0, kk * 16 * 128), 1);
  }

  // The shared-key tile's P or dS (queries by keys) from this group's
  // fragments of its queries from query0 on, as store_ds lays dS out.
  __device__ void store_split(const uint32_t (&da)[kSplitQueries / 16][4], uint32_t buffer, int query0) const {
    const int m = lane() / 8;
    const uint32_t row = opaque(static_cast<uint32_t>(8 * (m / 2) + lane() % 8));
    const uint32_t start = buffer + static_cast<uint32_t>(query0 + row) * 128 + (((2 * warp() + m % 2) ^ (row % 8)) * 16);
#pragma unroll
    for (int kk = 0; kk < kSplitQueries / 16; ++kk) stmatrix_x4_trans(start + 16 * kk * 128, da[kk]);
  }

  // dq = dS K over this group's share: its rows, 64 of its columns from
  // col0 (of the share), every key.
  __device__ void issue_query_gradient(float (&dq)[8][4], int buffer, int col0) const {
    const uint32_t columns = sm.k() + (dq_col0<Ti>(group) + col0) / 64 * Ti::kKvSlabBytes;
    const uint64_t a0 = opaque(sw128_descriptor(sm.ds(buffer) + dq_row0<Ti>(group) * 128, 16, Ti::kAtomBytes));
    const uint64_t b0 = opaque(sw128_descriptor(columns, Ti::kKvSlabBytes, Ti::kAtomBytes));
#pragma unroll
    for (int step = 0; step < Ti::kBlockN / 16; ++step)
      wgmma_ss<T, 64, 1>(dq, sw128_advance(a0, (step / 4) * Ti::kDsSlabBytes + (step % 4) * 32),
                         sw128_advance(b0, step * 16 * 128), step > 0);
  }

  // dq's products over its first 64 columns, then dK's, waiting for dq's
  // alone so that dK's run while dq goes out. The register fences keep ptxas
  // from moving the accumulators (and dV's, and P^T's operands) across the
  // asynchronous products.
  __device__ void issue_query_then_key_gradients(float (&dq)[8][4], float (&dk)[Ti::kHeadBlocks][4],
                                                 float (&dv)[Ti::kHeadBlocks][4],
                                                 uint32_t (&da)[Ti::kBlockM / 16][4],
                                                 uint32_t (&pa)[Ti::kBlockM / 16][4], int buffer,
                                                 uint32_t queries) const {
    fence_registers(dk);
    fence_registers(da);
    wgmma_fence();
    issue_query_gradient(dq, buffer, 0);
    wgmma_commit();
    issue_key_gradient(dk, da, queries);
    wgmma_commit();
    wgmma_wait<1>();
    fence_registers(dq);
    fence_registers(dv);
    fence_registers(pa);
  }

  // dq (scaled; 64 columns) into the staging slabs at `staging` (32 columns
  // of 128-byte rows, swizzled as the TMA reads them), then handed to the
  // writer (produce_dq_additions).
  __device__ void stage_query_gradient(const float (&dq)[8][4], uint32_t staging, uint32_t staged, float scale) const {
    // Rows r and r + 8 share r % 8, so their swizzle; the 16-byte chunk of
    // column block db is 2 (db % 4) + lane % 4 / 2, swizzled by XOR with r % 8.
    const uint32_t row = opaque(static_cast<uint32_t>(16 * warp() + lane() / 4));
    const uint32_t start = staging + row * 128 + (lane() % 2) * 8;
#pragma unroll
    for (int db = 0; db < 8; ++db) {
      const uint32_t chunk = (2 * (db % 4) + (lane() % 4) / 2) ^ (row % 8);
#pragma unroll
      for (int hr = 0; hr < 2; ++hr)
        store_shared_f32x2(start + (db / 4) * Ti::kDqSlabBytes + hr * 8 * 128 + chunk * 16, scale * dq[db][2 * hr],
                           scale * dq[db][2 * hr + 1]);
    }
    fence_async_shared();
    mbarrier_arrive(staged);
  }

  // The problem's score settings, read once into 32-bit registers. An FP64
  // instruction in the step loop waits for the tensor pipe, which FP64
  // shares on sm_90: ptxas had rematerialized `softcap > 0` there as a DSETP
  // between dP^T's wgmmas, 7.5% of the D 128 kernel's stall samples (ncu,
  // bench/NOTES.md, session 22); the opaque copy cannot be recomputed.
  struct ScoreSettings {
    float scale, softcap;
    bool full;  // softcap or ALiBi: every tile takes the score code's full path
  };
  __device__ ScoreSettings score_settings() const {
    return {static_cast<float>(p.scale), static_cast<float>(p.softcap),
            opaque(static_cast<uint32_t>(p.softcap > 0 || p.alibi != 0)) != 0};
  }

  // P^T and dS^T of a step's S^T and dP^T products (just issued, two commit
  // groups), as A fragments: lse and delta the rows of the step's queries
  // from q0, key0 the warp's first key.
  template <int Blocks>
  __device__ void probabilities_and_gradients(float (&s)[Blocks][4], float (&dp)[Blocks][4],
                                              uint32_t (&pa)[Blocks / 2][4], uint32_t (&da)[Blocks / 2][4],
                                              const float *lse, const float *delta, int64_t h, int64_t q0,
                                              int64_t key0, bool plain, const ScoreSettings &st) const {
    const float scale = st.scale;
    if (!plain) {
      // Masks, softcap's slope, ALiBi: sdpa_backward_kernel.cuh's pipeline,
      // S^T and dP^T at once.
      wgmma_wait<0>();
      fence_registers(s);
      fence_registers(dp);
      sdpa::HeadContext hc;
      hc.scale = scale;
      hc.softcap = st.softcap;
      hc.slope = p.alibi != 0
                     ? static_cast<const float *>(p.slopes)[w.b * p.slope_stride[0] + h * p.slope_stride[1]]
                     : 0.f;
      if (st.full)
        sdpa::scores_to_gradients<sdpa::ScoreKind::kFull>(s, dp, lse, delta, p, band, hc, key0, q0, lane());
      else
        sdpa::scores_to_gradients<sdpa::ScoreKind::kMasked>(s, dp, lse, delta, p, band, hc, key0, q0, lane());
      accumulator_to_a_fragments<T>(pa, s);
      accumulator_to_a_fragments<T>(da, dp);
    } else {
      // The plain path: P^T while dP^T's products run. (dS^T under dV's
      // products would keep P^T, dP^T and dV's registers pinned at once:
      // too many, and ptxas then serializes every wgmma.)
      wgmma_wait<1>();
      fence_registers(s);
      transposed_probabilities(s, lse, scale, lane());
      accumulator_to_a_fragments<T>(pa, s);
      wgmma_wait<0>();
      fence_registers(dp);
      transposed_score_gradients(dp, s, delta, lane());
      accumulator_to_a_fragments<T>(da, dp);
    }
  }

  // Whether a step's tile takes the plain path: every pair visible, no
  // softcap, no ALiBi.
  __device__ bool plain_tile(int64_t q0, const ScoreSettings &st) const {
    return !st.full &&
           sdpa::tile_fully_visible(band, q0, Ti::kBlockM, w.key0, Ti::kBlockN, p.queries, p.keys);
  }

  // A step of the shared-key tile: each group computes S^T and dP^T of the
  // block's 64 keys by its half of the step's queries (each product once),
  // stores its halves of P and dS (queries by keys) beside the other's, and
  // once both are there takes its columns of dV += P^T dO and dK += dS^T Q
  // (P^T and dS^T read from shared memory) and of dQ = dS K, in two 64-column
  // halves, the first before dK's products so that it is staged while they
  // run, each half staged in the slot's dO or Q (BackwardSmem::dq_staging)
  // for the writer.
  __device__ void split_step(float (&dk)[Ti::kHeadBlocks][4], float (&dv)[Ti::kHeadBlocks][4], int64_t t,
                             int stage, int64_t h, int64_t q0, const ScoreSettings &st) const {
    const int query0 = group * kSplitQueries;
    float s[kSplitQueries / 8][4], dp[kSplitQueries / 8][4];
    wgmma_fence();
    issue_split_scores(s, sm.k(), sm.q(stage) + static_cast<uint32_t>(query0) * 128);
    wgmma_commit();
    issue_split_scores(dp, sm.v(), sm.dout(stage) + static_cast<uint32_t>(query0) * 128);
    wgmma_commit();
    uint32_t pa[kSplitQueries / 16][4], da[kSplitQueries / 16][4];
    probabilities_and_gradients(s, dp, pa, da, sm.lse(stage) + query0, sm.delta(stage) + query0, h, q0 + query0,
                                w.key0 + 16 * warp(), plain_tile(q0, st), st);
    // Buffers t % 2 (dS) and 2 + t % 2 (P): both groups' products of step
    // t - 2, the last to read them, are done (each waited for its own before
    // step t - 1's meeting below).
    const int buffer = static_cast<int>(t & 1);
    store_split(pa, sm.ds(2 + buffer), query0);
    store_split(da, sm.ds(buffer), query0);
    fence_async_shared();
    // Both halves of P and dS stored; both groups' S^T and dP^T products,
    // the only ones reading the other group's columns of Q and dO, done.
    named_barrier_sync(2, 128 * Ti::kConsumers);
    const float scale = st.scale;
    float dq[8][4];
    fence_registers(dv);
    fence_registers(dk);
    wgmma_fence();
    issue_split_key_gradient(dv, sm.ds(2 + buffer), sm.dout(stage));
    wgmma_commit();
    issue_query_gradient(dq, buffer, 0);
    wgmma_commit();
    issue_split_key_gradient(dk, sm.ds(buffer), sm.q(stage));
    wgmma_commit();
    wgmma_wait<1>();  // dV's and dQ's
    fence_registers(dq);
    fence_registers(dv);
    stage_query_gradient(dq, sm.dq_staging(group, 0, stage), sm.dq_staged(group, 0, stage), scale);
    wgmma_wait<0>();
    fence_registers(dk);
    // The group is done with the slot once it has staged the second half
    // there; the writer hands the slot back once it has read it.
    mbarrier_arrive(sm.q_empty(stage));
    wgmma_fence();
    issue_query_gradient(dq, buffer, 64);
    wgmma_commit();
    wgmma_wait<0>();
    fence_registers(dq);
    stage_query_gradient(dq, sm.dq_staging(group, 1, stage), sm.dq_staged(group, 1, stage), scale);
  }

  // One key tile's walk over its steps (w.steps query tiles of the kv
  // head's query heads): each step's products, dK and dV accumulated in
  // dk and dv. Its steps take ring positions ring0, ring0 + 1, ...: the slot,
  // the phases and the dS buffer of a step follow the ring position, its
  // query head and tile the step within the tile.
  __device__ void walk_query_tiles(float (&dk)[Ti::kHeadBlocks][4], float (&dv)[Ti::kHeadBlocks][4],
                                   const ScoreSettings &st, int64_t ring0) const {
    const uint32_t k_rows = sm.k() + static_cast<uint32_t>(key_offset()) * 128;
    const uint32_t v_rows = sm.v() + static_cast<uint32_t>(key_offset()) * 128;
    const int64_t warp_key0 = w.key0 + key_offset() + 16 * warp();
    const float scale = st.scale;
    for (int64_t i = 0; i < w.steps; ++i) {
      const int64_t t = ring0 + i;
      const int stage = slot_of<Ti>(t);
      const int64_t h = w.head(i), q0 = w.q0(i);
      mbarrier_wait(sm.q_full(stage), phase_of<Ti>(t));
      if constexpr (Ti::kSharedKeys) {
        split_step(dk, dv, t, stage, h, q0, st);
        continue;
      }
      float s[Ti::kQueryBlocks][4], dp[Ti::kQueryBlocks][4];
      wgmma_fence();
      issue_transposed_scores(s, k_rows, sm.q(stage));
      wgmma_commit();
      issue_transposed_scores(dp, v_rows, sm.dout(stage));
      wgmma_commit();
      const float *lse = sm.lse(stage), *delta = sm.delta(stage);
      uint32_t pa[Ti::kBlockM / 16][4], da[Ti::kBlockM / 16][4];
      probabilities_and_gradients(s, dp, pa, da, lse, delta, h, q0, warp_key0, plain_tile(q0, st), st);
      fence_registers(dv);
      fence_registers(pa);
      wgmma_fence();
      issue_key_gradient(dv, pa, sm.dout(stage));
      wgmma_commit();

      if constexpr (!Ti::kSharedKeys) {
        // Both groups' dQ products of step t - 2, the last to read this buffer,
        // are done: each waited for its own before the last barrier below.
        const int buffer = static_cast<int>(t & 1);
        store_ds(da, buffer);
        fence_async_shared();
        named_barrier_sync(2, 128 * Ti::kConsumers);  // both halves of dS written
        // dQ before dK, so that dK's products run while dQ goes out.
        float dq[Ti::kDqColumns / 8][4];
        issue_query_then_key_gradients(dq, dk, dv, da, pa, buffer, sm.q(stage));
        if (t > 0) mbarrier_wait(sm.dq_empty(group), static_cast<uint32_t>(t - 1) & 1);  // the writer read the last
        stage_query_gradient(dq, sm.dq_staging(group, 0, stage), sm.dq_staged(group, 0, stage), scale);
        wgmma_wait<0>();
        fence_registers(dk);
        fence_registers(da);
        mbarrier_arrive(sm.q_empty(stage));  // dK's products have read Q
      }
    }
  }

  __device__ void run() const {
    float dk[Ti::kHeadBlocks][4] = {}, dv[Ti::kHeadBlocks][4] = {};
    const ScoreSettings st = score_settings();
    mbarrier_wait(sm.kv_full(), 0);  // also with no step: K and V's copies must not be in flight at exit
    walk_query_tiles(dk, dv, st, 0);
    store_key_gradients(dk, dv, st.scale);
  }

  // dK (scaled) and dV of the group's keys; keys no query sees get zeros.
  // Where every row of both views starts on 16 bytes, through shared memory
  // (K's and V's tiles, once no product reads them) in 16-byte chunks, a
  // warp's stores covering whole rows; else from the registers, a lane's two
  // adjacent columns as one 4-byte store where every row starts on 4 bytes
  // (D and Dv are even), else one by one.
  __device__ void store_key_gradients(const float (&dk)[Ti::kHeadBlocks][4], const float (&dv)[Ti::kHeadBlocks][4],
                                      float scale) const {
    T *dk_out = static_cast<T *>(p.dk.data) + w.b * p.dk.stride[0] + w.hk * p.dk.stride[1];
    T *dv_out = static_cast<T *>(p.dv.data) + w.b * p.dv.stride[0] + w.hk * p.dv.stride[1];
    if (rows_take_chunks(p.dk) && rows_take_chunks(p.dv)) {
      named_barrier_sync(2, 128 * Ti::kConsumers);  // every product that reads K or V is done
      stage_key_rows(sm.k(), dk, scale);
      stage_key_rows(sm.v(), dv, 1.f);
      __syncwarp();  // a warp copies out the rows it staged
      copy_key_rows(sm.k(), dk_out, p.dk.stride[2], p.head_dim);
      copy_key_rows(sm.v(), dv_out, p.dv.stride[2], p.head_dim_v);
      return;
    }
    const bool pairs = rows_hold_pairs(p.dk) && rows_hold_pairs(p.dv);
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int64_t j = w.key0 + key_offset() + 16 * warp() + lane() / 4 + 8 * hr;
      if (j >= p.keys) continue;
#pragma unroll
      for (int db = 0; db < Ti::kHeadBlocks; ++db) {
        const int col = kv_col0() + 8 * db + 2 * (lane() % 4);
        T *dk_at = dk_out + j * p.dk.stride[2] + col, *dv_at = dv_out + j * p.dv.stride[2] + col;
        const float k0 = scale * dk[db][2 * hr], k1 = scale * dk[db][2 * hr + 1];
        if (pairs) {
          if (col < p.head_dim) *reinterpret_cast<uint32_t *>(dk_at) = sdpa_tc::pack2<T>(k0, k1);
          if (col < p.head_dim_v)
            *reinterpret_cast<uint32_t *>(dv_at) = sdpa_tc::pack2<T>(dv[db][2 * hr], dv[db][2 * hr + 1]);
          continue;
        }
        if (col < p.head_dim) {
          dk_at[0] = static_cast<T>(k0);
          dk_at[1] = static_cast<T>(k1);
        }
        if (col < p.head_dim_v) {
          dv_at[0] = static_cast<T>(dv[db][2 * hr]);
          dv_at[1] = static_cast<T>(dv[db][2 * hr + 1]);
        }
      }
    }
  }

  // Whether every row of t (its batch, head and key strides even, its data
  // on 4 bytes) starts on 4 bytes.
  __device__ static bool rows_hold_pairs(const SdpaOutTensor &t) {
    return reinterpret_cast<uintptr_t>(t.data) % 4 == 0 && (t.stride[0] | t.stride[1] | t.stride[2]) % 2 == 0;
  }
  // Whether every row of t starts on 16 bytes.
  __device__ static bool rows_take_chunks(const SdpaOutTensor &t) {
    return reinterpret_cast<uintptr_t>(t.data) % 16 == 0 && (t.stride[0] | t.stride[1] | t.stride[2]) % 8 == 0;
  }

  // Where column col of the group's key row `row` lies in a K or V tile at
  // base: 64-column slabs of 128-byte rows, 16-byte chunks swizzled as TMA
  // writes them.
  __device__ static uint32_t tile_element(uint32_t base, int row, int col) {
    return base + static_cast<uint32_t>(col / 64) * Ti::kKvSlabBytes + static_cast<uint32_t>(row) * 128 +
           ((((col % 64) / 8) ^ (row % 8)) * 16) + (col % 8) * 2;
  }

  // acc (scaled, rounded to T) into the group's rows and columns of the tile at base.
  __device__ void stage_key_rows(uint32_t base, const float (&acc)[Ti::kHeadBlocks][4], float scale) const {
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int row = key_offset() + 16 * warp() + lane() / 4 + 8 * hr;
#pragma unroll
      for (int db = 0; db < Ti::kHeadBlocks; ++db) {
        const uint32_t pair = sdpa_tc::pack2<T>(scale * acc[db][2 * hr], scale * acc[db][2 * hr + 1]);
        asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(tile_element(base, row, kv_col0() + 8 * db + 2 * (lane() % 4))),
                     "r"(pair)
                     : "memory");
      }
    }
  }

  // The warp's 16 staged rows of the tile at base out to `out` (rows
  // row_stride apart, the first `cols` columns), consecutive lanes on
  // consecutive 16-byte chunks; keys past the problem's dropped.
  __device__ void copy_key_rows(uint32_t base, T *out, int64_t row_stride, int cols) const {
    constexpr int kChunks = Ti::kKvColumns / 8;  // of a row
#pragma unroll
    for (int i = lane(); i < 16 * kChunks; i += 32) {
      const int row = key_offset() + 16 * warp() + i / kChunks, col = kv_col0() + 8 * (i % kChunks);
      const int64_t j = w.key0 + row;
      if (j >= p.keys || col >= cols) continue;
      uint4 chunk;
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(chunk.x), "=r"(chunk.y), "=r"(chunk.z), "=r"(chunk.w)
                   : "r"(tile_element(base, row, col))
                   : "memory");
      *reinterpret_cast<uint4 *>(out + j * row_stride + col) = chunk;
    }
  }
};

template <class T, class Ti>
__global__ void __launch_bounds__(Ti::kThreads, 1)
    backward_kernel(const SdpaProblem p, const __grid_constant__ BackwardParams bp) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const uint32_t raw = shared_address(smem), base = (raw + 1023u) & ~1023u;
  const BackwardSmem<Ti> sm{base, smem + (base - raw)};
  const sdpa::Band band = sdpa::band_of(p);
  const KeyTileWork w = key_tile_work<Ti>(p, bp, band);
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if (threadIdx.x == 0) {
    mbarrier_init(sm.kv_full(), 1);
    for (int stage = 0; stage < Ti::kStages; ++stage) {
      mbarrier_init(sm.q_full(stage), 1 + 32);  // the tiles' thread with their bytes, the rows' warp
      // The consumers' threads, and at the shared-key tile the dQ writer (the slot holds the staging).
      mbarrier_init(sm.q_empty(stage), Ti::kConsumers * 128 + (Ti::kSharedKeys ? 1 : 0));
    }
    for (int group = 0; group < Ti::kConsumers; ++group) {
      mbarrier_init(sm.dq_full(group), 128);
      mbarrier_init(sm.dq_empty(group), 1);
    }
    if (Ti::kSharedKeys) {
      for (int stage = 0; stage < Ti::kStages; ++stage)
        for (int half = 0; half < 2; ++half)
          for (int group = 0; group < Ti::kConsumers; ++group) mbarrier_init(sm.dq_staged(group, half, stage), 128);
    }
    mbarrier_init_fence();
  }
  __syncthreads();
  if (warp >= 4 * Ti::kConsumers) {
    release_registers_to<kSdpaSm90BackwardProducerRegisters>();
    const int producer_warp = warp - 4 * Ti::kConsumers, lane = static_cast<int>(threadIdx.x) % 32;
    if (producer_warp == 0 && lane == 0) produce_tiles<Ti>(bp, sm, w);
    if (producer_warp == 1) produce_rows<Ti>(p, bp, sm, w, lane);
    if (producer_warp == 2 && lane == 0) produce_dq_additions<Ti>(p, bp, sm, w, band);
  } else {
    claim_registers_to<sdpa_sm90_backward_consumer_registers(Ti::kShape)>();
    const BackwardConsumer<T, Ti> consumer{p, bp, sm, w, band, warp / 4};
    consumer.run();
  }
}

}  // namespace baracuda::kernels::sm90

namespace baracuda::kernels {

template <class T, int HeadDimTile>
int sdpa_backward_sm90_launch(const SdpaProblem &p, const sm90::BackwardParams &bp, cudaStream_t stream) {
  using Ti = sm90::BackwardTiles<HeadDimTile>;
  const auto kernel = sm90::backward_kernel<T, Ti>;
  const size_t smem = sdpa_sm90_backward_smem_bytes(Ti::kShape);
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (err != cudaSuccess) return -static_cast<int>(err);
  const int64_t key_tiles = (p.keys + Ti::kBlockN - 1) / Ti::kBlockN;
  const dim3 grid(static_cast<unsigned>(key_tiles), static_cast<unsigned>(p.heads_kv), static_cast<unsigned>(p.batch));
  kernel<<<grid, Ti::kThreads, smem, stream>>>(p, bp);
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels

// One file's instantiation: BARACUDA_SDPA_SM90_BACKWARD(__nv_bfloat16, 128).
#define BARACUDA_SDPA_SM90_BACKWARD(T, TILE)                                        \
  template int baracuda::kernels::sdpa_backward_sm90_launch<T, TILE>(               \
      const baracuda::kernels::SdpaProblem &, const baracuda::kernels::sm90::BackwardParams &, cudaStream_t)
